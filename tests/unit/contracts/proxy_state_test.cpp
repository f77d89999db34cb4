#include "osf/proxy_state.hpp"

#include <catch2/catch.hpp>

namespace ps = osf::proxy_state;

TEST_CASE("state files are named in the proxy's state directory") {
    CHECK(ps::path_in("/var/lib/egress-proxy", ps::ca_certificate) ==
          "/var/lib/egress-proxy/ca.crt");
    CHECK(ps::path_in("state/", ps::egress_log) == "state/egress.jsonl");
    CHECK(ps::path_in("s", ps::log_key) == "s/log-key.pub");
    CHECK(ps::path_in("s", ps::listen) == "s/listen.json");
}

TEST_CASE("listen.json is read back as written") {
    const auto text = ps::listen_json({"[::1]:8080", "127.0.0.1:9090", 4242});
    CHECK(text == "{\"proxy\":\"[::1]:8080\",\"admin\":\"127.0.0.1:9090\",\"pid\":4242}\n");
    const auto read = ps::parse_listen(text);
    REQUIRE(read);
    CHECK(read->proxy == "[::1]:8080");
    CHECK(read->admin == "127.0.0.1:9090");
    CHECK(read->pid == 4242);
}

TEST_CASE("a listen.json without a proxy address names no running proxy") {
    CHECK_FALSE(ps::parse_listen(""));
    CHECK_FALSE(ps::parse_listen("{\"proxy\":"));
    CHECK_FALSE(ps::parse_listen("[]"));
    CHECK_FALSE(ps::parse_listen("{\"proxy\":8080,\"pid\":1}"));
    const auto partial = ps::parse_listen("{\"proxy\":\"127.0.0.1:1\",\"pid\":\"12\"}");
    REQUIRE(partial);
    CHECK(partial->admin.empty());
    CHECK(partial->pid == 0);
}
