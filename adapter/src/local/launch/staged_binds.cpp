#include "local/launch/staged_binds.hpp"

#include "local/launch/ssh_client_config.hpp"
#include "sandbox/sandbox_paths.hpp"

#include <string_view>

namespace osf::local {

std::string staged_path(const std::string& name) {
    return std::string(kStagingDir) + "/" + name;
}

namespace {

// `path` ("/etc", "/usr") inside the root file system at `root` ("/": the host's).
std::string in_root(const std::string& root, const std::string& path) {
    return (root == "/" ? std::string() : root) + path;
}

// Below /etc: "/etc/osf/egress-ca.crt" -> "osf/egress-ca.crt".
std::string below_etc(std::string_view path) {
    return std::string(path.substr(std::string_view("/etc/").size()));
}

// /etc as the sandbox sees it, made in the staging directory: what
// bwrap_arguments would bind entry by entry, and the product's two files.
void stage_etc(std::vector<StagedBind>& binds, SandboxMounts& mounts, const std::string& ca_file,
               const std::string& ssh_config) {
    const std::string source = in_root(mounts.root_source, "/etc");
    const std::string etc = staged_path("etc");
    binds.push_back({"", etc, true, ""});
    for (const auto& entry : mounts.etc_entries) {
        if (!etc_entry_shown(entry) || entry.name == below_etc(sandbox::kCaDir)) continue;
        const std::string target = etc + "/" + entry.name;
        if (entry.kind == HostEntry::Kind::Symlink)
            binds.push_back({"", target, false, entry.link_target});
        else if (entry.kind == HostEntry::Kind::Directory || entry.kind == HostEntry::Kind::File)
            binds.push_back(
                {source + "/" + entry.name, target, entry.kind == HostEntry::Kind::Directory, ""});
    }
    binds.push_back({"", etc + "/" + below_etc(sandbox::kCaDir), true, ""});
    binds.push_back({ca_file, etc + "/" + below_etc(sandbox::kCaPath), false, ""});
    if (!ssh_config.empty()) {
        const std::string config = below_etc(kSshConfigPath);
        binds.push_back({"", etc + "/" + config.substr(0, config.find('/')), true, ""});
        binds.push_back({ssh_config, etc + "/" + config, false, ""});
    }
    mounts.staged_etc = etc;
    mounts.ca_file = etc + "/" + below_etc(sandbox::kCaPath);
    if (!ssh_config.empty()) mounts.ssh_config = etc + "/" + below_etc(kSshConfigPath);
}

} // namespace

std::vector<StagedBind> stage_sources(SandboxMounts& mounts) {
    std::vector<StagedBind> binds;
    const std::string ca_file = mounts.ca_file, ssh_config = mounts.ssh_config;
    auto stage = [&](std::string& source, const std::string& name, bool directory) {
        const std::string target = staged_path(name);
        binds.push_back({source, target, directory, ""});
        source = target;
    };
    stage(mounts.workspace, "workspace", true);
    stage(mounts.cache, "cache", true);
    stage(mounts.egress_socket, "egress.sock", false);
    stage(mounts.agent_binary, "sandbox-local", false);
    stage_etc(binds, mounts, ca_file, ssh_config);
    if (!mounts.host_template) {
        // Entry by entry, so that the root directory's own mode (a 0700
        // directory of root's) does not matter.
        const std::string real_root = mounts.root_source;
        mounts.root_source = staged_path("root");
        binds.push_back({"", mounts.root_source, true, ""});
        for (const auto& entry : mounts.root_entries)
            if (entry.kind == HostEntry::Kind::Directory || entry.kind == HostEntry::Kind::File)
                binds.push_back({in_root(real_root, "/" + entry.name),
                                 mounts.root_source + "/" + entry.name,
                                 entry.kind == HostEntry::Kind::Directory, ""});
    }
    return binds;
}

} // namespace osf::local
