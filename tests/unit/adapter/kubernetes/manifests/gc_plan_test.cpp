#include "claim_fixture.hpp"
#include "kubernetes/manifests/gc_plan.hpp"
#include "request_fixture.hpp"
#include "sandbox/lifetime.hpp"
#include "sandbox/settings.hpp"

#include <catch2/catch.hpp>
#include <map>
#include <nlohmann/json.hpp>

using nlohmann::json;
using namespace osf::kubernetes::manifests;
using namespace osf::sandbox;
using namespace std::chrono_literals;
using osf::testing::claim;
using osf::testing::kNow;

namespace {

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

TEST_CASE("gc planner: one object at a time decides as the whole list does; odd objects skipped") {
    using osf::kubernetes::manifests::GcPlanner;
    const auto now = std::chrono::system_clock::time_point(std::chrono::seconds(1795978800));
    const nlohmann::json claim = {
        {"kind", "SandboxClaim"},
        {"metadata",
         {{"name", "osf-sandbox-aaaaaaaaaaaa"},
          {"labels", {{"osf.sandbox.id", "aaaaaaaaaaaa"}}},
          {"creationTimestamp", "2026-11-29T18:00:00Z"}}},
        {"spec", {{"lifecycle", {{"shutdownTime", "2026-11-29T18:30:00Z"}}}}}};
    GcPlanner planner;
    for (const auto& odd :
         {nlohmann::json::array(), nlohmann::json("text"), nlohmann::json{{"metadata", "text"}},
          nlohmann::json{{"metadata", {{"labels", "text"}}}}})
        planner.add(odd);
    planner.add(claim);
    const auto removals = planner.removals(now, std::chrono::minutes(15));
    REQUIRE(removals.size() == 1);
    CHECK(removals[0].id == "aaaaaaaaaaaa");
    CHECK(removals[0].reason == "expired at 2026-11-29T18:30:00Z");
    const auto whole = osf::kubernetes::manifests::gc_plan(nlohmann::json::array({claim}), now,
                                                           std::chrono::minutes(15));
    REQUIRE(whole.size() == 1);
    CHECK(whole[0].reason == removals[0].reason);
}
