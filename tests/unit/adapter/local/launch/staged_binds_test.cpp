// stage_sources: a root-run sandbox's bwrap binds from a staging directory
// its own process made; every source it needs is staged, a foreign root
// entry by entry.
#include "local/launch/staged_binds.hpp"

#include <algorithm>
#include <catch2/catch.hpp>

using namespace osf::local;

TEST_CASE("staging: every source bwrap binds is staged below /run/osf-stage") {
    SandboxMounts mounts;
    mounts.workspace = "/state/sandboxes/x/workspace";
    mounts.cache = "/state/caches/npm";
    mounts.ca_file = "/state/sandboxes/x/run/egress-ca.crt";
    mounts.egress_socket = "/state/sandboxes/x/run/egress.sock";
    mounts.ssh_config = "/state/sandboxes/x/run/ssh_config";
    mounts.agent_binary = "/usr/bin/sandbox-local";
    const auto binds = stage_sources(mounts);
    CHECK(mounts.workspace == "/run/osf-stage/workspace");
    CHECK(mounts.cache == "/run/osf-stage/cache");
    CHECK(mounts.ca_file == "/run/osf-stage/egress-ca.crt");
    CHECK(mounts.egress_socket == "/run/osf-stage/egress.sock");
    CHECK(mounts.ssh_config == "/run/osf-stage/ssh_config");
    CHECK(mounts.agent_binary == "/run/osf-stage/sandbox-local");
    REQUIRE(binds.size() == 6);
    CHECK(binds[0].source == "/state/sandboxes/x/workspace");
    CHECK(binds[0].directory);
    CHECK_FALSE(binds[3].directory); // the ssh config: a file bind
    CHECK_FALSE(binds[4].directory); // the socket: a file bind
    CHECK(mounts.root_source == "/");
}

TEST_CASE("staging: a foreign root is staged entry by entry") {
    SandboxMounts mounts;
    mounts.host_template = false;
    mounts.root_source = "/var/lib/containers/storage/overlay/abc/merged";
    mounts.root_entries = {{"usr", HostEntry::Kind::Directory, "", true},
                           {"bin", HostEntry::Kind::Symlink, "usr/bin", false},
                           {"etc", HostEntry::Kind::Directory, "", true}};
    const auto binds = stage_sources(mounts);
    CHECK(mounts.root_source == "/run/osf-stage/root");
    const auto staged = [&](const std::string& source, const std::string& target) {
        return std::any_of(binds.begin(), binds.end(), [&](const StagedBind& b) {
            return b.source == source && b.target == target;
        });
    };
    CHECK(staged("", "/run/osf-stage/root"));
    CHECK(staged("/var/lib/containers/storage/overlay/abc/merged/usr", "/run/osf-stage/root/usr"));
    CHECK(staged("/var/lib/containers/storage/overlay/abc/merged/etc", "/run/osf-stage/root/etc"));
    CHECK_FALSE(staged("/var/lib/containers/storage/overlay/abc/merged/bin",
                       "/run/osf-stage/root/bin")); // bwrap makes the symlink itself
}
