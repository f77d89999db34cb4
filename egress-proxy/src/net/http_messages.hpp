// Small, socket-free helpers for the HTTP messages the proxy relays and the
// answers it gives itself.
#pragma once

#include <boost/beast/http/fields.hpp>
#include <string>
#include <string_view>

namespace osf::net {

// Removes hop-by-hop headers (RFC 9110 7.6.1), the ones named in Connection
// included. With `keep_upgrade` the WebSocket handshake headers stay.
void strip_hop_by_hop(boost::beast::http::fields& fields, bool keep_upgrade);

// The text body of a refusal: "egress-proxy refused <host>: <detail>\n".
std::string refusal_body(std::string_view host, std::string_view detail);

// "text/event-stream; charset=utf-8" -> "text/event-stream" (lower case).
std::string media_type(std::string_view content_type);

// True when a Content-Encoding value means the body is not plain bytes.
bool is_encoded(std::string_view content_encoding);

inline constexpr std::string_view refused_by_header = "X-Osf-Refused-By";

} // namespace osf::net
