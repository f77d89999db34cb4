#include "request_fixture.hpp"
#include "sandbox/lifetime.hpp"
#include "sandbox/sandbox_list.hpp"
#include "sandbox/settings.hpp"

#include <catch2/catch.hpp>
#include <map>

using namespace osf::sandbox;
using namespace std::chrono_literals;

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
    CHECK(rows_json({row})[0]["policy"].is_null()); // no spec read
    SandboxRow with_policy = row;
    with_policy.policy = nlohmann::json::parse(R"({"egress":["a.test"],"mcp":{"wiki":["read"]}})");
    with_policy.labels = {{"run", "r1"}};
    CHECK(rows_json({with_policy})[0]["policy"] == with_policy.policy);
    CHECK(rows_json({with_policy})[0]["labels"] == nlohmann::json{{"run", "r1"}});
    CHECK(rows_yaml({row, with_policy}) ==
          "- ageSeconds: 30\n"
          "  created: \"2026-11-29T18:59:30Z\"\n"
          "  expires: null\n"
          "  id: \"0123456789ab\"\n"
          "  image: \"node:24-alpine\"\n"
          "  labels: {}\n"
          "  policy: null\n"
          "  status: \"SandboxNotReady\"\n"
          "- ageSeconds: 30\n"
          "  created: \"2026-11-29T18:59:30Z\"\n"
          "  expires: null\n"
          "  id: \"0123456789ab\"\n"
          "  image: \"node:24-alpine\"\n"
          "  labels: {\"run\":\"r1\"}\n"
          "  policy: {\"egress\":[\"a.test\"],\"mcp\":{\"wiki\":[\"read\"]}}\n"
          "  status: \"SandboxNotReady\"\n");
    CHECK(rows_yaml({}) == "[]\n");
}
