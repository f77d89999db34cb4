#include "admission/request_admission.hpp"

#include "hosts/host.hpp"
#include "policy/url_path.hpp"

#include <boost/url/parse.hpp>
#include <boost/url/scheme.hpp>

namespace osf::admission {

namespace http = boost::beast::http;

namespace {

// The checks in the order they are made: the first that fails is the refusal.
class Admitter {
public:
    Admitter(const AdmissionPolicy& policy, const RequestFacts& request)
        : policy_(policy), request_(request) {}

    Admission run() {
        if (!read_destination()) return finish();
        check_request();
        return finish();
    }

private:
    const AdmissionPolicy& policy_;
    const RequestFacts& request_;
    Destination logged_;
    Plan plan_;
    std::optional<Refusal> refusal_;

    bool refuse(http::status status, RefusalReason why, std::string detail) {
        refusal_ = Refusal{status, why, std::move(detail), request_.has_body()};
        return false;
    }

    Admission finish() {
        if (refusal_) return Admission{std::move(logged_), std::move(*refusal_)};
        return Admission{std::move(logged_), std::move(plan_)};
    }

    // "http://h?q" is "/?q": the origin form of an absolute URL.
    static std::string origin_form(const boost::urls::url_view& url) {
        std::string target(url.encoded_resource());
        if (!target.starts_with('/')) target.insert(0, "/");
        return target;
    }

    bool read_destination() {
        plan_.target = std::string(request_.target);
        return request_.tunnel ? read_tunnel_target(*request_.tunnel) : read_absolute_target();
    }

    // In a tunnel the destination is the tunnel's; an absolute-form target
    // must name the same one, and is held to the rules of the proxy's own.
    bool read_tunnel_target(const Tunnel& tunnel) {
        plan_.host = std::string(tunnel.host);
        plan_.port = tunnel.port;
        plan_.upstream_tls = tunnel.tls;
        logged_.scheme = tunnel.tls ? "https" : "http";
        logged_.host = plan_.host;
        logged_.port = plan_.port;
        // The CONNECT was admitted under the rules of its time; each request in
        // the tunnel under those in force now (a revoke holds from the next one).
        const auto decision = policy_.destinations.check_destination(plan_.host, plan_.port);
        if (!decision.allowed)
            return refuse(http::status::forbidden, *decision.refused_by, decision.detail);
        if (request_.target.starts_with('/')) return true;
        auto url = boost::urls::parse_absolute_uri(request_.target);
        const auto named = url ? hosts::canonical_host(url->encoded_host()) : std::nullopt;
        logged_.path = url ? std::string(url->encoded_path()) : std::string();
        const bool web = url && (url->scheme_id() == boost::urls::scheme::http ||
                                 url->scheme_id() == boost::urls::scheme::https);
        if (!web || !named)
            return refuse(http::status::bad_request, RefusalReason::bad_request,
                          "the request target is not a path");
        if (url->has_port() && !port_in_range(url->port()))
            return refuse(http::status::bad_request, RefusalReason::bad_request,
                          "the port is not a number from 1 to 65535");
        const std::uint16_t named_port =
            url->has_port() && !url->port().empty()
                ? url->port_number()
                : (url->scheme_id() == boost::urls::scheme::http ? 80 : 443);
        if (*named != plan_.host || named_port != plan_.port)
            return refuse(http::status::forbidden, RefusalReason::host_mismatch,
                          "the request names " + *named + ", not the tunnel's host");
        if (url->has_userinfo())
            return refuse(http::status::forbidden, RefusalReason::bad_host,
                          "user information in the URL is not forwarded");
        plan_.target = origin_form(*url);
        return true;
    }

    // On the proxy-facing connection: an absolute http:// or https:// URL.
    bool read_absolute_target() {
        auto url = boost::urls::parse_absolute_uri(request_.target);
        if (!url || (url->scheme() != "http" && url->scheme() != "https"))
            return refuse(http::status::bad_request, RefusalReason::bad_request,
                          "a proxy request needs an absolute http:// URL or CONNECT");
        plan_.upstream_tls = url->scheme() == "https";
        logged_.scheme = std::string(url->scheme());
        const auto named = hosts::canonical_host(url->encoded_host());
        logged_.host = named ? *named : std::string(url->encoded_host());
        logged_.path = std::string(url->encoded_path());
        if (!named)
            return refuse(http::status::forbidden, RefusalReason::bad_host,
                          "not a valid host name");
        plan_.host = *named;
        if (url->has_port() && !port_in_range(url->port()))
            return refuse(http::status::bad_request, RefusalReason::bad_request,
                          "the port is not a number from 1 to 65535");
        plan_.port = url->has_port() && !url->port().empty() ? url->port_number()
                                                             : (plan_.upstream_tls ? 443 : 80);
        logged_.port = plan_.port;
        if (url->has_userinfo())
            return refuse(http::status::forbidden, RefusalReason::bad_host,
                          "user information in the URL is not forwarded");
        const auto decision = policy_.destinations.check_destination(plan_.host, plan_.port);
        if (!decision.allowed)
            return refuse(http::status::forbidden, *decision.refused_by, decision.detail);
        plan_.target = origin_form(*url);
        return true;
    }

    // The Host header must name the same destination (no domain fronting), and
    // a tunnel's SNI must have agreed with its CONNECT.
    bool check_host_names(const std::string& host, std::uint16_t port) {
        if (request_.host_fields == 0 || request_.host_field.empty()) {
            if (request_.version == 11)
                return refuse(http::status::bad_request, RefusalReason::bad_request,
                              "no Host header");
        } else {
            const auto hp = hosts::split_host_port(request_.host_field, port);
            const auto named = hp ? hosts::canonical_host(hp->host) : std::nullopt;
            if (!named || *named != host || hp->port != port)
                return refuse(http::status::forbidden, RefusalReason::host_mismatch,
                              "the Host header names another destination");
        }
        if (request_.tunnel && !request_.tunnel->sni_problem.empty())
            return refuse(http::status::forbidden, RefusalReason::host_mismatch,
                          std::string(request_.tunnel->sni_problem));
        if (request_.host_fields > 1)
            return refuse(http::status::bad_request, RefusalReason::bad_request,
                          "more than one Host header");
        return true;
    }

    // MCP traffic is read message by message: an upgrade (WebSocket, h2c, any
    // token) would carry tool calls in frames the proxy never reads. The
    // message is read as the upstream will read it, or not at all: a coding on
    // top of chunked, or a second Content-Encoding, would be.
    bool check_mcp_framing() {
        if (request_.other_transfer_coding)
            return refuse(http::status::bad_request, RefusalReason::bad_request,
                          "a transfer coding other than chunked on an MCP message");
        if (request_.content_encoding_fields > 1)
            return refuse(http::status::bad_request, RefusalReason::bad_request,
                          "more than one Content-Encoding field on an MCP message");
        if (request_.asks_for_upgrade)
            return refuse(http::status::forbidden, RefusalReason::mcp_upgrade,
                          "an MCP endpoint is not upgraded to another protocol "
                          "(WebSocket, h2c)");
        return true;
    }

    bool check_request() {
        const auto& host = plan_.host;
        const auto port = plan_.port;
        plan_.path = plan_.target.substr(0, plan_.target.find_first_of("?#"));
        logged_.path = plan_.path;
        // A fragment is never part of a request target (RFC 9112 3.2): cut here and
        // forwarded there, it would make what is checked differ from what is sent.
        if (plan_.target.find('#') != std::string::npos)
            return refuse(http::status::bad_request, RefusalReason::bad_request,
                          "a fragment ('#') in the request target");
        // What is MCP is decided before what is plain egress: a declared
        // endpoint (any port of its host), an endpoint a server announced (any host),
        // or, on a host where an MCP server lives, a request carrying a body or
        // asking for an upgrade (either could carry MCP messages to that server).
        const auto reading = policy_.destinations.read_request(host, port, plan_.path);
        const auto found_announced = policy_.announced ? policy_.announced->match(host, plan_.path)
                                                       : policy::AnnouncedEndpoints::Match{};
        const auto& announced = found_announced.server;
        // Where an MCP endpoint lives, the path must have one reading every server
        // routes on, or MCP traffic could pass as plain egress.
        const bool mcp_host = reading.mcp_endpoint || found_announced.on_host;
        if (mcp_host)
            if (const auto why = policy::ambiguous_path(plan_.path); !why.empty())
                return refuse(http::status::bad_request, RefusalReason::bad_request,
                              std::string(why) + " (a host with an MCP endpoint)");
        std::string_view mcp_name;
        if (reading.mcp_server)
            mcp_name = reading.mcp_server->name;
        else if (announced)
            mcp_name = *announced;
        else if (reading.host_server && (request_.has_body() || request_.asks_for_upgrade))
            mcp_name = reading.host_server->name; // in doubt: it could carry MCP messages
        if (!mcp_name.empty()) {
            logged_.mcp_server = std::string(mcp_name);
            const auto found = policy_.mcp_servers.find(mcp_name);
            // An endpoint announced by a server the rules no longer declare.
            if (found == policy_.mcp_servers.end())
                return refuse(http::status::forbidden, RefusalReason::mcp_unreadable,
                              "an MCP endpoint of a server the spec no longer declares");
            plan_.mcp = &found->second;
        } else if (reading.host_server) {
            const auto found = policy_.mcp_servers.find(reading.host_server->name);
            if (found != policy_.mcp_servers.end()) plan_.mcp_host = &found->second;
        }
        // The upstream might frame such a body differently (RFC 9112 6.3).
        if (request_.unframed_coding())
            return refuse(http::status::bad_request, RefusalReason::bad_request,
                          "a Transfer-Encoding that does not end in chunked");
        // RFC 9110 9.3.8: a TRACE request has no content (and Beast would not frame one).
        if (request_.trace && request_.has_body())
            return refuse(http::status::bad_request, RefusalReason::bad_request,
                          "a TRACE request with a body");

        if (!check_host_names(host, port)) return false;

        // A host with rules: the method, normalised path and query decide (MCP
        // traffic is judged by its server's tools instead). An upgrade is
        // judged by its request.
        if (reading.rules && !plan_.mcp) {
            const auto verdict = reading.rules->decide(request_.method, plan_.target);
            logged_.rule = std::string(verdict.rule);
            logged_.rule_index = verdict.index;
            if (!verdict.allowed && reading.rules->audit())
                logged_.would_refuse = verdict.refused_by;
            else if (!verdict.allowed)
                return refuse(http::status::forbidden, *verdict.refused_by, verdict.detail);
        }

        // What the proxy does there.
        if (plan_.mcp && !check_mcp_framing()) return false;
        plan_.substitute_secrets = reading.substitutes_secrets;
        // A real value goes only to an upstream whose TLS certificate was verified.
        if (plan_.substitute_secrets && !plan_.upstream_tls && request_.carries_placeholder &&
            request_.carries_placeholder())
            return refuse(http::status::forbidden, RefusalReason::secret_cleartext,
                          "a secret placeholder is substituted only on https:// requests");
        // MCP: the whole message is read before it is judged. Beast would reserve
        // what a Content-Length says: checked before a byte of the body is read.
        if (plan_.mcp && request_.content_length &&
            *request_.content_length > plan_.mcp->max_message_bytes) {
            refuse(http::status::payload_too_large, RefusalReason::mcp_unreadable,
                   "the MCP message is over the size limit");
            refusal_->close_client = true;
            return false;
        }
        // HTTP/1.0 without Host in a tunnel: the destination it was checked for.
        if (!request_.tunnel || request_.host_fields == 0 || request_.host_field.empty())
            plan_.host_field =
                port == (plan_.upstream_tls ? 443 : 80) ? host : host + ":" + std::to_string(port);
        return true;
    }
};

} // namespace

bool port_in_range(std::string_view text) {
    if (text.empty()) return true;
    if (text.size() > 5) return false;
    unsigned value = 0;
    for (const char c : text) {
        if (c < '0' || c > '9') return false;
        value = value * 10 + static_cast<unsigned>(c - '0');
    }
    return value >= 1 && value <= 65535;
}

Admission admit(const AdmissionPolicy& policy, const RequestFacts& request) {
    return Admitter(policy, request).run();
}

} // namespace osf::admission
