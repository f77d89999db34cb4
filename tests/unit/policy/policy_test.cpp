#include "policy/policy.hpp"

#include <catch2/catch.hpp>

using Reason = osf::RefusalReason;
using osf::hosts::HostAliases;
using osf::policy::Policy;

namespace {

osf::EgressRule rule(std::string host, std::optional<std::uint16_t> port = std::nullopt) {
    return osf::EgressRule{std::move(host), port};
}

osf::McpServer mcp(std::string name, std::string host, std::uint16_t port, std::string path,
                   std::string scheme = "https") {
    osf::McpServer server;
    server.name = std::move(name);
    server.scheme = std::move(scheme);
    server.host = std::move(host);
    server.port = port;
    server.path = std::move(path);
    server.url = server.scheme + "://" + server.host + ":" + std::to_string(port) + server.path;
    return server;
}

osf::Spec sample_spec() {
    osf::Spec spec;
    spec.template_name = "node:24-alpine";
    spec.egress = {
        rule("api.linear.app"),
        rule("registry.npmjs.org"),
        rule("*.githubusercontent.com"),
        rule("pinned.example.com", 8443),
        rule("upstream.test"),
        rule("10.1.2.3"),
        rule("127.0.0.1"),
        rule("2001:db8::5"),
        rule("shared.example.com"),
    };
    spec.mcp = {
        mcp("wiki", "wiki.example.com", 443, "/mcp"),
        mcp("wiki-admin", "wiki.example.com", 443, "/mcp/admin"),
        mcp("tools", "shared.example.com", 443, "/tools/mcp"),
        mcp("plain", "mcp.internal", 8080, "/", "http"),
    };
    return spec;
}

HostAliases sample_aliases() {
    return {{"upstream.test", boost::asio::ip::make_address("127.0.0.1")},
            {"metadata.test", boost::asio::ip::make_address("169.254.169.254")}};
}

} // namespace

TEST_CASE("check_destination decides on host and port before DNS", "[policy]") {
    Policy policy(sample_spec(), sample_aliases());
    struct Case {
        std::string host;
        std::uint16_t port;
        std::optional<Reason> refused_by; // unset: allowed
    };
    const std::vector<Case> cases = {
        {"api.linear.app", 443, {}},
        {"api.linear.app", 80, {}},
        {"API.Linear.App.", 443, {}},
        {"api.linear.app..", 443, Reason::bad_host},
        {"linear.app", 443, Reason::host_not_allowed},
        {"evil-api.linear.app", 443, Reason::host_not_allowed},
        {"api.linear.app.evil.com", 443, Reason::host_not_allowed},
        {"xapi.linear.app", 443, Reason::host_not_allowed},
        // wildcards: any depth below, never the parent itself
        {"raw.githubusercontent.com", 443, {}},
        {"a.b.githubusercontent.com", 443, {}},
        {"RAW.GitHubUserContent.com.", 443, {}},
        {"githubusercontent.com", 443, Reason::host_not_allowed},
        {"evilgithubusercontent.com", 443, Reason::host_not_allowed},
        // an entry with a port allows that port only
        {"pinned.example.com", 8443, {}},
        {"pinned.example.com", 443, Reason::port_not_allowed},
        {"pinned.example.com", 80, Reason::port_not_allowed},
        // MCP servers: their host and port only
        {"wiki.example.com", 443, {}},
        {"wiki.example.com", 80, Reason::port_not_allowed},
        {"mcp.internal", 8080, {}},
        {"mcp.internal", 443, Reason::port_not_allowed},
        // IP literals: only those listed, in any spelling
        {"10.1.2.3", 443, {}},
        {"167838211", 443, {}},
        {"012.1.2.3", 443, {}},
        {"0xa.1.2.3", 443, {}},
        {"10.1.515", 443, {}},
        {"10.1.2.4", 443, Reason::host_not_allowed},
        {"127.0.0.1", 443, {}},
        {"127.1", 443, {}},
        {"127.0.0.2", 443, Reason::host_not_allowed},
        {"2001:db8::5", 443, {}},
        {"[2001:DB8:0:0::5]", 443, {}},
        {"2001:db8::6", 443, Reason::host_not_allowed},
        {"::ffff:10.1.2.3", 443, Reason::host_not_allowed},
        // a name aliased to an address does not make the address allowed
        {"169.254.169.254", 80, Reason::host_not_allowed},
        {"metadata.test", 80, Reason::host_not_allowed},
        // punycode is a name like any other
        {"xn--bcher-kva.githubusercontent.com", 443, {}},
        {"xn--bcher-kva.example", 443, Reason::host_not_allowed},
        // bad hosts
        {"", 443, Reason::bad_host},
        {"user@api.linear.app", 443, Reason::bad_host},
        {"api.linear.app:443", 443, Reason::bad_host},
        {"api_linear.app", 443, Reason::bad_host},
        {"[fe80::1%eth0]", 443, Reason::bad_host},
        {"b\xc3\xbc"
         "cher.example",
         443, Reason::bad_host},
        {"1.2.3.4.5", 443, Reason::bad_host},
        {"api.linear.app", 0, Reason::port_not_allowed},
    };
    for (const auto& c : cases) {
        INFO("destination = " << c.host << " port " << c.port);
        auto decision = policy.check_destination(c.host, c.port);
        CHECK(decision.allowed == !c.refused_by);
        CHECK(decision.refused_by == c.refused_by);
        CHECK(decision.detail.empty() == decision.allowed);
    }
}

TEST_CASE("a wildcard entry with a port restricts every subdomain to it", "[policy]") {
    osf::Spec spec;
    spec.egress = {rule("*.corp.example", 8443)};
    Policy policy(spec, {});
    CHECK(policy.check_destination("a.corp.example", 8443).allowed);
    CHECK(policy.check_destination("a.corp.example", 443).refused_by == Reason::port_not_allowed);
    CHECK(policy.check_destination("corp.example", 8443).refused_by == Reason::host_not_allowed);
}

TEST_CASE("the same host may be listed with several ports", "[policy]") {
    osf::Spec spec;
    spec.egress = {rule("multi.example", 443), rule("multi.example", 8443)};
    Policy policy(spec, {});
    CHECK(policy.check_destination("multi.example", 443).allowed);
    CHECK(policy.check_destination("multi.example", 8443).allowed);
    CHECK(policy.check_destination("multi.example", 80).refused_by == Reason::port_not_allowed);
}

TEST_CASE("an empty egress list refuses everything", "[policy]") {
    Policy policy(osf::Spec{}, {});
    auto d = policy.check_destination("example.com", 443);
    CHECK_FALSE(d.allowed);
    CHECK(d.refused_by == Reason::host_not_allowed);
    CHECK(d.detail == "example.com is not in the egress list");
}

TEST_CASE("check_address refuses internal addresses unless an alias names them", "[policy]") {
    // (private ones unless the spec names the host itself)
    Policy policy(sample_spec(), sample_aliases());
    struct Case {
        std::string host;
        std::string address;
        bool allowed;
        std::string detail;
    };
    const std::vector<Case> cases = {
        {"api.linear.app", "140.82.112.3", true, ""},
        {"api.linear.app", "10.0.0.7", true, ""},
        {"api.linear.app", "2606:4700::1111", true, ""},
        {"upstream.test", "127.0.0.1", true, ""}, // the alias names it exactly
        {"UPSTREAM.test.", "127.0.0.1", true, ""},
        {"upstream.test", "127.0.0.2", false, "upstream.test resolves to 127.0.0.2 (loopback)"},
        {"upstream.test", "::1", false, "upstream.test resolves to ::1 (loopback)"},
        {"upstream.test", "::ffff:127.0.0.1", false,
         "upstream.test resolves to ::ffff:127.0.0.1 (loopback)"},
        {"metadata.test", "169.254.169.254", true, ""},
        {"api.linear.app", "127.0.0.1", false, "api.linear.app resolves to 127.0.0.1 (loopback)"},
        {"api.linear.app", "169.254.169.254", false,
         "api.linear.app resolves to 169.254.169.254 (link-local)"},
        {"api.linear.app", "fd00:ec2::254", false,
         "api.linear.app resolves to fd00:ec2::254 (link-local)"},
        {"api.linear.app", "100.100.100.200", false,
         "api.linear.app resolves to 100.100.100.200 (link-local)"},
        {"api.linear.app", "0.0.0.0", false, "api.linear.app resolves to 0.0.0.0 (unspecified)"},
        {"api.linear.app", "::", false, "api.linear.app resolves to :: (unspecified)"},
        {"api.linear.app", "239.1.1.1", false, "api.linear.app resolves to 239.1.1.1 (multicast)"},
        {"api.linear.app", "255.255.255.255", false,
         "api.linear.app resolves to 255.255.255.255 (multicast)"},
        {"api.linear.app", "fe80::1", false, "api.linear.app resolves to fe80::1 (link-local)"},
        {"api.linear.app", "64:ff9b::7f00:1", false,
         "api.linear.app resolves to 64:ff9b::7f00:1 (loopback)"},
        {"api.linear.app", "2002:a9fe:a9fe::", false,
         "api.linear.app resolves to 2002:a9fe:a9fe:: (link-local)"},
        {"api.linear.app", "2001:0:4136:e378:8000:63bf:80ff:fffe", false,
         "api.linear.app resolves to 2001:0:4136:e378:8000:63bf:80ff:fffe (loopback)"},
        // IP literals have no alias, so a listed loopback literal is still refused here
        {"127.0.0.1", "127.0.0.1", false, "127.0.0.1 resolves to 127.0.0.1 (loopback)"},
        // Private addresses: for hosts the spec names, never through a wildcard alone.
        {"api.linear.app", "192.168.1.9", true, ""},
        {"api.linear.app", "fd12::1", true, ""},
        {"10.1.2.3", "10.1.2.3", true, ""},       // a literal entry
        {"mcp.internal", "10.96.0.10", true, ""}, // an MCP server's host
        {"raw.githubusercontent.com", "140.82.112.3", true, ""},
        {"raw.githubusercontent.com", "10.96.0.1", false,
         "raw.githubusercontent.com resolves to 10.96.0.1 (private): only a host the spec "
         "names, not one matched by a wildcard, may reach it"},
        {"raw.githubusercontent.com", "100.64.1.1", false,
         "raw.githubusercontent.com resolves to 100.64.1.1 (private): only a host the spec "
         "names, not one matched by a wildcard, may reach it"},
        {"raw.githubusercontent.com", "fd00::1", false,
         "raw.githubusercontent.com resolves to fd00::1 (private): only a host the spec names, "
         "not one matched by a wildcard, may reach it"},
        {"raw.githubusercontent.com", "::ffff:172.20.0.5", false,
         "raw.githubusercontent.com resolves to ::ffff:172.20.0.5 (private): only a host the "
         "spec names, not one matched by a wildcard, may reach it"},
        {"not-listed.example", "10.0.0.1", false,
         "not-listed.example resolves to 10.0.0.1 (private): only a host the spec names, not "
         "one matched by a wildcard, may reach it"},
    };
    for (const auto& c : cases) {
        INFO("host = " << c.host << ", address = " << c.address);
        auto d = policy.check_address(c.host, boost::asio::ip::make_address(c.address));
        CHECK(d.allowed == c.allowed);
        CHECK(d.refused_by ==
              (c.allowed ? std::nullopt : std::optional(Reason::destination_address)));
        CHECK(d.detail == c.detail);
    }
}

TEST_CASE("alias_for looks up canonical names", "[policy]") {
    Policy policy(sample_spec(), sample_aliases());
    CHECK(policy.alias_for("upstream.test") == boost::asio::ip::make_address("127.0.0.1"));
    CHECK(policy.alias_for("Upstream.Test.") == boost::asio::ip::make_address("127.0.0.1"));
    CHECK_FALSE(policy.alias_for("api.linear.app"));
    CHECK_FALSE(policy.alias_for("upstream.test.."));
}

TEST_CASE("hand-built alias maps are canonicalised too", "[policy]") {
    Policy policy(osf::Spec{}, {{"Upstream.TEST.", boost::asio::ip::make_address("127.0.0.1")}});
    CHECK(policy.alias_for("upstream.test") == boost::asio::ip::make_address("127.0.0.1"));
    CHECK(
        policy.check_address("upstream.test", boost::asio::ip::make_address("127.0.0.1")).allowed);
}

TEST_CASE("secrets are substituted only where egress rules allow host and port", "[policy]") {
    Policy policy(sample_spec(), {});
    CHECK(policy.substitutes_secrets("api.linear.app", 443));
    CHECK(policy.substitutes_secrets("raw.githubusercontent.com", 443));
    CHECK(policy.substitutes_secrets("pinned.example.com", 8443));
    CHECK_FALSE(policy.substitutes_secrets("pinned.example.com", 443));
    CHECK_FALSE(policy.substitutes_secrets("wiki.example.com", 443)); // MCP only
    CHECK_FALSE(policy.substitutes_secrets("mcp.internal", 8080));
    CHECK_FALSE(policy.substitutes_secrets("githubusercontent.com", 443));
    CHECK_FALSE(policy.substitutes_secrets("example.org", 443));
    CHECK_FALSE(policy.substitutes_secrets("", 443));
}

TEST_CASE("mcp_server_for recognises MCP traffic", "[policy]") {
    Policy policy(sample_spec(), {});
    struct Case {
        std::string host;
        std::uint16_t port;
        std::string path;
        const char* server; // nullptr: not MCP traffic
    };
    const std::vector<Case> cases = {
        // MCP-only host: every path, the longest matching prefix first
        {"wiki.example.com", 443, "/mcp", "wiki"},
        {"wiki.example.com", 443, "/mcp/", "wiki"},
        {"wiki.example.com", 443, "/mcp/x", "wiki"},
        {"wiki.example.com", 443, "/mcp/admin", "wiki-admin"},
        {"wiki.example.com", 443, "/mcp/admin/sub", "wiki-admin"},
        {"wiki.example.com", 443, "/mcp/adminx", "wiki"},
        {"wiki.example.com", 443, "/mcpx", "wiki"},
        {"wiki.example.com", 443, "/", "wiki"},
        {"wiki.example.com", 443, "/other", "wiki"},
        {"WIKI.example.com.", 443, "/mcp", "wiki"},
        // the declared path on another port of the same host: in doubt, MCP (issue 41)
        {"wiki.example.com", 8443, "/mcp", "wiki"},
        {"wiki.example.com", 8443, "/mcp/admin", "wiki-admin"},
        {"wiki.example.com", 8443, "/other", nullptr},
        {"mcp.internal", 8080, "/anything", "plain"},
        // a host also in egress: only the server's path (at a segment boundary)
        {"shared.example.com", 443, "/tools/mcp", "tools"},
        {"shared.example.com", 443, "/tools/mcp/", "tools"},
        {"shared.example.com", 443, "/tools/mcp/sse", "tools"},
        {"shared.example.com", 443, "/tools/mcp?session=1", "tools"},
        {"shared.example.com", 443, "/tools/mcpx", nullptr},
        {"shared.example.com", 443, "/tools", nullptr},
        {"shared.example.com", 443, "/", nullptr},
        {"shared.example.com", 443, "/api/v1", nullptr},
        // spellings an upstream would route to the same endpoint
        {"shared.example.com", 443, "/tools/%6dcp", "tools"},
        {"shared.example.com", 443, "/tools/x/../mcp", "tools"},
        {"shared.example.com", 443, "/tools/./mcp", "tools"},
        {"shared.example.com", 443, "//tools//mcp", "tools"},
        {"shared.example.com", 443, "/Tools/MCP", "tools"},
        {"shared.example.com", 8443, "/tools/mcp", "tools"},
        {"shared.example.com", 80, "/tools/%6Dcp/sse", "tools"},
        // not MCP hosts at all
        {"api.linear.app", 443, "/mcp", nullptr},
        {"", 443, "/mcp", nullptr},
    };
    for (const auto& c : cases) {
        INFO(c.host << ":" << c.port << c.path);
        const osf::McpServer* server = policy.mcp_server_for(c.host, c.port, c.path);
        // One reading of the request says the same as the three questions asked apart.
        const auto reading = policy.read_request(c.host, c.port, c.path);
        CHECK(reading.mcp_server == server);
        CHECK(reading.mcp_endpoint == policy.has_mcp_endpoint(c.host, c.port));
        CHECK(reading.substitutes_secrets == policy.substitutes_secrets(c.host, c.port));
        if (c.server) {
            REQUIRE(server != nullptr);
            CHECK(server->name == c.server);
        } else {
            CHECK(server == nullptr);
        }
    }
}

TEST_CASE("read_request names the server of a request in doubt on an MCP host", "[policy]") {
    Policy policy(sample_spec(), {});
    struct Case {
        std::string host;
        std::uint16_t port;
        std::string path;
        bool mcp_endpoint;
        const char* host_server; // the server a request off its endpoints is read as
    };
    const std::vector<Case> cases = {
        {"shared.example.com", 443, "/api/v1", true, "tools"},
        {"shared.example.com", 8443, "/messages", true, "tools"},
        {"shared.example.com", 443, "/tools/mcp", true, nullptr}, // an endpoint: mcp_server
        {"wiki.example.com", 8443, "/other", true, "wiki"},
        {"mcp.internal", 9000, "/x", true, nullptr}, // its path "/" covers every path: mcp_server
        {"api.linear.app", 443, "/messages", false, nullptr},
        {"other.example.com", 443, "/tools/mcp", false, nullptr},
    };
    for (const auto& c : cases) {
        INFO(c.host << ":" << c.port << c.path);
        const auto reading = policy.read_request(c.host, c.port, c.path);
        CHECK(reading.mcp_endpoint == c.mcp_endpoint);
        if (c.host_server) {
            REQUIRE(reading.host_server != nullptr);
            CHECK(reading.host_server->name == c.host_server);
        } else {
            CHECK(reading.host_server == nullptr);
        }
    }
}

TEST_CASE("a wildcard egress entry makes an MCP host path-matched", "[policy]") {
    osf::Spec spec;
    spec.egress = {rule("*.example.com")};
    spec.mcp = {mcp("wiki", "wiki.example.com", 443, "/mcp")};
    Policy policy(spec, {});
    REQUIRE(policy.mcp_server_for("wiki.example.com", 443, "/mcp/x") != nullptr);
    CHECK(policy.mcp_server_for("wiki.example.com", 443, "/other") == nullptr);
    CHECK(policy.substitutes_secrets("wiki.example.com", 443));
}

TEST_CASE("permitted_names lists every egress and MCP host once", "[policy]") {
    Policy policy(sample_spec(), {});
    const std::vector<std::string> expected = {
        "api.linear.app",     "registry.npmjs.org", "githubusercontent.com",
        "pinned.example.com", "upstream.test",      "10.1.2.3",
        "127.0.0.1",          "2001:db8::5",        "shared.example.com",
        "wiki.example.com",   "mcp.internal",
    };
    CHECK(policy.permitted_names() == expected);
}

TEST_CASE("spec hosts are compared in canonical form", "[policy]") {
    osf::Spec spec;
    spec.egress = {rule("127.1"), rule("[::FFFF:0A01:0203]"), rule("*.Example.COM")};
    Policy policy(spec, {});
    CHECK(policy.check_destination("127.0.0.1", 80).allowed);
    CHECK(policy.check_destination("::ffff:10.1.2.3", 80).allowed);
    CHECK(policy.check_destination("a.example.com", 80).allowed);
    CHECK(policy.permitted_names() ==
          std::vector<std::string>{"127.0.0.1", "::ffff:10.1.2.3", "example.com"});
}

TEST_CASE("tcp destinations: host pattern and exact port, and their private addresses",
          "[policy][tcp]") {
    osf::Spec spec;
    spec.template_name = "debian:12";
    spec.tcp = {osf::TcpDestination{"Git.Example.com.", 22},
                osf::TcpDestination{"*.db.example.com", 5432},
                osf::TcpDestination{"192.0.2.10", 6379}};
    const Policy p(spec, {});
    struct Row {
        const char* host;
        std::uint16_t port;
        bool tcp;
    };
    const Row rows[] = {
        {"git.example.com", 22, true},   {"GIT.example.com.", 22, true},
        {"git.example.com", 23, false},  {"a.db.example.com", 5432, true},
        {"db.example.com", 5432, false}, {"a.db.example.com", 22, false},
        {"192.0.2.10", 6379, true},      {"192.0.2.10", 22, false},
        {"evil.example", 22, false},     {"bad_host", 22, false},
    };
    for (const auto& row : rows) {
        INFO(row.host << ":" << row.port);
        CHECK(p.is_tcp_destination(row.host, row.port) == row.tcp);
        // A tcp entry alone opens nothing for HTTP: CONNECT interception and plain requests.
        CHECK_FALSE(p.check_destination(row.host, row.port).allowed);
    }
    const auto pod = boost::asio::ip::make_address("10.0.0.7");
    // A private address for a host the tcp list names literally, not by a wildcard.
    CHECK(p.check_address("git.example.com", pod).allowed);
    CHECK(p.check_address("a.db.example.com", pod).refused_by == Reason::destination_address);
    // Loopback never, named or not (an alias names the one address allowed).
    CHECK(
        p.check_address("git.example.com", boost::asio::ip::make_address("127.0.0.1")).refused_by ==
        Reason::destination_address);
}
