#include "sandbox/sandbox_list.hpp"

#include "sandbox/lifetime.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <ctime>
#include <map>

namespace osf::sandbox {

using nlohmann::json;

std::optional<long long> parse_timestamp(const std::string& text) {
    std::tm tm{};
    int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
    char zone = 0;
    if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%c", &year, &month, &day, &hour, &minute,
                    &second, &zone) != 7 ||
        zone != 'Z')
        return std::nullopt;
    tm.tm_year = year - 1900;
    tm.tm_mon = month - 1;
    tm.tm_mday = day;
    tm.tm_hour = hour;
    tm.tm_min = minute;
    tm.tm_sec = second;
    return static_cast<long long>(timegm(&tm));
}

std::string format_age(long long seconds) {
    // kubectl's HumanDuration: two units while the larger is small, one after.
    auto two = [](long long big, const char* big_unit, long long small, const char* small_unit) {
        return std::to_string(big) + big_unit +
               (small == 0 ? std::string() : std::to_string(small) + small_unit);
    };
    if (seconds < 0) seconds = 0;
    if (seconds < 2 * 60) return std::to_string(seconds) + "s";
    const long long minutes = seconds / 60;
    if (minutes < 10) return two(minutes, "m", seconds % 60, "s");
    if (minutes < 3 * 60) return std::to_string(minutes) + "m";
    const long long hours = seconds / 3600;
    if (hours < 8) return two(hours, "h", minutes % 60, "m");
    if (hours < 48) return std::to_string(hours) + "h";
    if (hours < 8 * 24) return two(hours / 24, "d", hours % 24, "h");
    if (hours < 2 * 365 * 24) return std::to_string(hours / 24) + "d";
    if (hours < 8 * 365 * 24) return two(hours / (365 * 24), "y", (hours / 24) % 365, "d");
    return std::to_string(hours / (365 * 24)) + "y";
}

} // namespace osf::sandbox

namespace osf::sandbox {

std::string format_expires(const std::optional<long long>& seconds) {
    if (!seconds) return "-";
    if (*seconds <= 0) return "expired";
    return "in " + format_age(*seconds);
}

std::string wide_table(const std::vector<SandboxRow>& rows) {
    std::vector<std::array<std::string, 5>> cells;
    cells.push_back({"ID", "STATUS", "AGE", "EXPIRES", "IMAGE"});
    for (const auto& row : rows)
        cells.push_back({row.id, row.status, format_age(row.age_seconds),
                         format_expires(row.expires_in_seconds), row.image});
    std::array<std::size_t, 5> widths{};
    for (const auto& line : cells)
        for (std::size_t i = 0; i < line.size(); ++i)
            widths[i] = std::max(widths[i], line[i].size());
    std::string text;
    for (const auto& line : cells) {
        for (std::size_t i = 0; i < line.size(); ++i) {
            text += line[i];
            if (i + 1 < line.size()) text += std::string(widths[i] - line[i].size() + 3, ' ');
        }
        text += "\n";
    }
    return text;
}

std::string rows_yaml(const std::vector<SandboxRow>& rows) {
    // Block YAML of flat rows by hand: the values are IDs, words, RFC 3339
    // times, image names and numbers, each written as a JSON string (a YAML
    // double-quoted scalar), and the policy as JSON (a YAML flow mapping), so
    // no library is needed for what it would escape.
    const json array = rows_json(rows);
    if (array.empty()) return "[]\n";
    std::string text;
    for (const auto& row : array) {
        bool first = true;
        for (const auto& [key, value] : row.items()) {
            text += first ? "- " : "  ";
            first = false;
            text += key + ": " + (value.is_null() ? "null" : value.dump()) + "\n";
        }
    }
    return text;
}

json rows_json(const std::vector<SandboxRow>& rows) {
    json array = json::array();
    for (const auto& row : rows)
        array.push_back({{"id", row.id},
                         {"status", row.status},
                         {"created", row.created},
                         {"ageSeconds", row.age_seconds},
                         {"expires", row.expires.empty() ? json(nullptr) : json(row.expires)},
                         {"image", row.image},
                         {"policy", row.policy},
                         {"labels", row.labels}});
    return array;
}

} // namespace osf::sandbox
