// Lifetime, ownership, gc decisions, list formatting and exec stopping: the
// pure parts, table by table.
#include "manifests/exec_stop.hpp"
#include "manifests/gc_plan.hpp"
#include "manifests/lifetime.hpp"
#include "manifests/owner_references.hpp"
#include "manifests/sandbox_list.hpp"
#include "manifests/settings.hpp"
#include "request_fixture.hpp"

#include <catch2/catch.hpp>
#include <map>

using nlohmann::json;
using namespace osf::manifests;
using namespace std::chrono_literals;

namespace {

// 2026-11-29T19:00:00Z
const WallTime kNow{std::chrono::seconds(1795978800)};

Settings settings_with(std::map<std::string, std::string> env) {
    return read_settings([env](const std::string& name) -> std::optional<std::string> {
        const auto it = env.find(name);
        return it == env.end() ? std::nullopt : std::optional<std::string>(it->second);
    });
}

json claim(const std::string& id, const std::string& created, const std::string& expires) {
    json object = {{"kind", "SandboxClaim"},
                   {"metadata",
                    {{"name", "osf-sandbox-" + id},
                     {"uid", "uid-" + id},
                     {"creationTimestamp", created},
                     {"labels", {{"osf.sandbox.id", id}}}}}};
    if (!expires.empty()) object["spec"]["lifecycle"]["shutdownTime"] = expires;
    return object;
}

json pod(const std::string& id, const std::string& role, const std::string& phase,
         const std::string& reason = "") {
    json object = {{"kind", "Pod"},
                   {"metadata",
                    {{"name", "osf-sandbox-" + id + (role == "egress" ? "-egress" : "")},
                     {"creationTimestamp", "2026-11-29T18:00:00Z"},
                     {"labels", {{"osf.sandbox.id", id}, {"osf.sandbox.role", role}}}}},
                   {"status", {{"phase", phase}}}};
    if (!reason.empty()) object["status"]["reason"] = reason;
    return object;
}

json part(const std::string& id, const std::string& kind, const std::string& created) {
    return {{"kind", kind},
            {"metadata",
             {{"name", "osf-sandbox-" + id + "-x"},
              {"creationTimestamp", created},
              {"labels", {{"osf.sandbox.id", id}}}}}};
}

} // namespace

TEST_CASE("lifetime variables: defaults, durations, and a default beyond the maximum") {
    const Settings defaults = settings_with({});
    CHECK(defaults.default_lifetime == 8h);
    CHECK(defaults.max_lifetime == 168h);
    CHECK(defaults.exec_timeout == 1h);
    CHECK(defaults.gc_grace == 15min);
    const Settings set = settings_with({{"OSF_SANDBOX_DEFAULT_LIFETIME", "90m"},
                                        {"OSF_SANDBOX_MAX_LIFETIME", "1d"},
                                        {"OSF_SANDBOX_EXEC_TIMEOUT", "10m"},
                                        {"OSF_SANDBOX_GC_GRACE", "1h"}});
    CHECK(set.default_lifetime == 90min);
    CHECK(set.max_lifetime == 24h);
    CHECK(set.exec_timeout == 10min);
    CHECK(set.gc_grace == 1h);
    // A maximum below the built-in default lowers the default with it.
    CHECK(settings_with({{"OSF_SANDBOX_MAX_LIFETIME", "2h"}}).default_lifetime == 2h);
    CHECK_THROWS_WITH(
        settings_with({{"OSF_SANDBOX_DEFAULT_LIFETIME", "3h"}, {"OSF_SANDBOX_MAX_LIFETIME", "2h"}}),
        "OSF_SANDBOX_DEFAULT_LIFETIME 3h is longer than OSF_SANDBOX_MAX_LIFETIME 2h");
    CHECK_THROWS_WITH(settings_with({{"OSF_SANDBOX_EXEC_TIMEOUT", "0s"}}),
                      Catch::StartsWith("OSF_SANDBOX_EXEC_TIMEOUT '0s' is zero"));
    CHECK_THROWS_WITH(settings_with({{"OSF_SANDBOX_GC_GRACE", "15"}}),
                      Catch::StartsWith("OSF_SANDBOX_GC_GRACE '15' has no unit"));
}

TEST_CASE("sandbox_lifetime: the spec's or the default, never beyond the maximum") {
    const Settings settings = settings_with({});
    const Lifetime fallback = sandbox_lifetime(std::nullopt, settings, kNow + 500ms);
    CHECK(fallback.created == kNow);
    CHECK(fallback.expires == kNow + 8h);
    CHECK(fallback.max == 168h);
    CHECK(sandbox_lifetime(90min, settings, kNow).expires == kNow + 90min);
    CHECK(sandbox_lifetime(168h, settings, kNow).expires == kNow + 168h);
    CHECK_THROWS_WITH(sandbox_lifetime(169h, settings, kNow),
                      "lifetime 7d1h is longer than the maximum 7d (OSF_SANDBOX_MAX_LIFETIME)");
}

TEST_CASE("the claim's lifecycle, annotations and the pods' deadline") {
    const Lifetime lifetime{kNow, kNow + 90min, 168h};
    const json claim_object = with_lifetime(
        {{"kind", "SandboxClaim"}, {"metadata", {{"name", "c"}}}, {"spec", json::object()}},
        lifetime);
    CHECK(claim_object["spec"]["lifecycle"] ==
          json{{"shutdownTime", "2026-11-29T20:30:00Z"}, {"shutdownPolicy", "Delete"}});
    CHECK(claim_object["metadata"]["annotations"] ==
          json{{"osf.sandbox.created-at", "2026-11-29T19:00:00Z"},
               {"osf.sandbox.expires-at", "2026-11-29T20:30:00Z"}});
    CHECK(claim_expiry(claim_object) == kNow + 90min);
    CHECK(claim_created(claim_object) == kNow);
    CHECK(with_pod_deadline(json{{"containers", json::array()}},
                            lifetime)["activeDeadlineSeconds"] == 604800);
    CHECK(rfc3339(kNow) == "2026-11-29T19:00:00Z");
}

TEST_CASE("extended_expiry: later by the duration, from now once past, within the maximum") {
    const json c = claim("0123456789ab", "2026-11-29T18:00:00Z", "2026-11-29T20:00:00Z");
    CHECK(extended_expiry(c, 30min, 168h, kNow) == kNow + 90min);
    // Already past its expiry (the controller has not deleted it yet): from now.
    const json past = claim("0123456789ab", "2026-11-29T10:00:00Z", "2026-11-29T18:00:00Z");
    CHECK(extended_expiry(past, 1h, 168h, kNow) == kNow + 1h);
    // At most created + max.
    CHECK(extended_expiry(c, 22h, 24h, kNow) == kNow + 23h);
    CHECK_THROWS_WITH(extended_expiry(c, 24h, 24h, kNow),
                      "cannot extend to 2026-11-30T20:00:00Z: a sandbox lives at most 1d "
                      "(OSF_SANDBOX_MAX_LIFETIME), until 2026-11-30T18:00:00Z");
    CHECK(
        expiry_patch(kNow) ==
        json{{"metadata", {{"annotations", {{"osf.sandbox.expires-at", "2026-11-29T19:00:00Z"}}}}},
             {"spec", {{"lifecycle", {{"shutdownTime", "2026-11-29T19:00:00Z"}}}}}});
}

TEST_CASE("ownership: the claim's reference, the patch, and what create made before it") {
    const json reference = claim_owner_reference(claim("0123456789ab", "", ""));
    CHECK(reference == json{{"apiVersion", "extensions.agents.x-k8s.io/v1beta1"},
                            {"kind", "SandboxClaim"},
                            {"name", "osf-sandbox-0123456789ab"},
                            {"uid", "uid-0123456789ab"}});
    CHECK(owner_patch(reference) ==
          json{{"metadata", {{"ownerReferences", json::array({reference})}}}});
    auto request = osf::testing::sample_request();
    std::vector<std::string> names;
    for (const auto& object : claim_owned_objects(request))
        names.push_back(object.resource + "/" + object.name);
    const std::string p = "osf-sandbox-0123456789ab";
    // Not the Secret: it is made owned by the spec ConfigMap (patching it would read it).
    CHECK(names == std::vector<std::string>{"configmaps/" + p + "-spec", "pods/" + p + "-egress",
                                            "services/" + p + "-egress",
                                            "networkpolicies.networking.k8s.io/" + p + "-egress",
                                            "configmaps/" + p + "-ca",
                                            "sandboxtemplates.extensions.agents.x-k8s.io/" + p,
                                            "sandboxwarmpools.extensions.agents.x-k8s.io/" + p});
    request.secrets = {};
    CHECK(claim_owned_objects(request).size() == 7);
}

TEST_CASE("ownership: the Secret is made labelled and owned by the spec ConfigMap") {
    const json config_map = {
        {"kind", "ConfigMap"},
        {"metadata", {{"name", "osf-sandbox-0123456789ab-spec"}, {"uid", "u-1"}, {"labels", {}}}}};
    const json owner = config_map_owner_reference(config_map);
    CHECK(owner == json{{"apiVersion", "v1"},
                        {"kind", "ConfigMap"},
                        {"name", "osf-sandbox-0123456789ab-spec"},
                        {"uid", "u-1"}});
    CHECK(secret_metadata_patch("0123456789ab", owner) ==
          json{{"metadata",
                {{"labels",
                  {{"osf.sandbox.id", "0123456789ab"},
                   {"app.kubernetes.io/managed-by", "sandbox-kubernetes"}}},
                 {"ownerReferences", json::array({owner})}}}});
    CHECK(config_map_owner_reference(json::object())["uid"] == "");
}

TEST_CASE("gc_plan: expired, failed or ended pods, parts without a claim after the grace") {
    const json items = json::array({
        // expired an hour ago
        claim("aaaaaaaaaaaa", "2026-11-29T10:00:00Z", "2026-11-29T18:00:00Z"),
        // alive, with a healthy egress pod
        claim("bbbbbbbbbbbb", "2026-11-29T18:00:00Z", "2026-11-29T20:00:00Z"),
        pod("bbbbbbbbbbbb", "egress", "Running"),
        // its egress pod hit activeDeadlineSeconds
        claim("cccccccccccc", "2026-11-29T18:00:00Z", "2026-11-29T20:00:00Z"),
        pod("cccccccccccc", "egress", "Failed", "DeadlineExceeded"),
        // its sandbox container ended
        claim("dddddddddddd", "2026-11-29T18:00:00Z", "2026-11-29T20:00:00Z"),
        pod("dddddddddddd", "sandbox", "Succeeded"),
        // no claim, parts 20 minutes old: a create killed midway
        part("eeeeeeeeeeee", "ConfigMap", "2026-11-29T18:30:00Z"),
        part("eeeeeeeeeeee", "Pod", "2026-11-29T18:40:00Z"),
        // no claim, but only 5 minutes old: a create in progress
        part("ffffffffffff", "ConfigMap", "2026-11-29T18:55:00Z"),
        // a claim with no lifecycle (made before lifetimes existed) and nothing wrong
        claim("999999999999", "2026-11-29T10:00:00Z", ""),
        // not the adapter's sandbox
        json{{"kind", "ConfigMap"}, {"metadata", {{"name", "other"}}}},
    });
    const auto plan = gc_plan(items, kNow, 15min);
    std::vector<std::string> lines;
    for (const auto& removal : plan)
        lines.push_back(removal.id + " " + removal.reason);
    CHECK(lines == std::vector<std::string>{
                       "aaaaaaaaaaaa expired at 2026-11-29T18:00:00Z",
                       "cccccccccccc egress pod osf-sandbox-cccccccccccc-egress Failed "
                       "(DeadlineExceeded)",
                       "dddddddddddd sandbox pod osf-sandbox-dddddddddddd Succeeded",
                       "eeeeeeeeeeee no SandboxClaim, parts left for 20m",
                   });
    // Exactly at the expiry counts as expired; one second before does not.
    CHECK(gc_plan(json::array({claim("aaaaaaaaaaaa", "", "2026-11-29T19:00:00Z")}), kNow, 15min)
              .size() == 1);
    CHECK(gc_plan(json::array({claim("aaaaaaaaaaaa", "", "2026-11-29T19:00:01Z")}), kNow, 15min)
              .empty());
}

TEST_CASE("list formatting: EXPIRES column and the wide table") {
    CHECK(format_expires(std::nullopt) == "-");
    CHECK(format_expires(0) == "expired");
    CHECK(format_expires(-5) == "expired");
    CHECK(format_expires(45) == "in 45s");
    CHECK(format_expires(3 * 3600) == "in 3h");
    SandboxRow row;
    row.id = "0123456789ab";
    row.status = "SandboxNotReady";
    row.age_seconds = 30;
    row.image = "node:24-alpine";
    CHECK(wide_table({row}) == "ID             STATUS            AGE   EXPIRES   IMAGE\n"
                               "0123456789ab   SandboxNotReady   30s   -         node:24-alpine\n");
    CHECK(wide_table({}) == "ID   STATUS   AGE   EXPIRES   IMAGE\n");
    CHECK(rows_json({row})[0]["expires"].is_null());
}

TEST_CASE("exec stopping: the marked command and the stop script's arguments") {
    CHECK(marked_command("feedfacecafe", {"npm", "test"}) ==
          std::vector<std::string>{"env", "OSF_EXEC_ID=feedfacecafe", "npm", "test"});
    const auto stop = stop_command("feedfacecafe", 5s);
    REQUIRE(stop.size() == 6);
    CHECK(stop[0] == "sh");
    CHECK(stop[1] == "-c");
    CHECK(stop[3] == "sh");
    CHECK(stop[4] == "feedfacecafe");
    CHECK(stop[5] == "5");
    CHECK_THAT(stop[2], Catch::Contains("kill -TERM") && Catch::Contains("kill -KILL") &&
                            Catch::Contains("OSF_EXEC_ID=$1"));
}
