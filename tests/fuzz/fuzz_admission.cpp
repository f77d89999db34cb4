// Fuzz target: request admission (admission/request_admission.cpp) on every
// head Beast accepts, on the proxy's own port and inside a CONNECT tunnel
// (the first input byte picks which). Whatever admit() answers must hold the
// promises the I/O code relies on: a refusal has a known reason and a 4xx
// status; an admitted request goes to a canonical host the policy allows, in
// origin form without a fragment, with one Host field naming the same
// destination, framed so the upstream reads it the same way, never upgraded
// on an MCP endpoint, and with no secret placeholder towards plain HTTP.
#include "admission/request_admission.hpp"
#include "fuzz_check.hpp"
#include "hosts/host.hpp"
#include "osf/log_fields.hpp"
#include "policy/url_path.hpp"

#include <algorithm>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/parser.hpp>
#include <string>

namespace {

namespace http = boost::beast::http;
using osf::admission::RequestFacts;

osf::McpServer mcp_server() {
    osf::McpServer server;
    server.name = "wiki";
    server.scheme = "https";
    server.host = "mcp.test";
    server.port = 443;
    server.path = "/mcp";
    server.url = "https://mcp.test:443/mcp";
    return server;
}

struct Setup {
    Setup() : destinations(spec(), {}) { mcp_servers["wiki"] = {"wiki", {"search"}, 4096}; }
    static osf::Spec spec() {
        osf::Spec s;
        s.template_name = "debian:12";
        s.egress = {osf::EgressRule{"upstream.test", std::nullopt},
                    osf::EgressRule{"*.example.com", std::nullopt},
                    osf::EgressRule{"pinned.test", 8443}, osf::EgressRule{"mcp.test", 8080}};
        s.mcp = {mcp_server()};
        return s;
    }
    osf::policy::Policy destinations;
    std::map<std::string, osf::mcp::ServerPolicy, std::less<>> mcp_servers;
};

bool is_known_reason(osf::RefusalReason reason) {
    return !osf::to_string(reason).empty();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const Setup setup;
    if (size < 1) return 0;
    const std::uint8_t mode = data[0];
    const std::string text(osf::fuzz::as_text(data + 1, size - 1));

    http::request_parser<http::empty_body> parser;
    parser.header_limit(64 * 1024);
    parser.body_limit(boost::none);
    parser.eager(false);
    boost::system::error_code ec;
    parser.put(boost::asio::buffer(text), ec);
    if (ec || !parser.is_header_done()) return 0;
    const auto& req = parser.get();
    if (req.method() == http::verb::connect) return 0; // handled before admission

    RequestFacts facts;
    facts.target = req.target();
    facts.version = req.version() == 10 ? 10 : 11;
    facts.host_fields = req.count(http::field::host);
    facts.host_field = req[http::field::host];
    facts.transfer_encoding = req.count(http::field::transfer_encoding) > 0;
    facts.chunked = parser.chunked();
    if (parser.content_length()) facts.content_length = *parser.content_length();
    facts.asks_for_upgrade = (mode & 2) != 0;
    const bool placeholder = (mode & 4) != 0;
    facts.carries_placeholder = [placeholder] { return placeholder; };
    const std::string tunnel_host = (mode & 8) ? "mcp.test" : "upstream.test";
    if (mode & 1)
        facts.tunnel =
            osf::admission::Tunnel{tunnel_host, static_cast<std::uint16_t>(443), (mode & 16) == 0,
                                   (mode & 32) ? "the SNI names another host" : ""};
    if (facts.tunnel && !facts.tunnel->tls) facts.tunnel->port = 80;

    const auto admitted = osf::admission::admit({setup.destinations, setup.mcp_servers}, facts);
    // Deterministic: the same facts, the same answer.
    const auto again = osf::admission::admit({setup.destinations, setup.mcp_servers}, facts);
    OSF_FUZZ_CHECK((admitted.refusal() == nullptr) == (again.refusal() == nullptr));

    if (const auto* refusal = admitted.refusal()) {
        OSF_FUZZ_CHECK(is_known_reason(refusal->reason));
        const auto code = static_cast<unsigned>(refusal->status);
        OSF_FUZZ_CHECK(code == 400 || code == 403 || code == 413);
        OSF_FUZZ_CHECK(!refusal->detail.empty());
        OSF_FUZZ_CHECK(refusal->close_client || !facts.has_body());
        OSF_FUZZ_CHECK(refusal->reason == again.refusal()->reason);
        return 0;
    }
    const auto& plan = admitted.plan();
    OSF_FUZZ_CHECK(osf::hosts::canonical_host(plan.host) == plan.host);
    OSF_FUZZ_CHECK(plan.port != 0);
    // Inside a tunnel too: each request is admitted by the rules in force when it
    // comes, whatever admitted the CONNECT (a revoke holds from the next request).
    OSF_FUZZ_CHECK(setup.destinations.check_destination(plan.host, plan.port).allowed);
    if (facts.tunnel)
        OSF_FUZZ_CHECK(plan.host == facts.tunnel->host && plan.port == facts.tunnel->port &&
                       facts.tunnel->sni_problem.empty());
    OSF_FUZZ_CHECK(plan.target.starts_with('/'));
    OSF_FUZZ_CHECK(plan.target.find('#') == std::string::npos);
    OSF_FUZZ_CHECK(plan.path == plan.target.substr(0, plan.target.find('?')));
    OSF_FUZZ_CHECK(facts.host_fields <= 1);
    if (!facts.host_field.empty()) {
        const auto hp = osf::hosts::split_host_port(facts.host_field, plan.port);
        OSF_FUZZ_CHECK(hp && osf::hosts::canonical_host(hp->host) == plan.host &&
                       hp->port == plan.port);
    } else {
        OSF_FUZZ_CHECK(facts.version == 10 && plan.host_field);
    }
    OSF_FUZZ_CHECK(!facts.unframed_coding());
    if (setup.destinations.has_mcp_endpoint(plan.host, plan.port))
        OSF_FUZZ_CHECK(osf::policy::ambiguous_path(plan.path).empty());
    if (plan.mcp) {
        OSF_FUZZ_CHECK(!facts.asks_for_upgrade);
        OSF_FUZZ_CHECK(!facts.content_length ||
                       *facts.content_length <= plan.mcp->max_message_bytes);
    }
    if (plan.substitute_secrets && !plan.upstream_tls) OSF_FUZZ_CHECK(!placeholder);
    return 0;
}
