// The HTTP CONNECT exchange of `sandbox-local __connect HOST PORT`, the
// ProxyCommand of a local sandbox's ssh: the request it sends the proxy and
// the reading of the proxy's answer. Pure.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace osf::local {

// Why `host` and `port` cannot be a CONNECT target (a one-line message), or
// nothing: a name or address without spaces, control characters, '/' or '@';
// a port from 1 to 65535 in decimal digits.
std::optional<std::string> connect_target_problem(std::string_view host, std::string_view port);

// "CONNECT host:port HTTP/1.1" and its Host header; an IPv6 literal in brackets.
std::string connect_request(std::string_view host, std::string_view port);

struct ConnectAnswer {
    int status = 0;     // 0: not an HTTP status line
    std::string reason; // the status line's text, for the message
};

// The proxy's answer once `head` holds it up to its blank line, or nothing
// while it does not yet.
std::optional<ConnectAnswer> parse_connect_answer(std::string_view head);

} // namespace osf::local
