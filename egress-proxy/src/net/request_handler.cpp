// The request path, top-down: the head's facts are read, admit() decides
// (refusal -> answered here), the request is prepared (secrets, MCP message
// read and judged), then forwarded (forward.hpp), on a pooled connection and
// once more on a fresh one if the pooled one turns out closed. The exchange's
// log line is written by `Exchange` (exchange.hpp) on every way out.
#include "net/request_handler.hpp"

#include "admission/request_admission.hpp"
#include "mcp/legacy_transport.hpp"
#include "mcp/routing_headers.hpp"
#include "mcp/session_registry.hpp"
#include "net/aws_signing.hpp"
#include "net/exchange.hpp"
#include "net/forward.hpp"
#include "net/http_messages.hpp"
#include "net/local_reply.hpp"
#include "net/proxy_runtime.hpp"
#include "net/secret_placing.hpp"
#include "net/worker.hpp"
#include "secrets/sigv4_chunks.hpp"
#include "text/ascii.hpp"

#include <algorithm>
#include <boost/beast/core/string.hpp>
#include <memory>
#include <optional>
#include <string>

namespace osf::net {

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using RequestHead = http::request_parser<http::empty_body>;

// What admission reads of a request head: taken before hop-by-hop fields go.
admission::RequestFacts request_facts(const RequestHead& head, const TunnelTarget* tunnel,
                                      unsigned version) {
    const auto& req = head.get();
    admission::RequestFacts facts;
    facts.target = req.target();
    facts.method = req.method_string();
    facts.version = version;
    facts.host_fields = req.count(http::field::host);
    facts.host_field = req[http::field::host];
    facts.transfer_encoding = req.count(http::field::transfer_encoding) > 0;
    facts.chunked = head.chunked();
    if (head.content_length()) facts.content_length = *head.content_length();
    facts.asks_for_upgrade = asks_for_upgrade(req);
    facts.trace = req.method() == http::verb::trace;
    facts.other_transfer_coding = other_transfer_coding(req);
    facts.content_encoding_fields = req.count(http::field::content_encoding);
    if (tunnel)
        facts.tunnel =
            admission::Tunnel{tunnel->host, tunnel->port, tunnel->tls, tunnel->sni_problem};
    return facts;
}

void record_destination(log::LogRecord& rec, admission::Destination&& logged) {
    rec.scheme = std::move(logged.scheme);
    rec.host = std::move(logged.host);
    rec.port = logged.port;
    rec.path = std::move(logged.path);
    rec.mcp_server = std::move(logged.mcp_server);
    rec.rule = std::move(logged.rule);
    rec.rule_index = logged.rule_index;
    rec.would_refuse = logged.would_refuse;
}

// The SEP-2243 routing headers of an MCP request, every field of each.
mcp::RoutingHeaders routing_headers(const http::request<http::string_body>& message) {
    mcp::RoutingHeaders headers;
    auto collect = [&](std::string_view name, std::vector<std::string_view>& into) {
        for (auto [it, end] = message.equal_range(name); it != end; ++it)
            into.push_back(it->value());
    };
    collect("Mcp-Method", headers.method);
    collect("Mcp-Name", headers.name);
    collect("Mcp-Tool-Name", headers.tool_name);
    collect("Mcp-Prompt-Name", headers.prompt_name);
    collect("Mcp-Resource", headers.resource);
    return headers;
}

// A secret the request carries, named once in the log line (names sorted).
void log_secret_used(log::LogRecord& rec, const std::string& name) {
    auto& names = rec.secrets;
    if (std::find(names.begin(), names.end(), name) != names.end()) return;
    names.push_back(name);
    std::sort(names.begin(), names.end());
}

// The body goes upstream as it arrives; an AWS chunk-signed body has each
// chunk signed again on its way (a body that breaks the chunk signing is
// refused, out.body_refusal saying why).
void stream_body(OutgoingRequest& out, RequestHead&& head,
                 std::optional<secrets::sigv4::ChunkSigning> aws_chunks) {
    out.streamed.emplace(std::move(head));
    out.streamed->body_limit(boost::none);
    if (!aws_chunks) return;
    auto resigner = std::make_shared<secrets::sigv4::ChunkResigner>(std::move(*aws_chunks));
    out.body_transform = [resigner, &out](std::string_view in, bool last, std::string& sent) {
        const bool fine = resigner->feed(in, sent) && (!last || resigner->done());
        if (!fine)
            out.body_refusal = resigner->problem().empty() ? "the body ended before its last chunk"
                                                           : resigner->problem();
        return fine;
    };
}

// The tools and methods an MCP message calls, as the log line names them.
void log_mcp_calls(log::LogRecord& rec, const mcp::RequestVerdict& verdict) {
    for (const auto& tool : verdict.tools_called) {
        if (!rec.tool.empty()) rec.tool += ",";
        rec.tool += tool;
    }
    for (const auto& method : verdict.methods) {
        if (!rec.mcp_method.empty()) rec.mcp_method += ",";
        rec.mcp_method += method;
    }
}

// The legacy transport's registry holds ids of a bounded size; a request
// whose ids it could not hold is refused rather than forwarded unrecorded.
bool session_recordable(const std::string& session, const mcp::RequestVerdict& verdict) {
    if (!mcp::SessionRegistry::recordable(session, {})) return false;
    if (verdict.action != mcp::RequestVerdict::Action::Forward) return true;
    return std::all_of(
        verdict.tools_list_ids.begin(), verdict.tools_list_ids.end(),
        [&](const std::string& id) { return mcp::SessionRegistry::recordable(session, id); });
}

// MCP: the whole message is read and judged before anything is forwarded.
// Returns nullopt when it goes on upstream (in `out`), otherwise whether the
// client connection may go on after the proxy's own answer.
template <class Stream>
asio::awaitable<std::optional<bool>>
read_mcp_request(ClientSession<Stream>& s, Exchange& ex, RequestHead& head,
                 const mcp::ServerPolicy& server, const std::string& target, bool has_body,
                 OutgoingRequest& out) {
    auto& ctx = s.ctx;
    head.get().set(http::field::accept_encoding, "identity");
    // The head was parsed without a body limit (admit() checked its
    // Content-Length against this one before a byte of the body was read).
    http::request_parser<http::string_body> sp{std::move(head)};
    sp.body_limit(server.max_message_bytes);
    // Beast adds a chunked body's trailer fields to the message it reads into:
    // the head forwarded is the one checked, kept aside.
    auto checked_head = sp.get().base();
    if (has_body) {
        expire_in(s.stream, ctx.config.limits().idle_timeout);
        auto [ec, n] = co_await http::async_read(s.stream, s.buffer, sp, use_tuple);
        if (ec == http::error::body_limit) {
            ex.client_keep = false;
            co_return co_await refuse(s.stream, ex, http::status::payload_too_large,
                                      RefusalReason::mcp_unreadable,
                                      "the MCP message is over the size limit");
        }
        if (ec) {
            if (auto refusal = body_read_refusal(ec, ctx.config.limits().read_buffer_bytes())) {
                ex.client_keep = false;
                co_return co_await refuse(s.stream, ex, refusal->status, refusal->reason,
                                          refusal->detail);
            }
            ex.finish_error(client_error(ec), 0);
            co_return false;
        }
    }
    auto message = sp.release();
    if (restore_checked_head(message, std::move(checked_head))) {
        ex.client_keep = false;
        co_return co_await refuse(s.stream, ex, http::status::bad_request,
                                  RefusalReason::bad_request, "trailer fields on an MCP message");
    }
    const auto routing = routing_headers(message);
    if (!has_body && message.method() != http::verb::post && routing.any()) {
        // Headers a gateway routes on, and no body they could agree with.
        ex.client_keep = false;
        co_return co_await refuse(s.stream, ex, http::status::bad_request,
                                  RefusalReason::mcp_unreadable,
                                  "Mcp-Method or Mcp-Name on a request without a body");
    }
    if (has_body || message.method() == http::verb::post) {
        auto verdict =
            mcp::inspect_request(server, message[http::field::content_type],
                                 message[http::field::content_encoding], message.body(), routing);
        log_mcp_calls(ex.rec, verdict);
        const auto session = mcp::session_id_from_url(target);
        if (session && !session_recordable(*session, verdict)) {
            ex.client_keep = false;
            co_return co_await refuse(
                s.stream, ex, http::status::payload_too_large, RefusalReason::limit,
                "a sessionId or request id over " +
                    std::to_string(mcp::SessionRegistry::kMaxIdBytes) + " bytes");
        }
        std::optional<std::string> substitute;
        if (verdict.action == mcp::RequestVerdict::Action::ReplyJsonRpc && session)
            substitute = mcp::legacy_substitute_body(verdict, *ctx.mcp_sessions, *session);
        if (substitute) {
            // Legacy HTTP+SSE: the refusal travels on the GET stream; the server
            // gets a ping with the same id instead of the call.
            message.body() = std::move(*substitute);
            ex.refused_in_place = verdict.refused_by.value_or(RefusalReason::mcp_tool);
            ex.rec.rule = verdict.rule;
        } else if (verdict.action == mcp::RequestVerdict::Action::ReplyJsonRpc) {
            ex.rec.refused_by = verdict.refused_by.value_or(RefusalReason::mcp_tool);
            ex.rec.rule = verdict.rule;
            ex.finish(Outcome::refused, verdict.status);
            co_return co_await answer(s.stream, ex, static_cast<http::status>(verdict.status),
                                      "application/json", std::move(verdict.body),
                                      ex.rec.refused_by);
        }
        if (verdict.action == mcp::RequestVerdict::Action::Forward && session)
            for (const auto& id : verdict.tools_list_ids)
                ctx.mcp_sessions->expect_tools_list(*session, id);
        if (verdict.action == mcp::RequestVerdict::Action::Refuse) {
            ex.rec.refused_by = verdict.refused_by.value_or(RefusalReason::mcp_unreadable);
            ex.finish(Outcome::refused, verdict.status);
            co_return co_await answer(s.stream, ex, static_cast<http::status>(verdict.status),
                                      "application/json", std::move(verdict.body),
                                      ex.rec.refused_by);
        }
    }
    message.prepare_payload();
    out.buffered.emplace(std::move(message));
    co_return std::nullopt;
}

// An AWS request whose signature covers its body's hash without stating it
// (services other than S3): the body is read whole (bounded), hashed, and the
// request signed again. Returns nullopt when it goes on upstream (in `out`),
// otherwise whether the client connection may go on after the proxy's answer.
template <class Stream>
asio::awaitable<std::optional<bool>>
read_aws_signed_body(ClientSession<Stream>& s, Exchange& ex, RequestHead& head,
                     const std::string& host, OutgoingRequest& out) {
    auto& ctx = s.ctx;
    http::request_parser<http::string_body> sp{std::move(head)};
    sp.body_limit(secrets::sigv4::max_hashed_body);
    auto checked_head = sp.get().base();
    expire_in(s.stream, ctx.config.limits().idle_timeout);
    auto [ec, n] = co_await http::async_read(s.stream, s.buffer, sp, use_tuple);
    if (ec == http::error::body_limit) {
        ex.client_keep = false;
        co_return co_await refuse(s.stream, ex, http::status::payload_too_large,
                                  RefusalReason::limit,
                                  "an AWS request body signed by its hash over " +
                                      std::to_string(secrets::sigv4::max_hashed_body) + " bytes");
    }
    if (ec) {
        if (auto refusal = body_read_refusal(ec, ctx.config.limits().read_buffer_bytes())) {
            ex.client_keep = false;
            co_return co_await refuse(s.stream, ex, refusal->status, refusal->reason,
                                      refusal->detail);
        }
        ex.finish_error(client_error(ec), 0);
        co_return false;
    }
    auto message = sp.release();
    if (restore_checked_head(message, std::move(checked_head))) {
        ex.client_keep = false;
        co_return co_await refuse(s.stream, ex, http::status::bad_request,
                                  RefusalReason::bad_request,
                                  "trailer fields on an AWS request signed by its body's hash");
    }
    // Framed as it will be sent before it is signed: what is signed is what goes.
    message.prepare_payload();
    const auto hash = secrets::sigv4::sha256_hex(message.body());
    auto resigned = resign_aws_request(ctx.config.aws, message.base(), host, true, hash);
    if (resigned.refused || !resigned.changes())
        co_return co_await refuse(
            s.stream, ex, http::status::forbidden,
            resigned.refused.value_or(RefusalReason::aws_signature_not_placeholder),
            resigned.refused ? resigned.detail : "the request was not signed again");
    out.buffered.emplace(std::move(message));
    co_return std::nullopt;
}

// Forwards on a pooled connection if one is idle; once more on a fresh one if
// the pooled connection turns out closed before any answer.
template <class Stream>
asio::awaitable<bool> forward_on_upstream(ClientSession<Stream>& s, Exchange& ex,
                                          const admission::Plan& plan, OutgoingRequest& out,
                                          bool close_on_refusal) {
    using UpstreamHttp2 = config::ProxyOptions::UpstreamHttp2;
    const auto upstream_http2 = s.ctx.config.options.upstream_http2;
    // A WebSocket handshake is HTTP/1.1's (the proxy does not speak RFC 8441).
    const bool offer_h2 =
        !out.websocket && (upstream_http2 == UpstreamHttp2::always ||
                           (upstream_http2 == UpstreamHttp2::client && s.conn.http2));
    for (int attempt = 0; attempt < 2; ++attempt) {
        auto up = co_await acquire_upstream(
            s.ctx, s.worker.pool, plan.host, plan.port, plan.upstream_tls,
            s.tunnel ? &s.tunnel->endpoints : nullptr, attempt == 0, offer_h2);
        if (!up.connection) {
            if (!up.refusal.allowed && up.refusal.refused_by) {
                if (close_on_refusal) ex.client_keep = false;
                co_return co_await refuse(s.stream, ex, http::status::forbidden,
                                          *up.refusal.refused_by, up.refusal.detail);
            }
            co_return co_await fail(s.stream, ex, up.error.value_or(ErrorKind::upstream_connect),
                                    up.detail);
        }
        auto& connection = *up.connection;
        const ForwardResult result = co_await connection.visit([&](auto& upstream_stream) {
            using Up = std::decay_t<decltype(upstream_stream)>;
            return forward(
                ExchangeLeg<Stream, Up>{ex, s.stream, s.buffer, connection, upstream_stream, out},
                plan.mcp, plan.mcp_host);
        });
        if (result.retry && attempt == 0) continue;
        if (result.retry)
            co_return co_await fail(s.stream, ex, ErrorKind::upstream_reset,
                                    "the upstream closed the connection");
        if (result.upstream_reusable) s.worker.pool.put(std::move(up.connection));
        co_return result.client_keep;
    }
    co_return false;
}

} // namespace

template <class Stream>
asio::awaitable<bool> handle_request(ClientSession<Stream>& s, RequestHead& head) {
    auto& ctx = s.ctx;
    auto& req = head.get();
    Exchange ex(ctx, s.conn, std::string(req.method_string()));
    ex.client_version = req.version() == 10 ? 10 : 11;
    // Without a body left unread the connection stays usable even after a refusal.
    ex.client_keep = req.keep_alive() && !ctx.draining.load();

    // What the head says, read before its hop-by-hop fields go.
    auto facts = request_facts(head, s.tunnel, ex.client_version);
    const bool has_body = facts.has_body();
    OutgoingRequest out;
    out.head = req.method() == http::verb::head;
    out.websocket = is_websocket_request(req);
    const bool expect_continue = beast::iequals(req[http::field::expect], "100-continue");
    req.erase(http::field::expect);
    strip_hop_by_hop(req.base(), out.websocket);
    auto secret_store = ctx.secrets->snapshot(); // names and placeholders never change
    facts.carries_placeholder = [&] { return secret_store->has_placeholder(req.base()); };

    // Admitted or refused: every rule about the request itself is in admit().
    // The rules in force now; held until the request ends (plan.mcp points into them).
    const auto rules = ctx.rules();
    auto admitted =
        admission::admit({rules->policy, rules->mcp_policies, ctx.mcp_endpoints.get()}, facts);
    ex.rec.policy = rules->generation;
    record_destination(ex.rec, std::move(admitted.logged));
    if (const auto* refusal = admitted.refusal()) {
        if (refusal->close_client) ex.client_keep = false;
        co_return co_await refuse(s.stream, ex, refusal->status, refusal->reason, refusal->detail);
    }
    const auto& plan = admitted.plan();

    // The request as it goes upstream.
    // One Content-Length, as parsed: equal duplicates ("5, 5") reach the upstream as one.
    if (head.content_length())
        req.set(http::field::content_length, std::to_string(*head.content_length()));
    // Secrets: where each placeholder goes, or a refusal (secret_placing.hpp).
    PlacedRequest placed;
    if (auto done = co_await place_in_head(s, ex, req, plan, has_body, secret_store, placed))
        co_return *done;
    req.target(placed.target);
    if (plan.host_field) req.set(http::field::host, *plan.host_field);
    req.version(11);
    std::optional<secrets::sigv4::ChunkSigning> aws_chunks;
    bool aws_hash_body = false; // signed again once the body is read and hashed
    if (plan.substitute_secrets && !ctx.config.aws.empty()) {
        auto resigned = resign_aws_request(ctx.config.aws, req.base(), plan.host, has_body);
        aws_hash_body = resigned.needs_body_hash;
        if (resigned.keys) log_secret_used(ex.rec, resigned.keys->name);
        if (resigned.refused) {
            ex.client_keep = ex.client_keep && !has_body;
            co_return co_await refuse(s.stream, ex, http::status::forbidden, *resigned.refused,
                                      resigned.detail);
        }
        // A signature made with the real key is a credential for that request.
        if ((resigned.changes() || aws_hash_body) && !plan.upstream_tls) {
            ex.client_keep = ex.client_keep && !has_body;
            co_return co_await refuse(s.stream, ex, http::status::forbidden,
                                      RefusalReason::secret_cleartext,
                                      "an AWS request is signed again only on https:// requests");
        }
        aws_chunks = std::move(resigned.chunks);
    }
    // A body read whole is framed again by Content-Length: chunked must have been
    // its one coding (MCP's is checked at admission).
    if ((aws_hash_body || placed.needs_body) && other_transfer_coding(head.get())) {
        ex.client_keep = false;
        co_return co_await refuse(s.stream, ex, http::status::bad_request,
                                  RefusalReason::bad_request,
                                  "a transfer coding other than chunked on a body the proxy "
                                  "reads whole (a secret may go into it, or it is signed by its "
                                  "hash)");
    }
    if (expect_continue && has_body) {
        http::response<http::empty_body> cont{http::status::continue_, 11};
        expire_in(s.stream, ctx.config.limits().idle_timeout);
        co_await write_whole(s.stream, cont, {}, true);
    }
    if (plan.mcp) {
        if (auto done =
                co_await read_mcp_request(s, ex, head, *plan.mcp, plan.target, has_body, out))
            co_return *done;
    } else if (aws_hash_body) {
        // An AWS signature covers the body as the sandbox sent it: it is hashed
        // and signed again as it is, never written into.
        if (auto done = co_await read_aws_signed_body(s, ex, head, plan.host, out)) co_return *done;
    } else if (placed.needs_body) {
        if (auto done = co_await place_in_body(s, ex, head, plan, placed, out)) co_return *done;
    } else if (has_body) {
        stream_body(out, std::move(head), std::move(aws_chunks));
    } else {
        out.buffered.emplace(std::move(head.release().base()));
    }

    // A WebSocket lives as long as its relay: a revoke of its host ends it.
    if (out.websocket && !s.tunnel) s.registration.set_destination(plan.host, plan.port);
    co_return co_await forward_on_upstream(s, ex, plan, out, has_body);
}

template asio::awaitable<bool> handle_request(ClientSession<beast::tcp_stream>&, RequestHead&);
template asio::awaitable<bool> handle_request(ClientSession<TlsStream>&, RequestHead&);
template asio::awaitable<bool> handle_request(ClientSession<H2StreamChannel>&, RequestHead&);

} // namespace osf::net
