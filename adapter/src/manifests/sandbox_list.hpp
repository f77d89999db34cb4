// What `list` prints: one row per sandbox ID found among the adapter's
// objects, from their labels and status.
#pragma once

#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace osf::manifests {

struct SandboxRow {
    std::string id;
    std::string status;  // Ready | the claim's reason | Pending | Starting
    std::string created; // the oldest object's creationTimestamp (RFC 3339)
    long long age_seconds = 0;
    std::string image; // the sandbox container's image, "-" when unknown
};

// `items`: claims, templates and pods labelled by the adapter. Sorted by
// creation time, oldest first.
std::vector<SandboxRow> sandbox_rows(const nlohmann::json& items,
                                     std::chrono::system_clock::time_point now);

// "45s", "12m", "3h", "5d"
std::string format_age(long long seconds);

// Seconds since the epoch of "2026-11-29T18:55:00Z"; nullopt when malformed.
std::optional<long long> parse_timestamp(const std::string& text);

} // namespace osf::manifests
