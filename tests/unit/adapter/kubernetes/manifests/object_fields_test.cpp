#include "kubernetes/manifests/gc_plan.hpp"
#include "kubernetes/manifests/object_fields.hpp"
#include "kubernetes/manifests/sandbox_rows.hpp"

#include <catch2/catch.hpp>

using nlohmann::json;
using namespace osf::kubernetes::manifests;

namespace {

json labelled(const std::string& kind, const std::string& name, const std::string& id,
              const std::string& created) {
    return {{"kind", kind},
            {"metadata",
             {{"name", name},
              {"namespace", "default"},
              {"uid", "u-" + name},
              {"labels", {{"osf.sandbox.id", id}}},
              {"creationTimestamp", created},
              {"managedFields", json::array({json{{"manager", "kubectl"}}})}}}};
}

} // namespace

TEST_CASE("decision fields: what list and gc decide on, nothing else") {
    json claim = labelled("SandboxClaim", "osf-sandbox-aaaaaaaaaaaa", "aaaaaaaaaaaa",
                          "2026-11-29T18:00:00Z");
    claim["metadata"]["labels"]["run"] = "r1";
    claim["metadata"]["annotations"] = {{"osf.sandbox.suspended-at", "2026-11-29T18:20:00Z"},
                                        {"osf.sandbox.image", "node:24-alpine"},
                                        {"kubectl.kubernetes.io/last-applied", "{...}"}};
    claim["spec"] = {{"lifecycle", {{"shutdownTime", "2026-11-29T20:00:00Z"}}},
                     {"sandboxTemplateRef", {{"name", "osf-sandbox-aaaaaaaaaaaa"}}}};
    claim["status"] = {{"sandbox", {{"name", "osf-sandbox-aaaaaaaaaaaa"}}},
                       {"conditions", json::array({json{{"type", "Scheduled"}, {"status", "True"}},
                                                   json{{"type", "Ready"},
                                                        {"status", "False"},
                                                        {"reason", "SandboxSuspended"}}})}};
    const json cut = decision_fields(claim);
    CHECK(cut == json{{"kind", "SandboxClaim"},
                      {"metadata",
                       {{"name", "osf-sandbox-aaaaaaaaaaaa"},
                        {"labels", {{"osf.sandbox.id", "aaaaaaaaaaaa"}, {"run", "r1"}}},
                        {"creationTimestamp", "2026-11-29T18:00:00Z"},
                        {"annotations",
                         {{"osf.sandbox.suspended-at", "2026-11-29T18:20:00Z"},
                          {"osf.sandbox.image", "node:24-alpine"}}}}},
                      {"spec", {{"lifecycle", {{"shutdownTime", "2026-11-29T20:00:00Z"}}}}},
                      {"status",
                       {{"sandbox", {{"name", "osf-sandbox-aaaaaaaaaaaa"}}},
                        {"conditions", json::array({json{{"type", "Ready"},
                                                         {"status", "False"},
                                                         {"reason", "SandboxSuspended"}}})}}}});

    json tmpl = labelled("SandboxTemplate", "osf-sandbox-aaaaaaaaaaaa", "aaaaaaaaaaaa",
                         "2026-11-29T18:00:01Z");
    tmpl["spec"]["podTemplate"]["spec"] = {
        {"containers", json::array({json{{"name", "sandbox"},
                                         {"image", "node:24-alpine"},
                                         {"command", json::array({"sleep"})}}})},
        {"volumes", json::array({json{{"name", "workspace"}}})}};
    CHECK(decision_fields(tmpl)["spec"] ==
          json{{"podTemplate",
                {{"spec", {{"containers", json::array({json{{"image", "node:24-alpine"}}})}}}}}});

    json pod =
        labelled("Pod", "osf-sandbox-cccccccccccc-egress", "cccccccccccc", "2026-11-29T18:00:00Z");
    pod["metadata"]["labels"]["osf.sandbox.role"] = "egress";
    pod["spec"] = {{"containers", json::array({json{{"image", "egress-proxy"}}})}};
    pod["status"] = {{"phase", "Failed"}, {"reason", "DeadlineExceeded"}, {"podIP", "10.0.0.1"}};
    CHECK(decision_fields(pod) ==
          json{{"kind", "Pod"},
               {"metadata",
                {{"name", "osf-sandbox-cccccccccccc-egress"},
                 {"labels", {{"osf.sandbox.id", "cccccccccccc"}, {"osf.sandbox.role", "egress"}}},
                 {"creationTimestamp", "2026-11-29T18:00:00Z"}}},
               {"status", {{"phase", "Failed"}, {"reason", "DeadlineExceeded"}}}});

    // Odd shapes are cut down, not trusted.
    CHECK(decision_fields(json::array()) == json::object());
    json odd = {{"kind", "SandboxTemplate"},
                {"metadata", "not an object"},
                {"spec", {{"podTemplate", {{"spec", {{"containers", "none"}}}}}}},
                {"status", {{"conditions", "none"}}}};
    CHECK(decision_fields(odd) == json{{"kind", "SandboxTemplate"}});

    // The cut-down objects decide as whole ones do.
    const auto now = std::chrono::system_clock::time_point(std::chrono::seconds(1795978800));
    claim["status"]["conditions"][1] = {
        {"type", "Ready"}, {"status", "True"}, {"reason", "DependenciesReady"}};
    claim["metadata"]["annotations"].erase("osf.sandbox.suspended-at");
    json other = labelled("SandboxClaim", "osf-sandbox-bbbbbbbbbbbb", "bbbbbbbbbbbb",
                          "2026-11-29T18:10:00Z");
    other["spec"]["lifecycle"]["shutdownTime"] = "2026-11-29T18:30:00Z";
    const json whole = json::array({claim, tmpl, other, pod});
    json cut_items = json::array();
    for (const auto& item : whole)
        cut_items.push_back(decision_fields(item));
    const auto rows = sandbox_rows(cut_items, now); // 2026-11-29T19:00:00Z
    const auto whole_rows = sandbox_rows(whole, now);
    REQUIRE(rows.size() == 3);
    REQUIRE(whole_rows.size() == 3);
    for (std::size_t i = 0; i < rows.size(); ++i) {
        CHECK(rows[i].id == whole_rows[i].id);
        CHECK(rows[i].status == whole_rows[i].status);
        CHECK(rows[i].image == whole_rows[i].image);
        CHECK(rows[i].expires == whole_rows[i].expires);
        CHECK(rows[i].labels == whole_rows[i].labels);
    }
    CHECK(rows[0].id == "aaaaaaaaaaaa");
    CHECK(rows[0].image == "node:24-alpine");
    CHECK(rows[0].labels == std::map<std::string, std::string>{{"run", "r1"}}); // the user's only

    const auto removals = gc_plan(cut_items, now, std::chrono::minutes(15));
    const auto whole_removals = gc_plan(whole, now, std::chrono::minutes(15));
    REQUIRE(removals.size() == 3);
    REQUIRE(whole_removals.size() == 3);
    for (std::size_t i = 0; i < removals.size(); ++i) {
        CHECK(removals[i].id == whole_removals[i].id);
        CHECK(removals[i].reason == whole_removals[i].reason);
    }
    CHECK(removals[1].reason == "expired at 2026-11-29T18:30:00Z");
    CHECK(removals[2].reason ==
          "egress pod osf-sandbox-cccccccccccc-egress Failed (DeadlineExceeded)");
}

TEST_CASE("spec fields: of a sandbox's spec ConfigMap its spec only; other ConfigMaps nothing") {
    json spec = labelled("ConfigMap", "osf-sandbox-aaaaaaaaaaaa-spec", "aaaaaaaaaaaa",
                         "2026-11-29T18:00:00Z");
    spec["data"] = {{"spec.json", R"({"template":"node:24","egress":["x.example"]})"},
                    {"other", "dropped"}};
    CHECK(spec_fields(spec) ==
          json{{"kind", "ConfigMap"},
               {"metadata",
                {{"name", "osf-sandbox-aaaaaaaaaaaa-spec"},
                 {"labels", {{"osf.sandbox.id", "aaaaaaaaaaaa"}}}}},
               {"data", {{"spec.json", R"({"template":"node:24","egress":["x.example"]})"}}}});
    // A CA bundle, another sandbox's spec name, no ID label, no spec: nothing kept.
    json bundle = labelled("ConfigMap", "osf-sandbox-aaaaaaaaaaaa-upstream-ca", "aaaaaaaaaaaa",
                           "2026-11-29T18:00:00Z");
    bundle["data"] = {{"ca.pem", std::string(100000, 'x')}};
    CHECK(spec_fields(bundle) == json::object());
    json other = spec;
    other["metadata"]["name"] = "osf-sandbox-bbbbbbbbbbbb-spec";
    CHECK(spec_fields(other) == json::object());
    json unlabelled = spec;
    unlabelled["metadata"].erase("labels");
    CHECK(spec_fields(unlabelled) == json::object());
    json empty = spec;
    empty.erase("data");
    CHECK(spec_fields(empty) == json::object());
    CHECK(spec_fields(json::array()) == json::object());
    // sandbox_rows reads the policy from the cut-down ConfigMap as from the whole one.
    const json claim = labelled("SandboxClaim", "osf-sandbox-aaaaaaaaaaaa", "aaaaaaaaaaaa",
                                "2026-11-29T18:00:00Z");
    const auto now = std::chrono::system_clock::time_point(std::chrono::seconds(1795978800));
    const auto whole = sandbox_rows(json::array({claim, spec, bundle}), now);
    const auto cut = sandbox_rows(json::array({claim, spec_fields(spec)}), now);
    REQUIRE(whole.size() == 1);
    REQUIRE(cut.size() == 1);
    CHECK(whole[0].policy == cut[0].policy);
    CHECK(!cut[0].policy.is_null());
    // Folded one at a time as list does: the same row.
    SandboxRowsBuilder builder;
    builder.add(decision_fields(claim));
    builder.add(spec_fields(bundle));
    builder.add(spec_fields(spec));
    const auto folded = builder.rows(now);
    REQUIRE(folded.size() == 1);
    CHECK(folded[0].id == whole[0].id);
    CHECK(folded[0].status == whole[0].status);
    CHECK(folded[0].created == whole[0].created);
    CHECK(folded[0].policy == whole[0].policy);
}
