// What `list` prints, whatever runs the sandboxes: one row per sandbox, and
// its table, JSON and YAML forms.
#pragma once

#include <chrono>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace osf::sandbox {

struct SandboxRow {
    std::string id;
    std::string
        status; // Ready | Suspended | Starting | Failed | Exited | Error | Expired | Pending
    std::string created; // the oldest object's creationTimestamp (RFC 3339)
    long long age_seconds = 0;
    std::string image;   // the sandbox container's image, "-" when unknown
    std::string expires; // the claim's shutdownTime (RFC 3339), empty when none
    std::optional<long long> expires_in_seconds; // negative once past
    // spec_policy() of the stored spec (what allow and revoke rewrite); null
    // when it could not be read.
    nlohmann::json policy;
    // The user's labels (never the adapter's own): what -l selects on.
    std::map<std::string, std::string> labels;
};

// "45s", "12m", "3h", "5d"
std::string format_age(long long seconds);
// The EXPIRES column: "in 2h", "in 45s", "expired", "-" when unknown.
std::string format_expires(const std::optional<long long>& seconds);

// `list -o wide`: a header (ID STATUS AGE EXPIRES IMAGE), then one aligned
// line per row.
std::string wide_table(const std::vector<SandboxRow>& rows);
// `list -o json`: an array of {id, status, created, ageSeconds, expires, image, labels,
// policy}.
nlohmann::json rows_json(const std::vector<SandboxRow>& rows);

// `list -o yaml`: the same rows as a block YAML sequence, keys sorted as
// kubectl sorts them (policy as a JSON flow mapping, which YAML reads);
// "[]" when there are none.
std::string rows_yaml(const std::vector<SandboxRow>& rows);

// Seconds since the epoch of "2026-11-29T18:55:00Z"; nullopt when malformed.
std::optional<long long> parse_timestamp(const std::string& text);

} // namespace osf::sandbox
