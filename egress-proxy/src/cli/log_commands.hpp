// egress-proxy's `log` subcommands: print or follow the log, verify its chain
// and checkpoints, summarise it for a reviewer (as text, JSON or an HTML
// report), ask the running proxy for a checkpoint. The checks themselves are contracts/egress_log
// (pure); this is the file and process handling around them.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

namespace osf::cli {

class LogCommands {
public:
    // Adds `log` (and its subcommands) to `app`; `state_dir` is the proxy's
    // --state-dir, shared with the other subcommands.
    LogCommands(CLI::App& app, std::string& state_dir);

    // The exit code when a `log` command was given, else nullopt.
    std::optional<int> run() const;

private:
    std::string& state_dir_;
    CLI::App* log_ = nullptr;
    CLI::App* verify_ = nullptr;
    CLI::App* summary_ = nullptr;
    CLI::App* report_ = nullptr;
    CLI::App* suggest_ = nullptr;
    CLI::App* checkpoint_ = nullptr;
    bool follow_ = false;
    bool raw_ = false;
    std::string file_;
    std::string pubkey_;
    std::string output_;
    bool json_ = false;
    bool require_final_ = false;
    int timeout_seconds_ = 10;
};

} // namespace osf::cli
