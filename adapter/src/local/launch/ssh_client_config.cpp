#include "local/launch/ssh_client_config.hpp"

namespace osf::local {

std::string ssh_client_config(const std::vector<std::string>& agent_command) {
    std::string command;
    for (const auto& word : agent_command)
        command += word + " ";
    // ssh takes its home directory from /etc/passwd, and root's (/root) is
    // not in the sandbox: keys and known hosts are under $HOME (/workspace)
    // instead. Host keys are checked as ssh always does: a destination's key
    // is the user's to trust, never accepted on first sight.
    return "# Written by sandbox-local: every SSH connection goes through the sandbox's egress\n"
           "# proxy, which lets through only the spec's tcp destinations (host:port).\n"
           "Host *\n"
           "    ProxyCommand " +
           command +
           "__connect %h %p\n"
           "    UserKnownHostsFile ${HOME}/.ssh/known_hosts\n"
           "    IdentityFile ${HOME}/.ssh/id_ed25519\n"
           "    IdentityFile ${HOME}/.ssh/id_ecdsa\n"
           "    IdentityFile ${HOME}/.ssh/id_rsa\n";
}

} // namespace osf::local
