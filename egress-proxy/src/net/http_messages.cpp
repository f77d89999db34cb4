#include "net/http_messages.hpp"

#include "text/ascii.hpp"

#include <algorithm>
#include <boost/beast/core/string.hpp>
#include <boost/beast/http/field.hpp>
#include <vector>

namespace osf::net {

namespace http = boost::beast::http;

namespace {
using text::lower;
using text::trim;

// "Transfer_Encoding" read as "transfer-encoding": a field some servers (and
// CGI-style gateways) take for that framing or hop-by-hop field. Dropped, as
// nginx drops field names with '_' by default.
bool is_underscore_lookalike(std::string_view name) {
    if (name.find('_') == std::string_view::npos) return false;
    std::string dashed = lower(name);
    std::replace(dashed.begin(), dashed.end(), '_', '-');
    static constexpr std::string_view guarded[] = {"content-length",
                                                   "transfer-encoding",
                                                   "connection",
                                                   "keep-alive",
                                                   "proxy-connection",
                                                   "proxy-authorization",
                                                   "proxy-authenticate",
                                                   "te",
                                                   "trailer",
                                                   "upgrade",
                                                   "host",
                                                   "expect",
                                                   "http2-settings"};
    return std::find(std::begin(guarded), std::end(guarded), dashed) != std::end(guarded);
}

// Whether `fields` holds anything strip_hop_by_hop removes. One pass over the
// fields by their parsed names: most messages hold none, and each erase by
// name below is a case-insensitive lookup of its own.
bool has_hop_by_hop(const http::fields& fields) {
    for (const auto& f : fields) {
        switch (f.name()) {
        case http::field::connection:
        case http::field::keep_alive:
        case http::field::proxy_connection:
        case http::field::proxy_authorization:
        case http::field::proxy_authenticate:
        case http::field::te:
        case http::field::trailer:
        case http::field::upgrade:
            return true;
        case http::field::unknown:
            if (f.name_string().find('_') != std::string_view::npos) return true;
            break;
        default:
            break;
        }
    }
    return false;
}
} // namespace

void apply_answer_framing(http::response_header<>& head, const admission::AnswerFraming& framing,
                          std::optional<std::uint64_t> content_length) {
    using admission::AnswerBody;
    // Most answers already carry exactly the framing decided (one Content-Length
    // the parser read, or one `chunked`, and no other framing field): left as they are.
    const auto codings = head.count(http::field::transfer_encoding);
    const auto lengths = head.count(http::field::content_length);
    if ((framing.body == AnswerBody::length && codings == 0 && lengths == 1) ||
        (framing.body == AnswerBody::chunked && codings == 1 && lengths == 0 &&
         text::iequals(head[http::field::transfer_encoding], "chunked")))
        return;
    head.erase(http::field::transfer_encoding);
    head.erase(http::field::content_length);
    switch (framing.body) {
    case AnswerBody::none:
        if (framing.keep_chunked)
            head.set(http::field::transfer_encoding, "chunked");
        else if (framing.keep_content_length && content_length)
            head.set(http::field::content_length, std::to_string(*content_length));
        break;
    case AnswerBody::chunked:
        head.set(http::field::transfer_encoding, "chunked");
        break;
    case AnswerBody::length:
        head.set(http::field::content_length, std::to_string(content_length.value_or(0)));
        break;
    case AnswerBody::close:
        break;
    }
}

void strip_hop_by_hop(http::fields& fields, bool keep_upgrade) {
    // Nothing to do (fields a Connection header names go only when there is one);
    // keep_upgrade always writes its own Connection header below.
    if (!keep_upgrade && !has_hop_by_hop(fields)) return;
    std::vector<std::string> named;
    for (auto it = fields.find(http::field::connection);
         it != fields.end() && it->name() == http::field::connection; ++it) {
        std::string_view value = it->value();
        while (!value.empty()) {
            const auto comma = value.find(',');
            const auto token = lower(trim(value.substr(0, comma)));
            // Framing fields and Host are never dropped because Connection names them:
            // without them the body would go out unframed, and its bytes could be read
            // upstream as a request the proxy never checked (request smuggling).
            const bool protected_field =
                token == "content-length" || token == "transfer-encoding" || token == "host";
            if (!token.empty() && token != "close" && token != "keep-alive" && !protected_field &&
                !(keep_upgrade && token == "upgrade"))
                named.push_back(token);
            value = comma == std::string_view::npos ? std::string_view() : value.substr(comma + 1);
        }
    }
    for (const auto& f : fields)
        if (f.name() == http::field::unknown && is_underscore_lookalike(f.name_string()))
            named.emplace_back(f.name_string());
    for (const auto& name : named)
        fields.erase(name);
    fields.erase(http::field::connection);
    fields.erase(http::field::keep_alive);
    fields.erase(http::field::proxy_connection);
    fields.erase(http::field::proxy_authorization);
    fields.erase(http::field::proxy_authenticate);
    fields.erase(http::field::te);
    fields.erase(http::field::trailer);
    fields.erase(http::field::http2_settings); // only for an h2c upgrade, never forwarded
    if (keep_upgrade) {
        fields.set(http::field::connection, "Upgrade");
    } else {
        fields.erase(http::field::upgrade);
    }
}

bool beast_iequals(std::string_view a, std::string_view b) {
    return boost::beast::iequals(a, b);
}

bool other_transfer_coding(const http::fields& fields) {
    const auto count = fields.count(http::field::transfer_encoding);
    return count > 1 ||
           (count == 1 && !text::iequals(trim(fields[http::field::transfer_encoding]), "chunked"));
}

bool asks_for_upgrade(const http::fields& fields) {
    for (const auto& f : fields) {
        if (f.name() == http::field::upgrade || f.name() == http::field::http2_settings)
            return true;
        if (f.name() == http::field::unknown && beast_iequals(f.name_string(), "HTTP2_Settings"))
            return true;
        if (f.name() != http::field::connection) continue;
        std::string_view value = f.value();
        while (!value.empty()) {
            const auto comma = value.find(',');
            if (lower(trim(value.substr(0, comma))) == "upgrade") return true;
            value = comma == std::string_view::npos ? std::string_view() : value.substr(comma + 1);
        }
    }
    return false;
}

namespace {

bool upgrade_is_exactly_websocket(const http::fields& fields) {
    if (fields.count(http::field::upgrade) != 1 || fields.count(http::field::http2_settings) != 0)
        return false;
    for (const auto& f : fields)
        if (f.name() == http::field::unknown && beast_iequals(f.name_string(), "HTTP2_Settings"))
            return false;
    return lower(trim(fields[http::field::upgrade])) == "websocket";
}

} // namespace

bool is_websocket_request(const http::fields& fields) {
    if (!upgrade_is_exactly_websocket(fields)) return false;
    for (auto it = fields.find(http::field::connection);
         it != fields.end() && it->name() == http::field::connection; ++it) {
        std::string_view value = it->value();
        while (!value.empty()) {
            const auto comma = value.find(',');
            if (lower(trim(value.substr(0, comma))) == "upgrade") return true;
            value = comma == std::string_view::npos ? std::string_view() : value.substr(comma + 1);
        }
    }
    return false;
}

bool is_websocket_switch(const http::fields& fields) {
    return upgrade_is_exactly_websocket(fields);
}

std::string refusal_body(std::string_view host, std::string_view detail) {
    std::string body = "egress-proxy refused ";
    body.append(host.empty() ? std::string_view("the request") : host);
    body.append(": ");
    body.append(detail);
    body.push_back('\n');
    return body;
}

} // namespace osf::net
