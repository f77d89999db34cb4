// "host:port" as URLs, Host headers and the proxy's log write it: an IPv6
// literal in brackets. One spelling for the proxy, its secret sources and
// the CLIs.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace osf {

// "[::1]" for an IPv6 literal (a host with a colon), the host unchanged otherwise.
std::string bracketed_host(std::string_view host);

std::string host_port(std::string_view host, std::string_view port);
std::string host_port(std::string_view host, std::uint16_t port);

} // namespace osf
