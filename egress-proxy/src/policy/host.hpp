// Host names and addresses as the proxy will connect to them. Pure.
#pragma once

#include <boost/asio/ip/address.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace osf::policy {

// A destination host in canonical form: lower case, no trailing dot, IPv6
// without brackets; an IPv4 literal in any form inet_aton accepts (decimal
// "2130706433", octal "0177.0.0.1", hex "0x7f.1") becomes dotted quad.
// Returns nullopt for anything that is not a valid DNS name or IP literal
// (empty labels, non-ASCII, '_' outside labels, userinfo, spaces, ...).
// Punycode ("xn--...") is a valid DNS name and is kept as is.
std::optional<std::string> canonical_host(std::string_view raw);

// The IP address a canonical host names, if it is a literal.
std::optional<boost::asio::ip::address> host_as_address(std::string_view canonical);

// Splits "host:port", "[v6]:port", "host" (port = default_port). Returns
// nullopt on a bad port (0, > 65535, not digits) or an empty host. The host is
// returned as written (not yet canonical).
struct HostPort {
    std::string host;
    std::uint16_t port;
};
std::optional<HostPort> split_host_port(std::string_view authority, std::uint16_t default_port);

} // namespace osf::policy
