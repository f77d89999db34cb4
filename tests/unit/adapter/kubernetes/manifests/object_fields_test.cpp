#include "kubernetes/manifests/gc_plan.hpp"
#include "kubernetes/manifests/object_columns.hpp"
#include "kubernetes/manifests/sandbox_rows.hpp"

#include <catch2/catch.hpp>

using nlohmann::json;
using namespace osf::kubernetes::manifests;

TEST_CASE("object columns: the jsonpath kubectl prints them with") {
    const std::string path = object_columns_jsonpath();
    CHECK(path.rfind("{range .items[*]}{.kind}{\"\\t\"}{.metadata.name}{\"\\t\"}"
                     "{.metadata.labels.osf\\.sandbox\\.id}{\"\\t\"}",
                     0) == 0);
    CHECK(path.find("{.status.conditions[?(@.type==\"Ready\")].reason}") != std::string::npos);
    CHECK(path.find("{.metadata.annotations.osf\\.sandbox\\.suspended-at}") != std::string::npos);
    CHECK(path.size() > 40);
    CHECK(path.find("containers[0].image}{\"\\t\"}") != std::string::npos);
    CHECK(path.substr(path.size() - 29) == "{.metadata.labels}{\"\\n\"}{end}");
}

TEST_CASE("object columns: read back into what list and gc decide on") {
    // As kubectl prints them: kind, name, id, role, created, shutdownTime, suspended-at,
    // sandbox name, Ready status, Ready reason, phase, reason, image, every label (JSON).
    const std::string text =
        "SandboxClaim\tosf-sandbox-aaaaaaaaaaaa\taaaaaaaaaaaa\t\t2026-11-29T18:00:00Z\t"
        "2026-11-29T20:00:00Z\t\tosf-sandbox-aaaaaaaaaaaa\tTrue\tDependenciesReady\t\t\t\t"
        "{\"osf.sandbox.id\":\"aaaaaaaaaaaa\",\"run\":\"r1\"}\n"
        "SandboxTemplate\tosf-sandbox-aaaaaaaaaaaa\taaaaaaaaaaaa\t\t2026-11-29T18:00:01Z\t\t\t\t\t"
        "\t\t\tnode:24-alpine\t\n"
        "SandboxClaim\tosf-sandbox-bbbbbbbbbbbb\tbbbbbbbbbbbb\t\t2026-11-29T18:10:00Z\t"
        "2026-11-29T18:30:00Z\t2026-11-29T18:20:00Z\t\tFalse\tSandboxSuspended\t\t\t\t\n"
        "Pod\tosf-sandbox-cccccccccccc-egress\tcccccccccccc\tegress\t2026-11-29T18:00:00Z\t\t\t\t"
        "\t\tFailed\tDeadlineExceeded\t\t\n"
        "a line of another shape\n";
    const json items = objects_from_columns(text);
    REQUIRE(items.size() == 4);
    CHECK(items[0]["status"]["conditions"][0] ==
          json{{"type", "Ready"}, {"status", "True"}, {"reason", "DependenciesReady"}});
    CHECK_FALSE((items[0].contains("spec") && items[0]["spec"].contains("podTemplate")));
    CHECK(items[1]["spec"]["podTemplate"]["spec"]["containers"][0]["image"] == "node:24-alpine");

    const auto now = std::chrono::system_clock::time_point(std::chrono::seconds(1795978800));
    const auto rows = sandbox_rows(items, now); // 2026-11-29T19:00:00Z
    REQUIRE(rows.size() == 3);
    CHECK(rows[0].id == "aaaaaaaaaaaa");
    CHECK(rows[0].status == "Ready");
    CHECK(rows[0].image == "node:24-alpine");
    CHECK(rows[0].expires == "2026-11-29T20:00:00Z");
    CHECK(rows[0].labels == std::map<std::string, std::string>{{"run", "r1"}}); // the user's only
    CHECK(rows[1].id == "cccccccccccc");                                        // oldest first
    CHECK(rows[2].id == "bbbbbbbbbbbb");
    CHECK(rows[2].status == "Suspended");

    const auto removals = gc_plan(items, now, std::chrono::minutes(15));
    REQUIRE(removals.size() == 3);
    CHECK(removals[0].id == "aaaaaaaaaaaa"); // its claim but no SandboxWarmPool listed here
    CHECK(removals[0].reason.rfind("create did not finish", 0) == 0);
    CHECK(removals[1].id == "bbbbbbbbbbbb");
    CHECK(removals[1].reason == "expired at 2026-11-29T18:30:00Z");
    CHECK(removals[2].id == "cccccccccccc");
    CHECK(removals[2].reason ==
          "egress pod osf-sandbox-cccccccccccc-egress Failed (DeadlineExceeded)");
}
