#include "egress_log/request_lines.hpp"

#include "osf/log_fields.hpp"

#include <nlohmann/json.hpp>

namespace osf::egress_log {

bool is_request_line(std::string_view line) {
    const auto parsed = nlohmann::json::parse(line, nullptr, false);
    return !(parsed.is_object() && parsed.contains(std::string(osf::log_evidence_field::kind)));
}

std::string RequestLineFilter::feed(std::string_view chunk) {
    std::string out;
    std::size_t start = 0;
    for (std::size_t newline = chunk.find('\n'); newline != std::string_view::npos;
         newline = chunk.find('\n', start)) {
        pending_.append(chunk.substr(start, newline + 1 - start));
        if (is_request_line(pending_)) out += pending_;
        pending_.clear();
        start = newline + 1;
    }
    pending_.append(chunk.substr(start));
    return out;
}

std::string RequestLineFilter::finish() {
    std::string rest;
    rest.swap(pending_);
    return is_request_line(rest) ? rest : std::string();
}

} // namespace osf::egress_log
