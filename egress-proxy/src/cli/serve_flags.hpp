// The flags of egress-proxy itself (no subcommand), bound one concern at a
// time: what it serves and where, size limits, HTTP/2, timeouts, the egress
// log. --help lists them in that order.
#pragma once

#include "config/proxy_config.hpp"

#include <CLI/CLI.hpp>
#include <string>

namespace osf::cli {

class ServeFlags {
public:
    // Adds the flags to `app`, with the defaults of ProxyOptions (and
    // OSF_STATE_DIR's, given as `state_dir` when set).
    ServeFlags(CLI::App& app, const std::string* state_dir);

    // The --state-dir the subcommands share.
    std::string& state_dir() { return options_.state_dir; }

    // After parsing: the options the flags name.
    config::ProxyOptions options() const;
    const std::string& log_level() const { return log_level_; }

private:
    void add_serving(CLI::App& app);
    void add_size_limits(CLI::App& app);
    void add_http2(CLI::App& app);
    void add_timeouts(CLI::App& app);
    void add_egress_log(CLI::App& app);

    config::ProxyOptions options_;
    // Seconds and words as written, turned into options_'s types by options().
    long long grace_ = options_.grace.count();
    long long header_timeout_ = options_.limits.header_timeout.count();
    long long idle_timeout_ = options_.limits.idle_timeout.count();
    long long upstream_timeout_ = options_.limits.upstream_timeout.count();
    long long checkpoint_seconds_ = options_.checkpoint_interval.count();
    std::string http2_ = "on";
    std::string upstream_http2_ = "client";
    bool log_every_refusal_ = false;
    std::string log_level_ = "info";
};

} // namespace osf::cli
