#include "osf/host_port.hpp"

namespace osf {

std::string bracketed_host(std::string_view host) {
    if (host.find(':') == std::string_view::npos) return std::string(host);
    return "[" + std::string(host) + "]";
}

std::string host_port(std::string_view host, std::string_view port) {
    return bracketed_host(host) + ":" + std::string(port);
}

std::string host_port(std::string_view host, std::uint16_t port) {
    return host_port(host, std::to_string(port));
}

} // namespace osf
