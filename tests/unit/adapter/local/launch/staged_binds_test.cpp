// stage_sources: a root-run sandbox's bwrap binds from a staging directory
// its own process made; every source it needs is staged, a foreign root
// entry by entry, /etc as one tree.
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
    // The CA and the ssh config are staged where the sandbox sees them, in /etc's tree.
    CHECK(mounts.ca_file == "/run/osf-stage/etc/osf/egress-ca.crt");
    CHECK(mounts.egress_socket == "/run/osf-stage/egress.sock");
    CHECK(mounts.ssh_config == "/run/osf-stage/etc/ssh/ssh_config");
    CHECK(mounts.agent_binary == "/run/osf-stage/sandbox-local");
    REQUIRE(binds.size() >= 4);
    CHECK(binds[0].source == "/state/sandboxes/x/workspace");
    CHECK(binds[0].directory);
    CHECK_FALSE(binds[2].directory); // the socket: a file bind
    CHECK_FALSE(binds[3].directory); // the agent's binary: a file bind
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

namespace {

HostEntry entry(const std::string& name, HostEntry::Kind kind, bool readable = true,
                const std::string& link = "") {
    return {name, kind, link, readable};
}

const StagedBind* staged_at(const std::vector<StagedBind>& binds, const std::string& target) {
    const auto found = std::find_if(binds.begin(), binds.end(),
                                    [&](const StagedBind& b) { return b.target == target; });
    return found == binds.end() ? nullptr : &*found;
}

} // namespace

TEST_CASE("staging: /etc is one tree of its shown entries, the CA and the ssh config") {
    SandboxMounts mounts;
    mounts.ca_file = "/state/sandboxes/x/run/egress-ca.crt";
    mounts.ssh_config = "/state/sandboxes/x/run/ssh_config";
    mounts.etc_entries = {entry("passwd", HostEntry::Kind::File),
                          entry("shadow", HostEntry::Kind::File, false),
                          entry("sudoers", HostEntry::Kind::File),
                          entry("ssl", HostEntry::Kind::Directory),
                          entry("ssh", HostEntry::Kind::Directory),
                          entry("private.conf", HostEntry::Kind::File, false),
                          entry("osf", HostEntry::Kind::Directory),
                          entry("mtab", HostEntry::Kind::Symlink, false, "../proc/self/mounts"),
                          entry("initctl", HostEntry::Kind::Other)};
    const auto binds = stage_sources(mounts);
    CHECK(mounts.staged_etc == "/run/osf-stage/etc");
    const auto* etc = staged_at(binds, "/run/osf-stage/etc");
    REQUIRE(etc);
    CHECK(etc->source.empty());
    CHECK(etc->directory);
    const auto* passwd = staged_at(binds, "/run/osf-stage/etc/passwd");
    REQUIRE(passwd);
    CHECK(passwd->source == "/etc/passwd");
    CHECK_FALSE(passwd->directory);
    REQUIRE(staged_at(binds, "/run/osf-stage/etc/ssl"));
    CHECK(staged_at(binds, "/run/osf-stage/etc/ssl")->directory);
    const auto* mtab = staged_at(binds, "/run/osf-stage/etc/mtab");
    REQUIRE(mtab);
    CHECK(mtab->link_target == "../proc/self/mounts");
    CHECK(mtab->source.empty());
    // Never shown: hidden by name, not world-readable, not a file, directory or link.
    for (const char* hidden : {"shadow", "sudoers", "private.conf", "initctl"})
        CHECK_FALSE(staged_at(binds, std::string("/run/osf-stage/etc/") + hidden));
    // The product's own: the CA's directory (never the root's /etc/osf), and an
    // /etc/ssh holding only the ssh client config.
    const std::pair<const char*, const char*> ours[] = {
        {"/run/osf-stage/etc/osf", ""},
        {"/run/osf-stage/etc/osf/egress-ca.crt", "/state/sandboxes/x/run/egress-ca.crt"},
        {"/run/osf-stage/etc/ssh", ""},
        {"/run/osf-stage/etc/ssh/ssh_config", "/state/sandboxes/x/run/ssh_config"}};
    for (const auto& [target, source] : ours) {
        INFO(target);
        const auto* bind = staged_at(binds, target);
        REQUIRE(bind);
        CHECK(bind->source == source); // empty: a directory made there
    }
    // Each target's directory is made before it.
    for (std::size_t i = 0; i < binds.size(); ++i) {
        const auto parent = binds[i].target.substr(0, binds[i].target.rfind('/'));
        if (parent == kStagingDir) continue;
        const auto made = std::find_if(binds.begin(), binds.begin() + static_cast<long>(i),
                                       [&](const StagedBind& b) { return b.target == parent; });
        CHECK(made != binds.begin() + static_cast<long>(i));
    }
}

TEST_CASE("staging: a foreign root's /etc comes from that root") {
    SandboxMounts mounts;
    mounts.host_template = false;
    mounts.root_source = "/var/lib/containers/storage/overlay/abc/merged";
    mounts.ca_file = "/state/ca.crt";
    mounts.etc_entries = {entry("os-release", HostEntry::Kind::File)};
    const auto binds = stage_sources(mounts);
    const auto* release = staged_at(binds, "/run/osf-stage/etc/os-release");
    REQUIRE(release);
    CHECK(release->source == "/var/lib/containers/storage/overlay/abc/merged/etc/os-release");
    CHECK_FALSE(staged_at(binds, "/run/osf-stage/etc/ssh")); // no ssh config: no /etc/ssh
}
