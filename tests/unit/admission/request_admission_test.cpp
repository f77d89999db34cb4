#include "admission/request_admission.hpp"

#include <catch2/catch.hpp>

using osf::admission::Admission;
using osf::admission::AdmissionPolicy;
using osf::admission::admit;
using osf::admission::RequestFacts;
using osf::admission::Tunnel;
using status = boost::beast::http::status;
using osf::RefusalReason;

namespace {

osf::McpServer mcp_server(std::string name, std::string scheme, std::string host,
                          std::uint16_t port, std::string path) {
    osf::McpServer server;
    server.name = std::move(name);
    server.scheme = std::move(scheme);
    server.host = std::move(host);
    server.port = port;
    server.path = std::move(path);
    server.url = server.scheme + "://" + server.host + ":" + std::to_string(port) + server.path;
    return server;
}

struct Fixture {
    Fixture() : destinations(spec(), {}) {
        mcp_servers["wiki"] = osf::mcp::ServerPolicy{"wiki", {"search"}, 1000};
        mcp_servers["plain"] = osf::mcp::ServerPolicy{"plain", {"search"}, 1000};
    }
    static osf::Spec spec() {
        osf::Spec s;
        s.template_name = "node:24-alpine";
        s.egress = {osf::EgressRule{"api.example.com", std::nullopt},
                    osf::EgressRule{"pinned.example.com", 8443},
                    osf::EgressRule{"2001:db8::5", std::nullopt}};
        s.mcp = {mcp_server("wiki", "https", "wiki.example.com", 443, "/mcp"),
                 mcp_server("plain", "http", "mcp.internal", 8080, "/")};
        return s;
    }
    Admission run(const RequestFacts& facts) const {
        return admit(AdmissionPolicy{destinations, mcp_servers}, facts);
    }
    osf::policy::Policy destinations;
    std::map<std::string, osf::mcp::ServerPolicy, std::less<>> mcp_servers;
};

// A request on the proxy-facing connection, its Host field naming what its URL names.
RequestFacts proxied(std::string_view target, std::string_view host) {
    RequestFacts facts;
    facts.target = target;
    facts.host_fields = host.empty() ? 0 : 1;
    facts.host_field = host;
    return facts;
}

// A request inside a CONNECT tunnel to `host`:443, TLS intercepted.
RequestFacts tunnelled(std::string_view target, std::string_view host, std::string_view header) {
    RequestFacts facts = proxied(target, header);
    facts.tunnel = Tunnel{host, 443, true, {}};
    return facts;
}

RequestFacts with_upgrade(RequestFacts r) {
    r.asks_for_upgrade = true;
    return r;
}

} // namespace

TEST_CASE("every refusal of a request head, with its status, reason and detail", "[admission]") {
    const Fixture f;
    struct Case {
        const char* what;
        RequestFacts facts;
        status expected_status;
        RefusalReason expected_reason;
        std::string_view detail_has;
    };
    auto chunked = [](RequestFacts r) {
        r.chunked = r.transfer_encoding = true;
        return r;
    };
    auto with = [](RequestFacts r, auto change) {
        change(r);
        return r;
    };
    const std::vector<Case> cases = {
        // the target form
        {"origin form on the proxy's port", proxied("/index.html", "api.example.com"),
         status::bad_request, RefusalReason::bad_request, "absolute http:// URL or CONNECT"},
        {"another scheme", proxied("ftp://api.example.com/", "api.example.com"),
         status::bad_request, RefusalReason::bad_request, "absolute http:// URL"},
        {"not a URL", proxied("http//api.example.com/", "api.example.com"), status::bad_request,
         RefusalReason::bad_request, "absolute http:// URL"},
        {"not a host name", proxied("http://bad_host.example.com/", "bad_host.example.com"),
         status::forbidden, RefusalReason::bad_host, "not a valid host name"},
        {"port out of range", proxied("http://api.example.com:65536/", "api.example.com"),
         status::bad_request, RefusalReason::bad_request, "1 to 65535"},
        {"port zero", proxied("http://api.example.com:0/", "api.example.com"), status::bad_request,
         RefusalReason::bad_request, "1 to 65535"},
        {"user information", proxied("http://user:pw@api.example.com/", "api.example.com"),
         status::forbidden, RefusalReason::bad_host, "user information"},
        // the allowlist
        {"host not allowed", proxied("http://elsewhere.example.com/", "elsewhere.example.com"),
         status::forbidden, RefusalReason::host_not_allowed, ""},
        {"port not allowed", proxied("https://pinned.example.com/", "pinned.example.com"),
         status::forbidden, RefusalReason::port_not_allowed, ""},
        // the target itself
        {"fragment", tunnelled("/a#b", "api.example.com", "api.example.com"), status::bad_request,
         RefusalReason::bad_request, "fragment"},
        {"fragment in an absolute URL (not an absolute-URI)",
         proxied("http://api.example.com/a#b", "api.example.com"), status::bad_request,
         RefusalReason::bad_request, "absolute http:// URL"},
        {"ambiguous path on an MCP host",
         proxied("https://wiki.example.com/mcp%2Fx", "wiki.example.com"), status::bad_request,
         RefusalReason::bad_request, "(a host with an MCP endpoint)"},
        {"ambiguous path on an MCP host in a tunnel",
         tunnelled("/x\\mcp", "wiki.example.com", "wiki.example.com"), status::bad_request,
         RefusalReason::bad_request, "(a host with an MCP endpoint)"},
        // framing
        {"transfer-encoding not ending in chunked",
         with(proxied("http://api.example.com/", "api.example.com"),
              [](RequestFacts& r) { r.transfer_encoding = true; }),
         status::bad_request, RefusalReason::bad_request, "does not end in chunked"},
        // Host and SNI
        {"no Host in HTTP/1.1", proxied("http://api.example.com/", ""), status::bad_request,
         RefusalReason::bad_request, "no Host header"},
        {"an empty Host in HTTP/1.1",
         with(proxied("http://api.example.com/", ""), [](RequestFacts& r) { r.host_fields = 1; }),
         status::bad_request, RefusalReason::bad_request, "no Host header"},
        {"Host names another host", proxied("http://api.example.com/", "evil.example.com"),
         status::forbidden, RefusalReason::host_mismatch, "another destination"},
        {"Host names another port", proxied("http://api.example.com/", "api.example.com:81"),
         status::forbidden, RefusalReason::host_mismatch, "another destination"},
        {"Host is not a host", proxied("http://api.example.com/", "api.example.com:x"),
         status::forbidden, RefusalReason::host_mismatch, "another destination"},
        {"Host names another host in a tunnel",
         tunnelled("/", "api.example.com", "evil.example.com"), status::forbidden,
         RefusalReason::host_mismatch, "another destination"},
        {"two Host fields",
         with(proxied("http://api.example.com/", "api.example.com"),
              [](RequestFacts& r) { r.host_fields = 2; }),
         status::bad_request, RefusalReason::bad_request, "more than one Host header"},
        {"SNI names another host",
         with(tunnelled("/", "api.example.com", "api.example.com"),
              [](RequestFacts& r) { r.tunnel->sni_problem = "the TLS server name (SNI) differs"; }),
         status::forbidden, RefusalReason::host_mismatch, "(SNI) differs"},
        // absolute form inside a tunnel
        {"tunnel: not a path", tunnelled("*", "api.example.com", "api.example.com"),
         status::bad_request, RefusalReason::bad_request, "not a path"},
        {"tunnel: another scheme",
         tunnelled("ftp://api.example.com/", "api.example.com", "api.example.com"),
         status::bad_request, RefusalReason::bad_request, "not a path"},
        {"tunnel: another host",
         tunnelled("https://evil.example.com/", "api.example.com", "api.example.com"),
         status::forbidden, RefusalReason::host_mismatch,
         "names evil.example.com, not the tunnel's"},
        {"tunnel: another port",
         tunnelled("http://api.example.com/", "api.example.com", "api.example.com"),
         status::forbidden, RefusalReason::host_mismatch, "not the tunnel's host"},
        {"tunnel: port out of range",
         tunnelled("https://api.example.com:99999/", "api.example.com", "api.example.com"),
         status::bad_request, RefusalReason::bad_request, "1 to 65535"},
        {"tunnel: user information",
         tunnelled("https://u:p@api.example.com/", "api.example.com", "api.example.com"),
         status::forbidden, RefusalReason::bad_host, "user information"},
        // MCP
        {"MCP endpoint asked to upgrade",
         with(proxied("https://wiki.example.com/mcp", "wiki.example.com"),
              [](RequestFacts& r) { r.asks_for_upgrade = true; }),
         status::forbidden, RefusalReason::mcp_upgrade, "not upgraded"},
        {"MCP message over the size limit",
         with(proxied("https://wiki.example.com/mcp", "wiki.example.com"),
              [](RequestFacts& r) { r.content_length = 1001; }),
         status::payload_too_large, RefusalReason::mcp_unreadable, "over the size limit"},
        // secrets
        {"secret placeholder over plain HTTP",
         with(proxied("http://api.example.com/", "api.example.com"),
              [](RequestFacts& r) { r.carries_placeholder = [] { return true; }; }),
         status::forbidden, RefusalReason::secret_cleartext, "only on https://"},
        {"secret placeholder in a plain tunnel",
         with(tunnelled("/", "api.example.com", "api.example.com"),
              [](RequestFacts& r) {
                  r.tunnel->tls = false;
                  r.tunnel->port = 80;
                  r.carries_placeholder = [] { return true; };
              }),
         status::forbidden, RefusalReason::secret_cleartext, "only on https://"},
        // a chunked body changes nothing about the decision
        {"chunked and not allowed",
         chunked(proxied("http://elsewhere.example.com/", "elsewhere.example.com")),
         status::forbidden, RefusalReason::host_not_allowed, ""},
    };
    for (const auto& c : cases) {
        INFO(c.what);
        const auto admission = f.run(c.facts);
        const auto* refusal = admission.refusal();
        REQUIRE(refusal != nullptr);
        CHECK(refusal->status == c.expected_status);
        CHECK(refusal->reason == c.expected_reason);
        CHECK_THAT(refusal->detail, Catch::Contains(std::string(c.detail_has)));
        // A body left unread ends the client connection; otherwise it stays usable.
        CHECK(refusal->close_client ==
              (c.facts.has_body() || c.expected_status == status::payload_too_large));
    }
}

TEST_CASE("a refusal logs what was read of the destination", "[admission]") {
    const Fixture f;
    auto bad = f.run(proxied("http://bad_host.example.com:8080/p?q", "x"));
    CHECK(bad.logged.scheme == "http");
    CHECK(bad.logged.host == "bad_host.example.com");
    CHECK(bad.logged.port == 0);
    CHECK(bad.logged.path == "/p");
    auto mismatch = f.run(proxied("https://API.example.com:8443/a/b?secret=1", "other"));
    CHECK(mismatch.refusal()->reason == RefusalReason::host_mismatch);
    CHECK(mismatch.logged.scheme == "https");
    CHECK(mismatch.logged.host == "api.example.com");
    CHECK(mismatch.logged.port == 8443);
    CHECK(mismatch.logged.path == "/a/b");
    auto not_url = f.run(proxied("/relative", ""));
    CHECK(not_url.logged.host.empty());
    auto upgrade = f.run(with_upgrade(proxied("https://wiki.example.com/mcp", "wiki.example.com")));
    CHECK(upgrade.logged.mcp_server == "wiki");
}

TEST_CASE("an admitted request's plan", "[admission]") {
    const Fixture f;
    SECTION("absolute form: origin form upstream, Host set from the URL") {
        auto a = f.run(proxied("http://API.Example.com?q=1", "api.example.com"));
        REQUIRE(a.refusal() == nullptr);
        const auto& plan = a.plan();
        CHECK_FALSE(plan.upstream_tls);
        CHECK(plan.host == "api.example.com");
        CHECK(plan.port == 80);
        CHECK(plan.target == "/?q=1");
        CHECK(plan.path == "/");
        CHECK(plan.host_field == "api.example.com");
        CHECK(plan.mcp == nullptr);
        CHECK(plan.substitute_secrets);
        CHECK(a.logged.path == "/");
    }
    SECTION("a port other than the scheme's goes into Host") {
        auto a = f.run(proxied("https://api.example.com:8443/x", "api.example.com:8443"));
        REQUIRE(a.refusal() == nullptr);
        CHECK(a.plan().upstream_tls);
        CHECK(a.plan().host_field == "api.example.com:8443");
    }
    SECTION("an IPv6 literal") {
        auto a = f.run(proxied("http://[2001:DB8::5]:80/", "[2001:db8::5]"));
        REQUIRE(a.refusal() == nullptr);
        CHECK(a.plan().host == "2001:db8::5");
    }
    SECTION("HTTP/1.0 without Host") {
        auto facts = proxied("http://api.example.com/", "");
        facts.version = 10;
        auto a = f.run(facts);
        REQUIRE(a.refusal() == nullptr);
        CHECK(a.plan().host_field == "api.example.com");
    }
    SECTION("in a tunnel the client's Host is kept") {
        auto a = f.run(tunnelled("/p?q", "api.example.com", "api.example.com:443"));
        REQUIRE(a.refusal() == nullptr);
        CHECK(a.plan().target == "/p?q");
        CHECK_FALSE(a.plan().host_field);
        CHECK(a.logged.scheme == "https");
    }
    SECTION("in a tunnel, HTTP/1.0 without Host gets the tunnel's") {
        auto facts = tunnelled("/", "api.example.com", "");
        facts.version = 10;
        auto a = f.run(facts);
        REQUIRE(a.refusal() == nullptr);
        CHECK(a.plan().host_field == "api.example.com");
    }
    SECTION("in a tunnel, an absolute form naming the tunnel's host") {
        auto a =
            f.run(tunnelled("https://api.example.com/x?y", "api.example.com", "api.example.com"));
        REQUIRE(a.refusal() == nullptr);
        CHECK(a.plan().target == "/x?y");
    }
    SECTION("an MCP endpoint") {
        auto facts = proxied("https://wiki.example.com/mcp", "wiki.example.com");
        facts.content_length = 1000; // at the limit
        auto a = f.run(facts);
        REQUIRE(a.refusal() == nullptr);
        REQUIRE(a.plan().mcp != nullptr);
        CHECK(a.plan().mcp->name == "wiki");
        CHECK(a.logged.mcp_server == "wiki");
        CHECK_FALSE(a.plan().substitute_secrets); // not an egress host
    }
    SECTION("a placeholder goes to an https:// upstream") {
        auto facts = proxied("https://api.example.com/", "api.example.com");
        facts.carries_placeholder = [] { return true; };
        auto a = f.run(facts);
        REQUIRE(a.refusal() == nullptr);
        CHECK(a.plan().substitute_secrets);
    }
    SECTION("placeholders are looked for only where secrets are substituted") {
        auto facts = proxied("http://mcp.internal:8080/", "mcp.internal:8080");
        bool asked = false;
        facts.carries_placeholder = [&asked] {
            asked = true;
            return true;
        };
        auto a = f.run(facts);
        REQUIRE(a.refusal() == nullptr);
        CHECK_FALSE(asked);
    }
}

TEST_CASE("port text", "[admission]") {
    using osf::admission::port_in_range;
    CHECK(port_in_range(""));
    CHECK(port_in_range("1"));
    CHECK(port_in_range("65535"));
    CHECK(port_in_range("00080"));
    CHECK_FALSE(port_in_range("0"));
    CHECK_FALSE(port_in_range("65536"));
    CHECK_FALSE(port_in_range("000080"));
    CHECK_FALSE(port_in_range("8o"));
    CHECK_FALSE(port_in_range("-1"));
}

TEST_CASE("what is MCP is decided before what is plain egress, on every host", "[admission]") {
    // A wildcard egress entry allows the MCP server's host at every port; other.example.com
    // is plain egress until a server announces an endpoint there.
    osf::Spec s;
    s.template_name = "node:24-alpine";
    s.egress = {osf::EgressRule{"*.example.com", std::nullopt},
                osf::EgressRule{"*.example.org", std::nullopt}};
    s.mcp = {mcp_server("wiki", "https", "wiki.example.com", 443, "/mcp")};
    const osf::policy::Policy destinations(s, {});
    std::map<std::string, osf::mcp::ServerPolicy, std::less<>> servers;
    servers["wiki"] = osf::mcp::ServerPolicy{"wiki", {"search"}, 1000};
    osf::policy::AnnouncedEndpoints announced;
    REQUIRE(announced.add("wiki", {"https", "wiki.example.com", 443, "/messages"}));
    REQUIRE(announced.add("wiki", {"http", "other.example.com", 9000, "/rpc"}));
    REQUIRE(announced.add("gone", {"https", "gone.example.org", 443, "/rpc"}));
    const AdmissionPolicy policy{destinations, servers, &announced};

    auto body = [](RequestFacts r) {
        r.content_length = 10;
        return r;
    };
    struct Case {
        const char* what;
        RequestFacts facts;
        const char* mcp;      // the server it is MCP traffic of; nullptr: plain egress
        const char* mcp_host; // the server whose event streams it watches (plain only)
        std::optional<RefusalReason> refused = std::nullopt;
    };
    const std::vector<Case> cases = {
        {"the declared endpoint", tunnelled("/mcp", "wiki.example.com", "wiki.example.com"), "wiki",
         nullptr},
        {"an announced endpoint, POSTed",
         body(tunnelled("/messages?sessionId=1", "wiki.example.com", "wiki.example.com")), "wiki",
         nullptr},
        {"an announced endpoint, spelled otherwise",
         body(tunnelled("/x/../%6Dessages?sessionId=1", "wiki.example.com", "wiki.example.com")),
         "wiki", nullptr},
        {"an announced endpoint without a body",
         tunnelled("/messages", "wiki.example.com", "wiki.example.com"), "wiki", nullptr},
        {"an announced endpoint on another host and port",
         body(proxied("http://other.example.com:9000/rpc", "other.example.com:9000")), "wiki",
         nullptr},
        {"... at yet another port (in doubt: MCP)",
         body(proxied("http://other.example.com:9001/rpc/x", "other.example.com:9001")), "wiki",
         nullptr},
        {"a plain path on that host", proxied("http://other.example.com/page", "other.example.com"),
         nullptr, nullptr},
        {"the declared path at another port",
         proxied("http://wiki.example.com:8000/mcp", "wiki.example.com:8000"), "wiki", nullptr},
        {"a body to another path of the MCP host",
         body(tunnelled("/api/other", "wiki.example.com", "wiki.example.com")), "wiki", nullptr},
        {"a body to another port of the MCP host",
         body(proxied("http://wiki.example.com:8001/x", "wiki.example.com:8001")), "wiki", nullptr},
        {"an upgrade on the MCP host",
         with_upgrade(tunnelled("/ws", "wiki.example.com", "wiki.example.com")), "wiki", nullptr,
         RefusalReason::mcp_upgrade},
        {"a GET of another path of the MCP host: plain, its event streams watched",
         tunnelled("/static/app.js", "wiki.example.com", "wiki.example.com"), nullptr, "wiki"},
        {"a body to a host without MCP",
         body(proxied("http://www.example.com/x", "www.example.com")), nullptr, nullptr},
        {"an endpoint of a server no longer declared",
         body(proxied("http://gone.example.org/rpc", "gone.example.org")), nullptr, nullptr,
         RefusalReason::mcp_unreadable},
        {"an ambiguous path on a host with only an announced endpoint",
         proxied("http://other.example.com/a%2Frpc", "other.example.com"), nullptr, nullptr,
         RefusalReason::bad_request},
    };
    for (const auto& c : cases) {
        INFO(c.what);
        const auto admitted = admit(policy, c.facts);
        if (c.refused) {
            REQUIRE(admitted.refusal() != nullptr);
            CHECK(admitted.refusal()->reason == *c.refused);
            continue;
        }
        REQUIRE(admitted.refusal() == nullptr);
        const auto& plan = admitted.plan();
        if (c.mcp) {
            REQUIRE(plan.mcp != nullptr);
            CHECK(plan.mcp->name == c.mcp);
            CHECK(admitted.logged.mcp_server == c.mcp);
        } else {
            CHECK(plan.mcp == nullptr);
            CHECK(admitted.logged.mcp_server.empty());
        }
        if (c.mcp_host) {
            REQUIRE(plan.mcp_host != nullptr);
            CHECK(plan.mcp_host->name == c.mcp_host);
        } else {
            CHECK(plan.mcp_host == nullptr);
        }
    }
}

TEST_CASE("a host's rules judge every kind of request; audit lets it on", "[admission]") {
    auto parsed = osf::parse_spec(R"({"egress": [
        {"host": "api.example.com", "rules": [
            {"name": "read", "methods": "read-only", "paths": ["/repos/acme/*"], "allow": true}]},
        {"host": "audit.example.com", "mode": "audit", "rules": [
            {"methods": ["GET"], "paths": ["/ok"], "allow": true}]},
        {"host": "wiki.example.com", "rules": [{"paths": ["/other"], "allow": true}]}],
        "mcp": [{"name": "wiki", "url": "https://wiki.example.com/mcp", "tools": ["search"]}]})");
    REQUIRE(parsed.ok());
    const osf::policy::Policy destinations(*parsed.spec, {});
    std::map<std::string, osf::mcp::ServerPolicy, std::less<>> servers;
    servers["wiki"] = osf::mcp::ServerPolicy{"wiki", {"search"}, 1000};
    const auto run = [&](RequestFacts facts, std::string_view method) {
        facts.method = method;
        return admit(AdmissionPolicy{destinations, servers}, facts);
    };
    // Allowed: the rule is logged.
    const auto read =
        run(tunnelled("/repos/acme/x?y=1", "api.example.com", "api.example.com"), "GET");
    REQUIRE_FALSE(read.refusal());
    CHECK(read.logged.rule == "read");
    CHECK(read.logged.rule_index == 0);
    // Refused on the proxy's own port, in a tunnel, and as an upgrade.
    for (const auto& facts :
         {proxied("http://api.example.com/repos/acme/x", "api.example.com"),
          tunnelled("/repos/acme/x", "api.example.com", "api.example.com"),
          with_upgrade(tunnelled("/repos/acme/x", "api.example.com", "api.example.com"))}) {
        const auto refused = run(facts, "POST");
        REQUIRE(refused.refusal());
        CHECK(refused.refusal()->status == status::forbidden);
        CHECK(refused.refusal()->reason == RefusalReason::method_not_allowed);
        CHECK(refused.logged.rule == "api.example.com#none");
        CHECK(refused.logged.rule_index == -1);
        CHECK_THAT(refused.refusal()->detail, Catch::Contains("allow <sandbox ID>"));
    }
    // Audit: on it goes, with what would have refused it.
    const auto audited =
        run(tunnelled("/elsewhere", "audit.example.com", "audit.example.com"), "DELETE");
    REQUIRE_FALSE(audited.refusal());
    CHECK(audited.logged.would_refuse == RefusalReason::path_not_allowed);
    CHECK(audited.logged.rule == "audit.example.com#none");
    const auto ok = run(tunnelled("/ok", "audit.example.com", "audit.example.com"), "GET");
    CHECK_FALSE(ok.logged.would_refuse);
    // An MCP endpoint is judged by its server's tools, not the host's rules.
    const auto mcp = run(tunnelled("/mcp", "wiki.example.com", "wiki.example.com"), "POST");
    REQUIRE_FALSE(mcp.refusal());
    CHECK(mcp.logged.mcp_server == "wiki");
    CHECK(mcp.logged.rule.empty());
}
