// What the forwarding code shares: the request as it goes upstream, the two
// streams of one exchange, and how forwarding ended.
#pragma once

#include "net/exchange.hpp"
#include "net/upstream.hpp"

#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace osf::net {

// The request as the proxy forwards it: buffered (no body, or an MCP message)
// or streamed from the client.
struct OutgoingRequest {
    std::optional<boost::beast::http::request<boost::beast::http::string_body>> buffered;
    std::optional<boost::beast::http::request_parser<boost::beast::http::buffer_body>> streamed;
    bool head = false;
    bool websocket = false;
    // Rewrites the streamed body (AWS chunk signatures); when it refuses,
    // `body_refusal` holds why (no secret) and the body goes no further.
    std::function<bool(std::string_view, bool, std::string&)> body_transform;
    std::string body_refusal;
};

struct ForwardResult {
    bool retry = false; // a reused upstream connection failed before any answer
    bool client_keep = false;
    bool upstream_reusable = false;
};

// One exchange between its client stream and its upstream stream.
template <class Client, class Up> struct ExchangeLeg {
    Exchange& ex;
    Client& client;
    boost::beast::flat_buffer& client_buffer; // bytes read past the request head
    UpstreamConnection& conn;                 // its buffer: bytes read past the answer head
    Up& up;                                   // conn's stream
    OutgoingRequest& out;
};

} // namespace osf::net
