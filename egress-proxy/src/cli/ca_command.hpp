// egress-proxy's `ca` subcommand: print the running proxy's CA certificate
// (what a sandbox must trust), or its egress log key, from the state dir.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

namespace osf::cli {

class CaCommand {
public:
    // Adds `ca` to `app`; `state_dir` is the proxy's --state-dir, shared with
    // the other subcommands.
    CaCommand(CLI::App& app, std::string& state_dir);

    // The exit code when `ca` was given, else nullopt.
    std::optional<int> run() const;

private:
    std::string& state_dir_;
    CLI::App* ca_ = nullptr;
    bool log_key_only_ = false;
    bool with_log_key_ = false;
};

} // namespace osf::cli
