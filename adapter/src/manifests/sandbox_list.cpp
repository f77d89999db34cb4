#include "manifests/sandbox_list.hpp"

#include "manifests/labels.hpp"
#include "manifests/lifetime.hpp"
#include "manifests/pod_status.hpp"
#include "manifests/suspension.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <ctime>
#include <map>

namespace osf::manifests {

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

std::string status_word(const std::string& reason) {
    static const std::pair<const char*, const char*> words[] = {
        {"", "Starting"},
        {"DependenciesNotReady", "Starting"},
        {"SandboxNotReady", "Starting"},
        {"PodFailed", "Failed"},
        {"PodSucceeded", "Exited"},
        {"ReconcilerError", "Error"},
        {"SandboxCreateFailed", "Error"},
        {"TemplateNotFound", "Error"},
        {"WarmPoolNotFound", "Starting"}, // create makes the pool first; the controller retries
        {"SandboxSuspended", "Suspended"},
        {"SandboxExpired", "Expired"},
        {"ClaimExpired", "Expired"},
    };
    for (const auto& [from, word] : words)
        if (reason == from) return word;
    return reason;
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

std::vector<SandboxRow> sandbox_rows(const json& items, std::chrono::system_clock::time_point now) {
    struct Found {
        std::string created;
        bool has_claim = false;
        ClaimStatus claim;
        std::string image;
        std::optional<WallTime> expires;
        bool suspended = false;
    };
    std::map<std::string, Found> found;
    for (const auto& item : items) {
        const json metadata = item.value("metadata", json::object());
        const json labels = metadata.value("labels", json::object());
        const std::string id = labels.value(kSandboxIdLabel, "");
        if (id.empty()) continue;
        Found& entry = found[id];
        const std::string created = metadata.value("creationTimestamp", "");
        if (!created.empty() && (entry.created.empty() || created < entry.created))
            entry.created = created;
        const std::string kind = item.value("kind", "");
        if (kind == "SandboxClaim") {
            entry.has_claim = true;
            entry.claim = claim_status(item);
            entry.expires = claim_expiry(item);
            entry.suspended = claim_suspended(item);
        } else if (kind == "SandboxTemplate") {
            const json containers = item.value("spec", json::object())
                                        .value("podTemplate", json::object())
                                        .value("spec", json::object())
                                        .value("containers", json::array());
            if (!containers.empty() && containers[0].is_object())
                entry.image = containers[0].value("image", "");
        }
    }
    const long long now_seconds =
        std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
    std::vector<SandboxRow> rows;
    for (const auto& [id, entry] : found) {
        SandboxRow row;
        row.id = id;
        if (!entry.has_claim)
            row.status = "Starting";
        else if (entry.suspended)
            row.status = "Suspended";
        else if (entry.claim.ready)
            row.status = "Ready";
        else
            row.status = status_word(entry.claim.reason);
        row.created = entry.created;
        if (auto created = parse_timestamp(entry.created)) row.age_seconds = now_seconds - *created;
        row.image = entry.image.empty() ? "-" : entry.image;
        if (entry.expires) {
            row.expires = rfc3339(*entry.expires);
            row.expires_in_seconds =
                std::chrono::duration_cast<std::chrono::seconds>(*entry.expires - now).count();
        }
        rows.push_back(row);
    }
    std::stable_sort(rows.begin(), rows.end(), [](const SandboxRow& a, const SandboxRow& b) {
        return a.created < b.created;
    });
    return rows;
}

} // namespace osf::manifests

namespace osf::manifests {

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
    // double-quoted scalar), so no library is needed for what it would escape.
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
                         {"image", row.image}});
    return array;
}

} // namespace osf::manifests
