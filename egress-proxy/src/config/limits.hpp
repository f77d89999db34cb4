// The proxy's resource limits: sizes and timeouts, each set by a flag.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>

namespace osf::config {

// Defaults are documented in egress-proxy/README.md; each has a flag.
struct Limits {
    std::size_t max_header_bytes = 64 * 1024;
    std::size_t max_mcp_message_bytes = 4 * 1024 * 1024;
    std::size_t max_connections = 20000;
    std::chrono::seconds header_timeout{30}; // first request head of a connection
    std::chrono::seconds idle_timeout{300};  // keep-alive wait and any stalled body transfer
    std::chrono::seconds upstream_timeout{
        30}; // DNS + connect + TLS handshake, and the response head
    // HTTP/2: streams a client connection may have open at once (the
    // SETTINGS_MAX_CONCURRENT_STREAMS the proxy advertises).
    std::uint32_t h2_max_streams = 100;

    // The most a connection's read buffer (client or upstream) ever holds: a
    // head and one read past it. A chunk-size line (with its extensions) or a
    // trailer section must fit in it too, which Beast's header_limit does not
    // cover; past it the read fails (http::error::buffer_overflow).
    std::size_t read_buffer_bytes() const { return max_header_bytes + 64 * 1024; }
};

} // namespace osf::config
