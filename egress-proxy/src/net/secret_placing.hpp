// The request path's side of secret placement (secrets/secret_placement.hpp
// decides): gathers the facts of a request, asks, and applies the answer to
// the head, the target and, when a bound secret may go into it, the body,
// which is then read whole (within --max-mcp-message-bytes) and sent with its
// Content-Length recomputed. A body the proxy would read for a secret but
// cannot read whole (over the bound, trailer fields) is refused: a body is
// never sent half substituted.
#pragma once

#include "admission/request_admission.hpp"
#include "net/body_relay.hpp"
#include "net/exchange.hpp"
#include "net/forwarding.hpp"
#include "net/http_messages.hpp"
#include "net/local_reply.hpp"
#include "net/proxy_runtime.hpp"
#include "net/session_types.hpp"
#include "secrets/secret_placement.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/beast/http.hpp>
#include <optional>
#include <string>
#include <vector>

namespace osf::net {

// What the request path keeps of a placement: the target to send.
struct PlacedRequest {
    std::string target;
    bool needs_body = false; // read the body whole and call place_in_body
};

namespace secret_placing {

namespace http = boost::beast::http;

inline std::vector<secrets::RequestField> fields_of(const http::fields& fields) {
    std::vector<secrets::RequestField> out;
    for (const auto& field : fields)
        out.push_back({field.name_string(), field.value()});
    return out;
}

inline secrets::PlacementRequest facts(const admission::Plan& plan,
                                       std::span<const secrets::RequestField> head,
                                       secrets::BodyKind body) {
    secrets::PlacementRequest request;
    request.host = plan.host;
    request.port = plan.port;
    request.in_egress = plan.substitute_secrets;
    request.upstream_tls = plan.upstream_tls;
    request.target = plan.target;
    request.head = head;
    request.body_kind = body;
    return request;
}

inline bool uses_file_secret(const secrets::Placement& placement,
                             const secrets::SecretStore& store) {
    for (const auto& secret : store.secrets())
        if (!secret.file.empty() &&
            std::binary_search(placement.names.begin(), placement.names.end(), secret.name))
            return true;
    return false;
}

// Places with the store in force; when a file secret is about to be
// written, with its file looked at first (it may have been rotated).
inline secrets::Placement place(ProxyRuntime& ctx, const secrets::PlacementRequest& request,
                                std::shared_ptr<const secrets::SecretStore>& store) {
    auto placement = secrets::place_secrets(request, store->secrets());
    if (placement.refusal || !uses_file_secret(placement, *store)) return placement;
    auto now = ctx.secrets->current();
    if (now == store) return placement;
    store = std::move(now);
    return secrets::place_secrets(request, store->secrets());
}

// Puts the placement into `fields` and remembers its forms. Returns the
// refusal's status and text when it cannot go.
struct Applied {
    std::optional<http::status> status;
    RefusalReason reason = RefusalReason::limit;
    std::string detail;
};
inline Applied apply(ProxyRuntime& ctx, Exchange& ex, http::fields& fields,
                     secrets::Placement& placement) {
    if (placement.refusal)
        return {http::status::forbidden, placement.refusal->reason, placement.refusal->detail};
    if (placement.head) {
        // Placeholders are short and values may be long: the head that goes up is
        // bounded too (twice --max-header-bytes), and no field outgrows Beast's.
        const auto too_large = secrets::SecretStore::head_too_large(
            *placement.head, 2 * ctx.config.limits().max_header_bytes);
        if (!too_large.empty())
            return {http::status::request_header_fields_too_large, RefusalReason::limit, too_large};
    }
    // Remembered before anything is sent: an answer to any later request may echo them.
    if (!ctx.written_forms.remember(placement.written))
        return {http::status::request_header_fields_too_large, RefusalReason::limit,
                "more distinct forms of secrets than the proxy keeps masked for a sandbox"};
    if (placement.head) {
        fields.clear(); // keeps the start line
        for (const auto& [name, value] : *placement.head)
            fields.insert(name, value);
    }
    ex.rec.secrets = std::move(placement.names);
    return {};
}

} // namespace secret_placing

// The head and target: placed now, unless a body must be read first (then
// nothing is changed yet). Returns the refusal answered, if any (whether the
// client connection may go on).
template <class Stream>
boost::asio::awaitable<std::optional<bool>>
place_in_head(ClientSession<Stream>& s, Exchange& ex,
              boost::beast::http::request<boost::beast::http::empty_body>& req,
              const admission::Plan& plan, bool has_body,
              std::shared_ptr<const secrets::SecretStore> store, PlacedRequest& placed) {
    namespace sp = secret_placing;
    namespace http = boost::beast::http;
    placed.target = plan.target;
    if (store->empty()) co_return std::nullopt; // most sandboxes: nothing to look for
    const auto head = sp::fields_of(req.base());
    // MCP messages are read and judged by the MCP filter: never a place for secrets.
    const auto body = !has_body  ? secrets::BodyKind::none
                      : plan.mcp ? secrets::BodyKind::other
                                 : secrets::body_kind(req[http::field::content_type],
                                                      req[http::field::content_encoding]);
    auto placement = sp::place(s.ctx, sp::facts(plan, head, body), store);
    if (!placement.refusal && placement.needs_body) {
        placed.needs_body = true;
        co_return std::nullopt;
    }
    if (placement.target) placed.target = *placement.target;
    const auto applied = sp::apply(s.ctx, ex, req.base(), placement);
    if (!applied.status) co_return std::nullopt;
    if (has_body) ex.client_keep = false; // its body is left unread
    co_return co_await refuse(s.stream, ex, *applied.status, applied.reason, applied.detail);
}

// The body a bound secret may go into: read whole, then everything placed
// at once. On success the request is in `out.buffered`.
template <class Stream>
boost::asio::awaitable<std::optional<bool>>
place_in_body(ClientSession<Stream>& s, Exchange& ex,
              boost::beast::http::request_parser<boost::beast::http::empty_body>& head,
              const admission::Plan& plan, PlacedRequest& placed, OutgoingRequest& out) {
    namespace sp = secret_placing;
    namespace http = boost::beast::http;
    auto& ctx = s.ctx;
    const std::size_t limit = ctx.config.limits().max_mcp_message_bytes;
    const std::string too_large = "a body a secret may go into is over " + std::to_string(limit) +
                                  " bytes (--max-mcp-message-bytes): the proxy reads such a "
                                  "body whole or not at all";
    if (head.content_length() && *head.content_length() > limit) {
        ex.client_keep = false;
        co_return co_await refuse(s.stream, ex, http::status::payload_too_large,
                                  RefusalReason::limit, too_large);
    }
    http::request_parser<http::string_body> parser{std::move(head)};
    parser.body_limit(limit);
    auto checked_head = parser.get().base();
    expire_in(s.stream, ctx.config.limits().idle_timeout);
    auto [ec, n] = co_await http::async_read(s.stream, s.buffer, parser, use_tuple);
    (void)n;
    if (ec == http::error::body_limit) {
        ex.client_keep = false;
        co_return co_await refuse(s.stream, ex, http::status::payload_too_large,
                                  RefusalReason::limit, too_large);
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
    auto message = parser.release();
    if (restore_checked_head(message, std::move(checked_head)))
        co_return co_await refuse(s.stream, ex, http::status::bad_request,
                                  RefusalReason::bad_request,
                                  "trailer fields on a body a secret may go into");
    auto store = ctx.secrets->snapshot();
    const auto fields = sp::fields_of(message.base());
    auto request = sp::facts(plan, fields,
                             secrets::body_kind(message[http::field::content_type],
                                                message[http::field::content_encoding]));
    request.body = &message.body();
    auto placement = sp::place(ctx, request, store);
    if (placement.target) placed.target = *placement.target;
    std::optional<std::string> body = std::move(placement.body);
    const auto applied = sp::apply(ctx, ex, message.base(), placement);
    if (applied.status)
        co_return co_await refuse(s.stream, ex, *applied.status, applied.reason, applied.detail);
    if (body) message.body() = std::move(*body);
    message.target(placed.target);
    message.prepare_payload(); // Content-Length of the body as sent; chunked no more
    out.buffered.emplace(std::move(message));
    co_return std::nullopt;
}

} // namespace osf::net
