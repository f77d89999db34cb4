// egress-proxy's `policy` subcommand: hand the running proxy a new spec (read
// on stdin) through its admin port's POST /policy, with the token from the
// state directory, and print its answer. For whoever runs beside the proxy
// (sandbox-kubernetes, through kubectl exec into the egress pod): the admin
// port and the token never leave the proxy's own machine or pod.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

namespace osf::cli {

class PolicyCommand {
public:
    // Adds `policy` to `app`; `state_dir` is the proxy's --state-dir, shared
    // with the other subcommands.
    PolicyCommand(CLI::App& app, std::string& state_dir);

    // The exit code when `policy` was given, else nullopt.
    std::optional<int> run() const;

private:
    std::string& state_dir_;
    CLI::App* policy_ = nullptr;
    std::string by_;
    int timeout_seconds_ = 30;
};

} // namespace osf::cli
