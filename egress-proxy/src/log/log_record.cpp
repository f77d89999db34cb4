#include "log/log_record.hpp"

#include "log/json_line_writer.hpp"
#include "osf/log_fields.hpp"

namespace osf::log {

namespace {

char* two_digits(char* p, unsigned v) {
    p[0] = static_cast<char>('0' + v / 10);
    p[1] = static_cast<char>('0' + v % 10);
    return p + 2;
}

// A field the client controls, cut to `max` bytes (at a UTF-8 character
// boundary) with cut_marker at the end when longer.
std::string_view bounded(std::string_view text, std::size_t max, std::string& storage) {
    if (text.size() <= max) return text;
    std::size_t keep = max - cut_marker.size();
    while (keep > 0 && (static_cast<unsigned char>(text[keep]) & 0xC0) == 0x80)
        --keep;
    storage.assign(text.substr(0, keep));
    storage.append(cut_marker);
    return storage;
}

} // namespace

std::string format_time(std::chrono::system_clock::time_point t) {
    // Calendar arithmetic (no gmtime_r, which takes the time zone lock, and no
    // printf): this runs for every log line.
    using namespace std::chrono;
    const auto ms = floor<milliseconds>(t);
    const auto day = floor<days>(ms);
    const year_month_day ymd{day};
    const hh_mm_ss hms{ms - day};
    const int y = static_cast<int>(ymd.year());
    if (y < 0 || y > 9999) return "1970-01-01T00:00:00.000Z"; // not a clock this proxy reads
    char buf[24];
    char* p = two_digits(buf, static_cast<unsigned>(y / 100));
    p = two_digits(p, static_cast<unsigned>(y % 100));
    *p++ = '-';
    p = two_digits(p, static_cast<unsigned>(ymd.month()));
    *p++ = '-';
    p = two_digits(p, static_cast<unsigned>(ymd.day()));
    *p++ = 'T';
    p = two_digits(p, static_cast<unsigned>(hms.hours().count()));
    *p++ = ':';
    p = two_digits(p, static_cast<unsigned>(hms.minutes().count()));
    *p++ = ':';
    p = two_digits(p, static_cast<unsigned>(hms.seconds().count()));
    *p++ = '.';
    const auto millis = static_cast<unsigned>(hms.subseconds().count());
    *p++ = static_cast<char>('0' + millis / 100);
    p = two_digits(p, millis % 100);
    *p++ = 'Z';
    return std::string(buf, p);
}

std::string to_json_line(const LogRecord& r) {
    // Field order is fixed so lines read the same way every time.
    std::string line;
    line.reserve(320);
    JsonLineWriter j(line);
    std::string cut; // storage of a field cut short
    namespace f = osf::log_field;
    j.field(f::time, format_time(r.time));
    j.field(f::connection, r.connection);
    j.field(f::client, r.client);
    j.field(f::host, bounded(r.host, max_host_bytes, cut));
    j.field(f::port, static_cast<std::uint64_t>(r.port));
    j.field(f::scheme, r.scheme);
    if (!r.via.empty()) j.field(f::via, r.via);
    if (r.http2) j.field(f::http, std::string_view("2"));
    j.field(f::method, bounded(r.method, max_method_bytes, cut));
    j.field(f::path, bounded(std::string_view(r.path).substr(0, r.path.find_first_of("?#")),
                             max_path_bytes, cut));
    j.field(f::outcome, to_string(r.outcome));
    j.field(f::status, r.status);
    if (r.outcome == Outcome::refused)
        j.field(f::refused_by, to_string(r.refused_by.value_or(RefusalReason::bad_request)));
    if (r.outcome == Outcome::error)
        j.field(f::error, to_string(r.error.value_or(ErrorKind::aborted)));
    if (!r.mcp_server.empty()) j.field(f::mcp_server, r.mcp_server);
    if (!r.mcp_method.empty())
        j.field(f::mcp_method, bounded(r.mcp_method, max_mcp_method_bytes, cut));
    if (!r.tool.empty()) j.field(f::tool, bounded(r.tool, max_tool_bytes, cut));
    if (!r.secrets.empty()) j.field(f::secrets, r.secrets);
    if (!r.upgrade.empty()) j.field(f::upgrade, bounded(r.upgrade, max_method_bytes, cut));
    j.field(f::bytes_up, r.bytes_up);
    j.field(f::bytes_down, r.bytes_down);
    j.field(f::duration_ms,
            static_cast<double>(static_cast<std::int64_t>(r.duration_ms * 1000)) / 1000);
    if (r.mcp_events_dropped >= 0) j.field(f::mcp_events_dropped, r.mcp_events_dropped);
    if (r.tools_removed >= 0) j.field(f::tools_removed, r.tools_removed);
    if (!r.rule.empty()) j.field(f::rule, r.rule);
    if (r.rule_index >= 0) j.field(f::rule_index, static_cast<std::uint64_t>(r.rule_index));
    if (r.would_refuse) j.field(f::would_refuse, to_string(*r.would_refuse));
    if (r.policy > 0) j.field(f::policy, r.policy);
    if (r.count > 0) {
        j.field(f::count, r.count);
        j.field(f::since, format_time(r.since.value_or(r.time)));
    }
    j.finish();
    return line;
}

} // namespace osf::log
