// Host names and addresses as the proxy will connect to them. Pure.
#pragma once

#include <boost/asio/ip/address.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace osf::hosts {

// A destination host in canonical form: lower case, no trailing dot, IPv6
// without brackets; an IPv4 literal in any form inet_aton accepts (decimal
// "2130706433", octal "0177.0.0.1", hex "0x7f.1") becomes dotted quad.
// Returns nullopt for anything that is not a valid DNS name or IP literal
// (empty labels, labels over 63 or names over 253 characters, characters
// outside [a-z0-9-] in a name, '_' included, non-ASCII, userinfo, spaces,
// IPv6 zone ids, a last label that is numeric but not a valid IPv4 address).
// Punycode ("xn--...") is a valid DNS name and is kept as is.
std::optional<std::string> canonical_host(std::string_view raw);

// The IP address a canonical host names, if it is a literal.
std::optional<boost::asio::ip::address> host_as_address(std::string_view canonical);

// Splits "host:port", "[v6]:port", "host" (port = default_port). Returns
// nullopt on a bad port (0, > 65535, not digits, empty after ':'), an empty
// host or an unbracketed IPv6 address. The host is returned as written (not
// yet canonical; an IPv6 literal keeps its brackets).
struct HostPort {
    std::string host;
    std::uint16_t port;
};
std::optional<HostPort> split_host_port(std::string_view authority, std::uint16_t default_port);

} // namespace osf::hosts
