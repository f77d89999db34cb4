// Egress log lines for the report's tests: a request line with the fields
// the proxy writes, and a log of such lines; and a count of what the
// rendered page or SVG holds.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace report_test {

inline nlohmann::json request(const std::string& host, const std::string& outcome = "allowed",
                              const std::string& time = "2026-11-29T18:00:00.000Z") {
    nlohmann::json line = {{"time", time},
                           {"host", host},
                           {"method", "GET"},
                           {"path", "/"},
                           {"port", 443},
                           {"outcome", outcome},
                           {"status", outcome == "refused" ? 403 : 200},
                           {"bytesUp", 1},
                           {"bytesDown", 10}};
    if (outcome == "refused") line["refusedBy"] = "host-not-allowed";
    if (outcome == "error") line["error"] = "upstream-tls";
    return line;
}

inline std::string log_of(const std::vector<nlohmann::json>& lines) {
    std::string text;
    for (const auto& line : lines)
        text += line.dump() + "\n";
    return text;
}

// How many times `part` occurs in the rendered text (overlaps counted).
inline std::size_t occurrences(const std::string& text, const std::string& part) {
    std::size_t n = 0;
    for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1))
        ++n;
    return n;
}

} // namespace report_test
