// Small, socket-free helpers for the HTTP messages the proxy relays and the
// answers it gives itself.
#pragma once

#include "admission/answer_framing.hpp"

#include <boost/beast/http/fields.hpp>
#include <boost/beast/http/message.hpp>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>

namespace osf::net {

// Removes hop-by-hop headers (RFC 9110 7.6.1), the ones named in Connection
// included, and fields whose '_' spelling stands for one of them or for a
// framing field ("Transfer_Encoding"). With `keep_upgrade` the WebSocket
// handshake headers stay.
void strip_hop_by_hop(boost::beast::http::fields& fields, bool keep_upgrade);

// Writes the framing admission::frame_answer decided into an answer head: exactly
// one of `Transfer-Encoding: chunked` and `Content-Length` (`content_length`, as
// parsed), or neither; whatever framing fields the upstream wrote are gone.
void apply_answer_framing(boost::beast::http::response_header<>& head,
                          const admission::AnswerFraming& framing,
                          std::optional<std::uint64_t> content_length);

// The text body of a refusal: "egress-proxy refused <host>: <detail>\n".
std::string refusal_body(std::string_view host, std::string_view detail);

// True when the request asks for any protocol upgrade: an Upgrade field (any
// token list), "upgrade" among the Connection tokens, or HTTP2-Settings (h2c).
bool asks_for_upgrade(const boost::beast::http::fields& fields);

// True when the fields name exactly one protocol to switch to, and it is
// WebSocket: "upgrade" among the Connection tokens (requests only), one
// Upgrade field whose whole value is "websocket" (any case), no HTTP2-Settings.
// "Upgrade: h2c, websocket" is not: the upstream may pick h2c, whose frames the
// proxy never reads. A request asking for anything else goes up as a plain
// request (Upgrade and HTTP2-Settings dropped); a 101 naming anything else is
// refused.
bool is_websocket_request(const boost::beast::http::fields& fields);
bool is_websocket_switch(const boost::beast::http::fields& fields);

// True when a Transfer-Encoding is present and is anything but one field
// "chunked". A body the proxy reads whole and frames again by Content-Length
// must have had chunked as its only coding: with a coding on top ("gzip,
// chunked") or chunked said twice, Beast's prepare_payload leaves a
// Transfer-Encoding beside the Content-Length it sets, and the other side gets
// two framings, the disagreement request smuggling needs.
bool other_transfer_coding(const boost::beast::http::fields& fields);

// Beast adds the trailer fields of a chunked body to the message it parses the
// body into (after the head was checked). Once a whole body has been read that
// way: puts back `checked`, the head as it was before the read, and says
// whether trailer fields had been added.
template <bool isRequest, class Body>
bool restore_checked_head(boost::beast::http::message<isRequest, Body>& message,
                          boost::beast::http::header<isRequest>&& checked) {
    const auto count = [](const boost::beast::http::fields& f) {
        return std::distance(f.begin(), f.end());
    };
    const bool trailers = count(message.base()) != count(checked);
    message.base() = std::move(checked);
    return trailers;
}

inline constexpr std::string_view refused_by_header = "X-Osf-Refused-By";

} // namespace osf::net
