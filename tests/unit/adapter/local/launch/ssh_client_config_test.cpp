#include "local/launch/ssh_client_config.hpp"

#include <catch2/catch.hpp>

using namespace osf::local;

TEST_CASE("ssh config: every host through the product's CONNECT helper, host keys as ssh checks") {
    const std::string host = ssh_client_config({"/run/osf/sandbox-local"});
    CHECK(host.find("Host *\n    ProxyCommand /run/osf/sandbox-local __connect %h %p\n") !=
          std::string::npos);
    // Nothing weakens the host key check (no StrictHostKeyChecking no/accept-new).
    CHECK(host.find("StrictHostKeyChecking") == std::string::npos);
    // Under $HOME (the workspace), not the passwd entry's home (root's /root is not there).
    CHECK(host.find("    UserKnownHostsFile ${HOME}/.ssh/known_hosts\n") != std::string::npos);
    CHECK(host.find("    IdentityFile ${HOME}/.ssh/id_ed25519\n") != std::string::npos);
    const std::string foreign = ssh_client_config(
        {"/run/osf/ld.so", "--library-path", "/run/osf/lib/0", "/run/osf/sandbox-local"});
    CHECK(foreign.find("    ProxyCommand /run/osf/ld.so --library-path /run/osf/lib/0 "
                       "/run/osf/sandbox-local __connect %h %p\n") != std::string::npos);
}
