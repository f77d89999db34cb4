#include "hosts/host_aliases.hpp"

#include <catch2/catch.hpp>

using boost::asio::ip::make_address;
using osf::hosts::parse_host_aliases;

TEST_CASE("parse_host_aliases reads host=ip lists", "[aliases]") {
    auto r = parse_host_aliases(" upstream.test = 127.0.0.1 ,B.Example.=::1,\tc.test=[fd00::2]\n");
    REQUIRE(r.error.empty());
    REQUIRE(r.aliases.size() == 3);
    CHECK(r.aliases.at("upstream.test") == make_address("127.0.0.1"));
    CHECK(r.aliases.at("b.example") == make_address("::1"));
    CHECK(r.aliases.at("c.test") == make_address("fd00::2"));
}

TEST_CASE("parse_host_aliases accepts empty text and stray commas", "[aliases]") {
    CHECK(parse_host_aliases("").aliases.empty());
    CHECK(parse_host_aliases("").error.empty());
    auto r = parse_host_aliases(",a.test=1.2.3.4,,");
    CHECK(r.error.empty());
    CHECK(r.aliases.size() == 1);
    auto same = parse_host_aliases("a.test=1.2.3.4,A.test=1.2.3.4");
    CHECK(same.error.empty());
    CHECK(same.aliases.size() == 1);
}

TEST_CASE("parse_host_aliases names the bad entry", "[aliases]") {
    struct Case {
        std::string text;
        std::string message;
    };
    const std::vector<Case> cases = {
        {"a.test=1.2.3.4,b.test", "bad entry \"b.test\": expected host=ip"},
        {"a.test=1.2.3.4, b_c.test=1.2.3.4",
         "bad entry \"b_c.test=1.2.3.4\": not a valid host name"},
        {"=1.2.3.4", "bad entry \"=1.2.3.4\": not a valid host name"},
        {"a.test=", "bad entry \"a.test=\": not an IP address"},
        {"a.test=example.com", "bad entry \"a.test=example.com\": not an IP address"},
        {"a.test=1.2.3", "bad entry \"a.test=1.2.3\": not an IP address"},
        {"a.test=fe80::1%eth0", "bad entry \"a.test=fe80::1%eth0\": not an IP address"},
        {"1.2.3.4=5.6.7.8",
         "bad entry \"1.2.3.4=5.6.7.8\": the host must be a name, not an address"},
        {"a.test=1.1.1.1,a.test=2.2.2.2",
         "bad entry \"a.test=2.2.2.2\": the host already has a different address"},
    };
    for (const auto& c : cases) {
        INFO(c.text);
        auto r = parse_host_aliases(c.text);
        CHECK(r.aliases.empty());
        CHECK(r.error == "OSF_SANDBOX_HOST_ALIASES: " + c.message);
    }
}
