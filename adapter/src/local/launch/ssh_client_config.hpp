// The ssh client configuration of a local sandbox, bound read-only at
// /etc/ssh/ssh_config (the host's /etc/ssh is never shown): every SSH
// connection, `git clone git@host:org/repo` included, goes through the
// sandbox's egress proxy by an HTTP CONNECT that the product's own helper
// makes (`sandbox-local __connect %h %p`), so no flag and no netcat is needed.
// The proxy lets through only the spec's `tcp` destinations. Keys and known
// hosts are read from $HOME/.ssh (/workspace/.ssh unless the spec's env moves
// HOME). Pure.
#pragma once

#include <string>
#include <vector>

namespace osf::local {

inline constexpr const char* kSshConfigPath = "/etc/ssh/ssh_config";

// `agent_command`: how the sandbox runs the product's binary (bwrap_command.hpp's
// agent_command); its words hold no space or '%'.
std::string ssh_client_config(const std::vector<std::string>& agent_command);

} // namespace osf::local
