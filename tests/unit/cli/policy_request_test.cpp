// egress-proxy policy: the POST /policy body, the admin address it connects to
// (a wildcard listener on loopback) and the exit code of each answer.
#include "cli/policy_request.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using osf::cli::admin_endpoint;
using osf::cli::policy_body;
using osf::cli::policy_exit_code;

TEST_CASE("the body carries the spec text unchanged and who asks", "[cli]") {
    const std::string spec = "{\"egress\": [\"a.test\"],\n \"note\": \"\\\"quoted\\\"\"}\n";
    const auto body = nlohmann::json::parse(policy_body(spec, "ana@laptop"));
    CHECK(body == nlohmann::json{{"spec", spec}, {"by", "ana@laptop"}});
}

TEST_CASE("a wildcard admin listener is reached on loopback", "[cli]") {
    auto at = admin_endpoint("0.0.0.0:9090");
    REQUIRE(at);
    CHECK(at->host == "127.0.0.1");
    CHECK(at->port == 9090);
    at = admin_endpoint("[::]:9090");
    REQUIRE(at);
    CHECK(at->host == "::1");
    at = admin_endpoint("127.0.0.1:41234");
    REQUIRE(at);
    CHECK((at->host == "127.0.0.1" && at->port == 41234));
    at = admin_endpoint("[::1]:8");
    REQUIRE(at);
    CHECK((at->host == "::1" && at->port == 8));
    at = admin_endpoint("10.244.0.7:9090"); // the pod's own address stays
    REQUIRE(at);
    CHECK(at->host == "10.244.0.7");
}

TEST_CASE("a Unix admin socket is its absolute path", "[cli]") {
    const auto at = admin_endpoint("unix:/var/lib/osf/sandboxes/abc/admin.sock");
    REQUIRE(at);
    CHECK(at->unix_path == "/var/lib/osf/sandboxes/abc/admin.sock");
    CHECK(at->host.empty());
    CHECK_FALSE(admin_endpoint("unix:"));
    CHECK_FALSE(admin_endpoint("unix:admin.sock"));
}

TEST_CASE("an admin address that is not ADDR:PORT is refused", "[cli]") {
    for (const char* bad : {"", "9090", ":9090", "127.0.0.1:", "127.0.0.1:0", "127.0.0.1:65536",
                            "127.0.0.1:90x", "::1:9090", "127.0.0.1:-1"})
        CHECK_FALSE(admin_endpoint(bad));
}

TEST_CASE("only 200 is applied; 400 and 409 are the input's fault", "[cli]") {
    CHECK(policy_exit_code(200) == 0);
    CHECK(policy_exit_code(400) == 2);
    CHECK(policy_exit_code(409) == 2);
    CHECK(policy_exit_code(401) == 1);
    CHECK(policy_exit_code(500) == 1);
    CHECK(policy_exit_code(0) == 1);
}
