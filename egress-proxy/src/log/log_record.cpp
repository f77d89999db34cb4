#include "log/log_record.hpp"

#include <ctime>
#include <nlohmann/json.hpp>

namespace osf::log {

std::string_view to_string(Outcome o) {
    switch (o) {
    case Outcome::Allowed:
        return "allowed";
    case Outcome::Refused:
        return "refused";
    case Outcome::Error:
        return "error";
    }
    return "error";
}

std::string format_time(std::chrono::system_clock::time_point t) {
    using namespace std::chrono;
    const auto ms = duration_cast<milliseconds>(t.time_since_epoch()).count();
    const std::time_t secs = static_cast<std::time_t>(ms / 1000);
    std::tm tm{};
    gmtime_r(&secs, &tm);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                  tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                  static_cast<int>(ms % 1000));
    return buf;
}

std::string to_json_line(const LogRecord& r) {
    // Field order is fixed (ordered_json) so lines read the same way every time.
    nlohmann::ordered_json j;
    j["time"] = format_time(r.time);
    j["connection"] = r.connection;
    j["client"] = r.client;
    j["host"] = r.host;
    j["port"] = r.port;
    j["scheme"] = r.scheme;
    j["method"] = r.method;
    j["path"] = std::string_view(r.path).substr(0, r.path.find_first_of("?#"));
    j["outcome"] = to_string(r.outcome);
    j["status"] = r.status;
    if (r.outcome == Outcome::Refused)
        j["refusedBy"] = r.refused_by.empty() ? std::string("bad-request") : r.refused_by;
    if (r.outcome == Outcome::Error)
        j["error"] = r.error.empty() ? std::string("internal") : r.error;
    if (!r.mcp_server.empty()) j["mcpServer"] = r.mcp_server;
    if (!r.tool.empty()) j["tool"] = r.tool;
    if (!r.secrets.empty()) j["secrets"] = r.secrets;
    if (!r.upgrade.empty()) j["upgrade"] = r.upgrade;
    j["bytesUp"] = r.bytes_up;
    j["bytesDown"] = r.bytes_down;
    j["durationMs"] = static_cast<double>(static_cast<std::int64_t>(r.duration_ms * 1000)) / 1000;
    if (r.mcp_events_dropped >= 0) j["mcpEventsDropped"] = r.mcp_events_dropped;
    if (r.tools_removed >= 0) j["toolsRemoved"] = r.tools_removed;
    // Invalid UTF-8 from the wire (a path, a method) is replaced, never a reason to lose the line.
    std::string line = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    line.push_back('\n');
    return line;
}

} // namespace osf::log
