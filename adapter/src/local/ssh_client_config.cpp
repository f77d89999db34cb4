#include "local/ssh_client_config.hpp"

namespace osf::local {

std::string ssh_client_config(const std::vector<std::string>& agent_command) {
    std::string command;
    for (const auto& word : agent_command)
        command += word + " ";
    // Host keys are checked as ssh always does, against ~/.ssh/known_hosts
    // (/workspace/.ssh/known_hosts): a destination's key is the user's to
    // trust, never accepted on first sight.
    return "# Written by sandbox-local: every SSH connection goes through the sandbox's egress\n"
           "# proxy, which lets through only the spec's tcp destinations (host:port).\n"
           "Host *\n"
           "    ProxyCommand " +
           command + "__connect %h %p\n";
}

} // namespace osf::local
