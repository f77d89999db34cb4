#include "local/launch/staged_binds.hpp"

namespace osf::local {

std::string staged_path(const std::string& name) {
    return std::string(kStagingDir) + "/" + name;
}

std::vector<StagedBind> stage_sources(SandboxMounts& mounts) {
    std::vector<StagedBind> binds;
    auto stage = [&](std::string& source, const std::string& name, bool directory) {
        const std::string target = staged_path(name);
        binds.push_back({source, target, directory});
        source = target;
    };
    stage(mounts.workspace, "workspace", true);
    stage(mounts.cache, "cache", true);
    stage(mounts.ca_file, "egress-ca.crt", false);
    stage(mounts.ssh_config, "ssh_config", false);
    stage(mounts.egress_socket, "egress.sock", false);
    stage(mounts.agent_binary, "sandbox-local", false);
    if (!mounts.host_template) {
        // Entry by entry, so that the root directory's own mode (a 0700
        // directory of root's) does not matter.
        const std::string real_root = mounts.root_source;
        mounts.root_source = staged_path("root");
        binds.push_back({"", mounts.root_source, true});
        for (const auto& entry : mounts.root_entries)
            if (entry.kind == HostEntry::Kind::Directory || entry.kind == HostEntry::Kind::File)
                binds.push_back({(real_root == "/" ? "" : real_root) + "/" + entry.name,
                                 mounts.root_source + "/" + entry.name,
                                 entry.kind == HostEntry::Kind::Directory});
    }
    return binds;
}

} // namespace osf::local
