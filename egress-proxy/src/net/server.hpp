// The proxy server: CA, egress log, listeners and worker threads, started
// from a validated configuration and stopped by SIGTERM or SIGINT.
#pragma once

#include "config/proxy_config.hpp"

#include <memory>

namespace osf::net {

class ProxyServer {
public:
    // Makes the CA, writes <state-dir>/ca.crt, opens the log and binds both
    // listeners. Throws std::runtime_error with one line on failure.
    explicit ProxyServer(const config::ProxyConfig& config);
    ~ProxyServer();

    // Serves until SIGTERM/SIGINT, drains, returns the exit code (0).
    int run();

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

} // namespace osf::net
