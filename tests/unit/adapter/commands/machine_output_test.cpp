#include "commands/command_errors.hpp"
#include "commands/machine_output.hpp"
#include "request_fixture.hpp"

#include <catch2/catch.hpp>

using namespace osf::commands;
using nlohmann::json;

TEST_CASE("create -o json: the contract's fields, the names the backend gives") {
    osf::sandbox::SandboxRequest request;
    request.id = "0123456789ab";
    request.spec.template_name = "node:24-alpine";
    request.spec.labels = {{"run", "r1"}};
    request.lifetime.created = osf::sandbox::WallTime(std::chrono::seconds(1796625000));
    request.lifetime.expires = request.lifetime.created + std::chrono::hours(8);
    const json out = created_json(request, {{"claim", "osf-sandbox-0123456789ab"}});
    CHECK(out == json{{"id", "0123456789ab"},
                      {"template", "node:24-alpine"},
                      {"created", "2026-12-07T06:30:00Z"},
                      {"expires", "2026-12-07T14:30:00Z"},
                      {"labels", {{"run", "r1"}}},
                      {"names", {{"claim", "osf-sandbox-0123456789ab"}}}});
    CHECK(created_json(request, nullptr)["names"] == json::object());
}

TEST_CASE("snapshot -o json and progress lines") {
    CHECK(snapshot_json("0123456789ab", "t1") == json{{"id", "0123456789ab"}, {"template", "t1"}});
    CHECK(removal_json("0123456789ab", "expired") ==
          json{{"id", "0123456789ab"}, {"reason", "expired"}});
    CHECK(progress_line("egress proxy \"ready\"") ==
          R"({"message":"egress proxy \"ready\"","type":"progress"})");
    // Bytes that are not UTF-8 do not fail the command.
    CHECK(json::parse(progress_line("bad \xff byte"))["message"] == "bad \xEF\xBF\xBD byte");
}

TEST_CASE("-o and --progress take their words only") {
    CHECK_FALSE(wants_json("", "create"));
    CHECK_FALSE(wants_json("id", "create"));
    CHECK(wants_json("json", "create"));
    CHECK_THROWS_AS(wants_json("yaml", "create"), UsageError);
    CHECK_FALSE(wants_json_progress(""));
    CHECK_FALSE(wants_json_progress("text"));
    CHECK(wants_json_progress("json"));
    CHECK_THROWS_AS(wants_json_progress("xml"), UsageError);
}
