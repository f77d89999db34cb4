#include "manifests/sandbox_list.hpp"

#include "manifests/labels.hpp"
#include "manifests/pod_status.hpp"

#include <algorithm>
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

std::string format_age(long long seconds) {
    if (seconds < 0) seconds = 0;
    if (seconds < 120) return std::to_string(seconds) + "s";
    if (seconds < 2 * 3600) return std::to_string(seconds / 60) + "m";
    if (seconds < 2 * 86400) return std::to_string(seconds / 3600) + "h";
    return std::to_string(seconds / 86400) + "d";
}

std::vector<SandboxRow> sandbox_rows(const json& items, std::chrono::system_clock::time_point now) {
    struct Found {
        std::string created;
        bool has_claim = false;
        ClaimStatus claim;
        std::string image;
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
        else if (entry.claim.ready)
            row.status = "Ready";
        else
            row.status = entry.claim.reason.empty() ? "Pending" : entry.claim.reason;
        row.created = entry.created;
        if (auto created = parse_timestamp(entry.created)) row.age_seconds = now_seconds - *created;
        row.image = entry.image.empty() ? "-" : entry.image;
        rows.push_back(row);
    }
    std::stable_sort(rows.begin(), rows.end(), [](const SandboxRow& a, const SandboxRow& b) {
        return a.created < b.created;
    });
    return rows;
}

} // namespace osf::manifests
