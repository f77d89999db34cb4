#include "kubernetes/manifests/sandbox_rows.hpp"

#include "kubernetes/manifests/claim_lifetime.hpp"
#include "kubernetes/manifests/egress_objects.hpp"
#include "kubernetes/manifests/names.hpp"
#include "kubernetes/manifests/pod_status.hpp"
#include "kubernetes/manifests/sandbox_objects.hpp"
#include "kubernetes/manifests/suspension.hpp"
#include "osf/label_syntax.hpp"
#include "sandbox/labels.hpp"
#include "sandbox/spec_policy.hpp"

#include <algorithm>
#include <map>

namespace osf::kubernetes::manifests {

using nlohmann::json;
using sandbox::parse_timestamp;
using sandbox::rfc3339;
using sandbox::SandboxRow;
using sandbox::WallTime;

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

void SandboxRowsBuilder::add(const json& item) {
    const json metadata = item.value("metadata", json::object());
    const json labels = metadata.value("labels", json::object());
    const std::string id = labels.value(sandbox::kSandboxIdLabel, "");
    if (id.empty()) return;
    const std::string kind = item.value("kind", "");
    // A ConfigMap only says what policy a sandbox has: one left alone
    // makes no row, and its age is not the sandbox's.
    if (kind == "ConfigMap") {
        if (metadata.value("name", "") == spec_config_name(id))
            if (const auto text = spec_text_of(item)) policies_[id] = sandbox::spec_policy(*text);
        return;
    }
    Found& entry = found_[id];
    const std::string created = metadata.value("creationTimestamp", "");
    if (!created.empty() && (entry.created.empty() || created < entry.created))
        entry.created = created;
    if (kind == "SandboxClaim") {
        entry.has_claim = true;
        entry.claim = claim_status(item);
        entry.expires = claim_expiry(item);
        entry.suspended = claim_suspended(item);
        // The template's image, when it was read, is the same.
        const std::string image =
            metadata.value("annotations", json::object()).value(kImageAnnotation, "");
        if (entry.image.empty()) entry.image = image;
        // The claim carries the user's labels with the adapter's own: only
        // the user's are the row's.
        for (const auto& [key, value] : labels.items())
            if (value.is_string() && !osf::user_label_problem(key, value.get<std::string>()))
                entry.labels[key] = value.get<std::string>();
    } else if (kind == "SandboxTemplate") {
        entry.image = first_container_image(
            item.value("spec", json::object()).value("podTemplate", json::object()));
    }
}

bool SandboxRowsBuilder::needs_templates() const {
    return std::any_of(found_.begin(), found_.end(), [](const auto& found) {
        return found.second.has_claim && found.second.image.empty();
    });
}

std::vector<SandboxRow> SandboxRowsBuilder::rows(std::chrono::system_clock::time_point now) const {
    const long long now_seconds =
        std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
    std::vector<SandboxRow> rows;
    for (const auto& [id, entry] : found_) {
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
        row.labels = entry.labels;
        if (entry.expires) {
            row.expires = rfc3339(*entry.expires);
            row.expires_in_seconds =
                std::chrono::duration_cast<std::chrono::seconds>(*entry.expires - now).count();
        }
        if (const auto policy = policies_.find(id); policy != policies_.end())
            row.policy = policy->second;
        rows.push_back(row);
    }
    std::stable_sort(rows.begin(), rows.end(), [](const SandboxRow& a, const SandboxRow& b) {
        return a.created < b.created;
    });
    return rows;
}

std::vector<SandboxRow> sandbox_rows(const json& items, std::chrono::system_clock::time_point now) {
    SandboxRowsBuilder builder;
    for (const auto& item : items)
        builder.add(item);
    return builder.rows(now);
}

} // namespace osf::kubernetes::manifests
