// Lifetime, ownership, gc decisions, list formatting and exec stopping: the
// pure parts, table by table.
#include "kubernetes/manifests/claim_lifetime.hpp"
#include "kubernetes/manifests/create_objects.hpp"
#include "kubernetes/manifests/gc_plan.hpp"
#include "kubernetes/manifests/owner_references.hpp"
#include "kubernetes/manifests/sandbox_objects.hpp"
#include "request_fixture.hpp"
#include "sandbox/exec_stop.hpp"
#include "sandbox/lifetime.hpp"
#include "sandbox/sandbox_list.hpp"
#include "sandbox/settings.hpp"

#include <catch2/catch.hpp>
#include <map>

using nlohmann::json;
using namespace osf::kubernetes::manifests;
using namespace osf::sandbox;
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
    CHECK(settings_with({{"OSF_SANDBOX_POD_LABELS", "team=a,example.com/cost=42"}}).pod_labels ==
          std::vector<std::pair<std::string, std::string>>{{"team", "a"},
                                                           {"example.com/cost", "42"}});
    CHECK_THROWS_WITH(settings_with({{"OSF_SANDBOX_POD_LABELS", "team"}}),
                      "OSF_SANDBOX_POD_LABELS: 'team' is not key=value");
    CHECK_THROWS_WITH(settings_with({{"OSF_SANDBOX_POD_LABELS", "osf.sandbox.id=x"}}),
                      "OSF_SANDBOX_POD_LABELS: osf.sandbox.id is set by sandbox-kubernetes or "
                      "agent-sandbox");
    CHECK_THROWS_WITH(settings_with({{"OSF_SANDBOX_GC_GRACE", "15"}}),
                      Catch::StartsWith("OSF_SANDBOX_GC_GRACE '15' has no unit"));
}

TEST_CASE("sandbox_lifetime: the spec's or the default, never beyond the maximum") {
    const Settings settings = settings_with({});
    const Lifetime fallback = sandbox_lifetime(std::nullopt, settings, kNow + 500ms);
    CHECK(fallback.created == kNow);
    CHECK(fallback.expires == kNow + 8h);
    // The pods end an extend window (1 hour by default) after the expiry ...
    CHECK(fallback.pods_end == kNow + 9h);
    CHECK(sandbox_lifetime(90min, settings, kNow).expires == kNow + 90min);
    CHECK(sandbox_lifetime(168h, settings, kNow).expires == kNow + 168h);
    // ... never past the maximum lifetime ...
    CHECK(sandbox_lifetime(168h, settings, kNow).pods_end == kNow + 168h);
    CHECK(sandbox_lifetime(167h + 30min, settings, kNow).pods_end == kNow + 168h);
    // ... and OSF_SANDBOX_EXTEND_WINDOW sets the window, 0 for none.
    CHECK(
        sandbox_lifetime(1h, settings_with({{"OSF_SANDBOX_EXTEND_WINDOW", "0"}}), kNow).pods_end ==
        kNow + 1h);
    CHECK(
        sandbox_lifetime(1h, settings_with({{"OSF_SANDBOX_EXTEND_WINDOW", "1d"}}), kNow).pods_end ==
        kNow + 25h);
    CHECK_THROWS_WITH(settings_with({{"OSF_SANDBOX_EXTEND_WINDOW", "-1h"}}),
                      Catch::StartsWith("OSF_SANDBOX_EXTEND_WINDOW '-1h' "));
    CHECK_THROWS_WITH(sandbox_lifetime(169h, settings, kNow),
                      "lifetime 7d1h is longer than the maximum 7d (OSF_SANDBOX_MAX_LIFETIME)");
}

TEST_CASE("the claim's lifecycle, annotations and the pods' deadline") {
    const Lifetime lifetime{kNow, kNow + 90min, kNow + 150min};
    const json claim_object = with_lifetime(
        {{"kind", "SandboxClaim"}, {"metadata", {{"name", "c"}}}, {"spec", json::object()}},
        lifetime);
    CHECK(claim_object["spec"]["lifecycle"] ==
          json{{"shutdownTime", "2026-11-29T20:30:00Z"}, {"shutdownPolicy", "Delete"}});
    CHECK(claim_object["metadata"]["annotations"] ==
          json{{"osf.sandbox.created-at", "2026-11-29T19:00:00Z"},
               {"osf.sandbox.expires-at", "2026-11-29T20:30:00Z"},
               {"osf.sandbox.pods-end-at", "2026-11-29T21:30:00Z"}});
    CHECK(claim_expiry(claim_object) == kNow + 90min);
    CHECK(claim_created(claim_object) == kNow);
    CHECK(claim_pods_end(claim_object) == kNow + 150min);
    CHECK(claim_pods_end(json::object()) == std::nullopt);
    const json pod_spec = {{"containers", json::array()}};
    // Counted from when the pod is made, whole seconds rounded up, at least 1.
    CHECK(with_pod_deadline(pod_spec, lifetime.pods_end, kNow)["activeDeadlineSeconds"] == 9000);
    CHECK(with_pod_deadline(pod_spec, lifetime.pods_end,
                            kNow + 1h + 500ms)["activeDeadlineSeconds"] == 5400);
    CHECK(with_pod_deadline(pod_spec, lifetime.pods_end, kNow + 3h)["activeDeadlineSeconds"] == 1);
    // A template's own shorter deadline stays; a longer one is cut.
    CHECK(with_pod_deadline({{"activeDeadlineSeconds", 600}}, lifetime.pods_end,
                            kNow)["activeDeadlineSeconds"] == 600);
    CHECK(with_pod_deadline({{"activeDeadlineSeconds", 99999}}, lifetime.pods_end,
                            kNow)["activeDeadlineSeconds"] == 9000);
    // resume bounds the Sandbox's next pod by what is left.
    const json sandbox = {
        {"spec", {{"podTemplate", {{"spec", {{"activeDeadlineSeconds", 9000}}}}}}}};
    CHECK(sandbox_deadline_patch(sandbox, lifetime.pods_end, kNow + 2h) ==
          json{{"spec", {{"podTemplate", {{"spec", {{"activeDeadlineSeconds", 1800}}}}}}}});
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
    // Never past the pods' deadline, which the kubelet enforces and nobody can move later.
    json bounded = c;
    bounded["metadata"]["annotations"]["osf.sandbox.pods-end-at"] = "2026-11-29T22:00:00Z";
    CHECK(extended_expiry(bounded, 2h, 168h, kNow) == kNow + 3h);
    CHECK_THROWS_WITH(extended_expiry(bounded, 2h + 1s, 168h, kNow),
                      "cannot extend to 2026-11-29T22:00:01Z: the kubelet ends this sandbox's "
                      "pods at 2026-11-29T22:00:00Z (activeDeadlineSeconds, which Kubernetes "
                      "never moves later); a longer OSF_SANDBOX_EXTEND_WINDOW at create allows "
                      "more");
    CHECK(
        expiry_patch(kNow) ==
        json{{"metadata", {{"annotations", {{"osf.sandbox.expires-at", "2026-11-29T19:00:00Z"}}}}},
             {"spec", {{"lifecycle", {{"shutdownTime", "2026-11-29T19:00:00Z"}}}}}});
}

TEST_CASE("ownership: the claim's reference, and everything after it born owned by it") {
    const json reference = claim_owner_reference(claim("0123456789ab", "", ""));
    CHECK(reference == json{{"apiVersion", "extensions.agents.x-k8s.io/v1beta1"},
                            {"kind", "SandboxClaim"},
                            {"name", "osf-sandbox-0123456789ab"},
                            {"uid", "uid-0123456789ab"}});
    CHECK(owner_patch(reference) ==
          json{{"metadata", {{"ownerReferences", json::array({reference})}}}});
    const auto request = osf::testing::sample_request();
    const json egress = owned_by(egress_side_objects(request, request.lifetime.created), reference);
    const json sandbox =
        owned_by(sandbox_side_objects(request, image_pod_template("a:b"), "PEM", kNow), reference);
    std::vector<std::string> kinds;
    for (const json* group : {&egress, &sandbox})
        for (const auto& object : *group) {
            CHECK(object["metadata"]["ownerReferences"] == json::array({reference}));
            kinds.push_back(object["kind"].get<std::string>());
        }
    // The SandboxWarmPool last: its appearance sets the claim's controller to work.
    CHECK(kinds == std::vector<std::string>{"ConfigMap", "Pod", "Service", "NetworkPolicy",
                                            "ConfigMap", "SandboxTemplate", "SandboxWarmPool"});
    // The claim itself has no owner; it carries the lifecycle.
    const json claim_object = sandbox_claim_object(request);
    CHECK_FALSE(claim_object["metadata"].contains("ownerReferences"));
    CHECK(claim_object["spec"]["lifecycle"]["shutdownTime"] == "2026-11-30T03:00:00Z");
}

TEST_CASE("ownership: the Secret is made labelled and owned by the claim") {
    const json owner = claim_owner_reference(claim("0123456789ab", "", ""));
    CHECK(secret_metadata_patch("0123456789ab", owner) ==
          json{{"metadata",
                {{"labels",
                  {{"osf.sandbox.id", "0123456789ab"},
                   {"app.kubernetes.io/managed-by", "sandbox-kubernetes"}}},
                 {"ownerReferences", json::array({owner})}}}});
}

TEST_CASE("gc_plan: expired, failed or ended pods, unfinished creates after the grace") {
    const json items = json::array({
        // expired an hour ago
        claim("aaaaaaaaaaaa", "2026-11-29T10:00:00Z", "2026-11-29T18:00:00Z"),
        // alive, with a healthy egress pod
        claim("bbbbbbbbbbbb", "2026-11-29T18:00:00Z", "2026-11-29T20:00:00Z"),
        part("bbbbbbbbbbbb", "SandboxWarmPool", "2026-11-29T18:00:05Z"),
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
        part("999999999999", "SandboxWarmPool", "2026-11-29T10:00:05Z"),
        // a claim whose create was killed before the warm pool, 20 minutes ago
        claim("777777777777", "2026-11-29T18:40:00Z", "2026-11-29T20:00:00Z"),
        part("777777777777", "Secret", "2026-11-29T18:40:01Z"),
        // the same, 5 minutes old: a create in progress
        claim("888888888888", "2026-11-29T18:55:00Z", "2026-11-29T20:00:00Z"),
        // not the adapter's sandbox
        json{{"kind", "ConfigMap"}, {"metadata", {{"name", "other"}}}},
    });
    const auto plan = gc_plan(items, kNow, 15min);
    std::vector<std::string> lines;
    for (const auto& removal : plan)
        lines.push_back(removal.id + " " + removal.reason);
    CHECK(lines == std::vector<std::string>{
                       "777777777777 create did not finish: no SandboxWarmPool after 19m",
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
    CHECK(format_expires(2 * 3600 + 59 * 60) == "in 179m"); // kubectl's, not "in 2h"
    SandboxRow row;
    row.id = "0123456789ab";
    row.status = "SandboxNotReady";
    row.age_seconds = 30;
    row.image = "node:24-alpine";
    CHECK(wide_table({row}) == "ID             STATUS            AGE   EXPIRES   IMAGE\n"
                               "0123456789ab   SandboxNotReady   30s   -         node:24-alpine\n");
    CHECK(wide_table({}) == "ID   STATUS   AGE   EXPIRES   IMAGE\n");
    CHECK(rows_json({row})[0]["expires"].is_null());
    row.created = "2026-11-29T18:59:30Z";
    CHECK(rows_yaml({row, row}) == "- ageSeconds: 30\n"
                                   "  created: \"2026-11-29T18:59:30Z\"\n"
                                   "  expires: null\n"
                                   "  id: \"0123456789ab\"\n"
                                   "  image: \"node:24-alpine\"\n"
                                   "  status: \"SandboxNotReady\"\n"
                                   "- ageSeconds: 30\n"
                                   "  created: \"2026-11-29T18:59:30Z\"\n"
                                   "  expires: null\n"
                                   "  id: \"0123456789ab\"\n"
                                   "  image: \"node:24-alpine\"\n"
                                   "  status: \"SandboxNotReady\"\n");
    CHECK(rows_yaml({}) == "[]\n");
}

TEST_CASE("exec stopping: the marked command and the stop script's arguments") {
    const auto marked = marked_command("feedfacecafe", {"npm", "test"});
    REQUIRE(marked.size() == 7);
    CHECK(marked[0] == "sh");
    CHECK(marked[3] == "osf-exec");
    CHECK(std::vector<std::string>(marked.begin() + 4, marked.end()) ==
          std::vector<std::string>{"OSF_EXEC_ID=feedfacecafe", "npm", "test"});
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
