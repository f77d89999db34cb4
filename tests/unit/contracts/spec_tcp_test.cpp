// The spec's `tcp` field (contracts/src/spec_tcp.cpp): what valid entries
// become, and the one-line message each kind of mistake gets.
#include "osf/spec.hpp"
#include "spec_test_support.hpp"

#include <catch2/catch.hpp>

using spec_test::errors_of;
using spec_test::spec_with;
using spec_test::valid_spec;

TEST_CASE("tcp entries become destinations, hosts normalised as egress hosts", "[spec][tcp]") {
    const auto spec = valid_spec(
        spec_with(R"("tcp": ["GitHub.com.:22", "*.db.example.com:5432", "192.0.2.10:6379"])"));
    REQUIRE(spec.tcp.size() == 3);
    CHECK(spec.tcp[0].host == "github.com");
    CHECK(spec.tcp[0].port == 22);
    CHECK(spec.tcp[1].host == "*.db.example.com");
    CHECK(spec.tcp[1].wildcard());
    CHECK_FALSE(spec.tcp[0].wildcard());
    CHECK(spec.tcp[2].host == "192.0.2.10");
    CHECK(spec.tcp[2].port == 6379);
    CHECK(valid_spec(spec_with(R"("tcp": [])")).tcp.empty());
}

TEST_CASE("each kind of bad tcp entry gets its own message", "[spec][tcp]") {
    struct Case {
        const char* entries;
        const char* error;
    };
    const Case cases[] = {
        {R"("github.com")",
         R"($.tcp[0]: "github.com" has no port: a tcp entry names one, as "github.com:22")"},
        {R"("github.com:")",
         R"($.tcp[0]: "github.com:" has an empty port after ':'; a tcp entry names one, as "github.com:22")"},
        {R"("github.com:0")", R"($.tcp[0]: "github.com:0" has port "0", outside 1-65535)"},
        {R"("github.com:65536")",
         R"($.tcp[0]: "github.com:65536" has port "65536", outside 1-65535)"},
        {R"("github.com:022")",
         R"($.tcp[0]: "github.com:022" has a port with a leading zero; write it without one)"},
        {R"("ssh://github.com:22")",
         R"($.tcp[0]: "ssh://github.com:22" is not host:port: write the host and port alone, as "github.com:22")"},
        {R"("git@github.com:22")",
         R"($.tcp[0]: "git@github.com:22" is not host:port: write the host and port alone, as "github.com:22")"},
        {R"("[::1]:22")",
         R"($.tcp[0]: "[::1]:22" is an IPv6 address, which tcp does not support: name the host)"},
        {R"("a:1:2")", R"($.tcp[0]: "a:1:2" has more than one ':'; write "host:port")"},
        {R"("")", R"($.tcp[0]: is empty: write a host and a port, as "github.com:22")"},
        {R"(22)", R"($.tcp[0]: must be a string "host:port", as "github.com:22"; got a number)"},
        {R"("x.com:22", "x.com:22")",
         R"($.tcp[1]: "x.com:22" is listed twice (first at $.tcp[0]))"},
    };
    for (const auto& c : cases) {
        INFO(c.entries);
        CHECK(errors_of(spec_with(std::string(R"("tcp": [)") + c.entries + "]")) ==
              std::vector<std::string>{c.error});
    }
    const auto wildcard = errors_of(spec_with(R"("tcp": ["api.*.example.com:22"])"));
    REQUIRE(wildcard.size() == 1);
    CHECK(wildcard[0].starts_with("$.tcp[0]: \"api.*.example.com:22\" "));
    CHECK(
        errors_of(spec_with(R"("tcp": "github.com:22")")) ==
        std::vector<std::string>{
            R"($.tcp: must be an array of "host:port" destinations, as ["github.com:22"]; got a string)"});
}

TEST_CASE("a tcp list over 256 entries is refused with the limit", "[spec][tcp]") {
    std::string entries;
    for (int i = 1; i <= 257; ++i)
        entries += (entries.empty() ? "" : ",") + ("\"h" + std::to_string(i) + ".example.com:22\"");
    const auto errors = errors_of(spec_with("\"tcp\": [" + entries + "]"));
    CHECK(errors == std::vector<std::string>{"$.tcp: has 257 entries; at most 256 are allowed"});
}
