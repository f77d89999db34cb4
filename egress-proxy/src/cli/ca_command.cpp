#include "cli/ca_command.hpp"

#include "cli/exit_codes.hpp"
#include "osf/proxy_state.hpp"

#include <filesystem>
#include <fstream>
#include <iostream>

namespace osf::cli {

namespace {

int print_file(const std::filesystem::path& path, const char* what) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        std::cerr << "egress-proxy: no " << what << " at " << path.string()
                  << " (is the proxy running with this --state-dir?)\n";
        return exit_failure;
    }
    std::cout << in.rdbuf();
    std::cout.flush();
    return exit_ok;
}

} // namespace

CaCommand::CaCommand(CLI::App& app, std::string& state_dir) : state_dir_(state_dir) {
    ca_ = app.add_subcommand(
        "ca", "Print the running proxy's CA certificate (PEM), or its egress log key");
    ca_->add_option("--state-dir", state_dir_, "The proxy's state directory")
        ->capture_default_str();
    auto* only = ca_->add_flag("--log-key", log_key_only_,
                               "Print the egress log's public key (log-key.pub) instead");
    ca_->add_flag("--with-log-key", with_log_key_,
                  "Print the CA certificate, then the egress log's public key")
        ->excludes(only);
}

std::optional<int> CaCommand::run() const {
    if (!ca_->parsed()) return std::nullopt;
    const std::filesystem::path state_dir(state_dir_);
    if (log_key_only_) return print_file(state_dir / proxy_state::log_key, "egress log key");
    const int printed = print_file(state_dir / proxy_state::ca_certificate, "CA certificate");
    if (printed != exit_ok || !with_log_key_) return printed;
    return print_file(state_dir / proxy_state::log_key, "egress log key");
}

} // namespace osf::cli
