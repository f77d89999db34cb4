#include "kubernetes/manifests/sandbox_rows.hpp"
#include "sandbox/sandbox_list.hpp"
#include "sandbox/settings.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using nlohmann::json;
using namespace osf::kubernetes::manifests;
using namespace osf::sandbox;

TEST_CASE("list rows: the policy from each sandbox's spec ConfigMap; a ConfigMap alone is no row") {
    auto meta = [](const std::string& name, const std::string& id, const std::string& created) {
        return json{
            {"name", name}, {"labels", {{"osf.sandbox.id", id}}}, {"creationTimestamp", created}};
    };
    const std::string id = "bbbbbbbbbbbb";
    const json items = json::array({
        json{{"kind", "SandboxClaim"},
             {"metadata", meta("osf-sandbox-" + id, id, "2026-11-29T18:00:00Z")}},
        // Another ConfigMap of the sandbox (the CA's), made earlier, changes nothing.
        json{{"kind", "ConfigMap"},
             {"metadata", meta("osf-sandbox-" + id + "-ca", id, "2026-11-29T17:00:00Z")},
             {"data", {{"spec.json", R"({"egress": ["wrong.test"]})"}}}},
        json{{"kind", "ConfigMap"},
             {"metadata", meta("osf-sandbox-" + id + "-spec", id, "2026-11-29T18:00:01Z")},
             {"data", {{"spec.json", R"({"egress": ["a.test"], "mcp": [{"name": "wiki",
                  "url": "https://wiki.test/mcp", "tools": ["read"]}]})"}}}},
        json{{"kind", "ConfigMap"},
             {"metadata",
              meta("osf-sandbox-cccccccccccc-spec", "cccccccccccc", "2026-11-29T18:00:00Z")},
             {"data", {{"spec.json", "{}"}}}},
    });
    const auto rows = sandbox_rows(
        items, std::chrono::system_clock::time_point(std::chrono::seconds(1795978800)));
    REQUIRE(rows.size() == 1);
    CHECK(rows[0].created == "2026-11-29T18:00:00Z");
    CHECK(rows[0].policy == json::parse(R"({"egress": ["a.test"], "mcp": {"wiki": ["read"]}})"));
}

TEST_CASE("list rows: one per ID with status, age and image") {
    auto meta = [](const std::string& id, const std::string& created) {
        return json{{"labels", {{"osf.sandbox.id", id}}}, {"creationTimestamp", created}};
    };
    const json items = json::array({
        json{{"kind", "SandboxClaim"},
             {"metadata", meta("bbbbbbbbbbbb", "2026-11-29T18:00:00Z")},
             {"status",
              {{"conditions", json::array({json{{"type", "Ready"}, {"status", "True"}}})}}}},
        json{{"kind", "SandboxTemplate"},
             {"metadata", meta("bbbbbbbbbbbb", "2026-11-29T18:00:00Z")},
             {"spec",
              {{"podTemplate",
                {{"spec", {{"containers", json::array({json{{"image", "node:24"}}})}}}}}}}},
        json{{"kind", "Pod"}, {"metadata", meta("aaaaaaaaaaaa", "2026-11-29T17:00:00Z")}},
        json{{"kind", "SandboxClaim"},
             {"metadata", meta("cccccccccccc", "2026-11-29T18:59:30Z")},
             {"status",
              {{"conditions",
                json::array({json{
                    {"type", "Ready"}, {"status", "False"}, {"reason", "SandboxNotReady"}}})}}}},
        json{{"kind", "SandboxTemplate"},
             {"metadata", {{"labels", {{"osf.snapshot.of", "bbbbbbbbbbbb"}}}}}},
    });
    const auto now =
        std::chrono::system_clock::time_point(std::chrono::seconds(1795978800)); // 19:00:00Z
    const auto rows = sandbox_rows(items, now);
    REQUIRE(rows.size() == 3);
    CHECK(rows[0].id == "aaaaaaaaaaaa");
    CHECK(rows[0].status == "Starting");
    CHECK(rows[0].image == "-");
    CHECK(rows[0].age_seconds == 7200);
    CHECK(rows[1].id == "bbbbbbbbbbbb");
    CHECK(rows[1].status == "Ready");
    CHECK(rows[1].image == "node:24");
    CHECK(rows[2].status == "Starting"); // SandboxNotReady
    CHECK(rows[2].age_seconds == 30);
    // agent-sandbox's reasons as list shows them.
    CHECK(status_word("DependenciesNotReady") == "Starting");
    CHECK(status_word("") == "Starting");
    CHECK(status_word("PodFailed") == "Failed");
    CHECK(status_word("PodSucceeded") == "Exited");
    CHECK(status_word("ReconcilerError") == "Error");
    CHECK(status_word("SandboxSuspended") == "Suspended");
    CHECK(status_word("SandboxExpired") == "Expired");
    CHECK(status_word("SomethingNew") == "SomethingNew");
    // As kubectl prints ages (HumanDuration): two units while the larger is small.
    const std::vector<std::pair<long long, std::string>> ages = {
        {-3, "0s"},        {30, "30s"},         {119, "119s"},         {120, "2m"},
        {125, "2m5s"},     {599, "9m59s"},      {600, "10m"},          {7200, "120m"},
        {10740, "179m"},   {10800, "3h"},       {11100, "3h5m"},       {28799, "7h59m"},
        {28800, "8h"},     {47 * 3600, "47h"},  {48 * 3600, "2d"},     {50 * 3600, "2d2h"},
        {8 * 86400, "8d"}, {730 * 86400, "2y"}, {731 * 86400, "2y1d"}, {8 * 365 * 86400, "8y"}};
    for (const auto& [seconds, text] : ages) {
        INFO(seconds);
        CHECK(format_age(seconds) == text);
    }
    CHECK_FALSE(parse_timestamp("yesterday"));
}

TEST_CASE("list rows: a claim names its image; templates are needed only for claims that do not") {
    auto claim = [](const std::string& id, const std::string& image) {
        json meta = {{"labels", {{"osf.sandbox.id", id}}},
                     {"creationTimestamp", "2026-11-29T18:00:00Z"}};
        if (!image.empty()) meta["annotations"] = {{"osf.sandbox.image", image}};
        return json{{"kind", "SandboxClaim"}, {"metadata", meta}};
    };
    SandboxRowsBuilder with_images;
    with_images.add(claim("aaaaaaaaaaaa", "python:3.12"));
    with_images.add(claim("bbbbbbbbbbbb", "node:24"));
    CHECK_FALSE(with_images.needs_templates());
    const auto now = std::chrono::system_clock::time_point(std::chrono::seconds(1795978800));
    const auto rows = with_images.rows(now);
    REQUIRE(rows.size() == 2);
    CHECK(rows[0].image == "python:3.12");
    CHECK(rows[1].image == "node:24");

    // A claim made before claims carried the annotation: its template is read.
    SandboxRowsBuilder older;
    older.add(claim("aaaaaaaaaaaa", "python:3.12"));
    older.add(claim("cccccccccccc", ""));
    CHECK(older.needs_templates());
    older.add(json{{"kind", "SandboxTemplate"},
                   {"metadata", {{"labels", {{"osf.sandbox.id", "cccccccccccc"}}}}},
                   {"spec",
                    {{"podTemplate",
                      {{"spec", {{"containers", json::array({json{{"image", "ruby:3"}}})}}}}}}}});
    CHECK_FALSE(older.needs_templates());
    CHECK(older.rows(now)[1].image == "ruby:3");
}
