#include "local/launch/spec_support.hpp"

#include "local/launch/cgroup_limits.hpp"

#include <algorithm>

namespace osf::local {

long long workspace_bound(const osf::Spec& spec) {
    if (spec.persistence) return memory_bytes(spec.persistence->size);
    if (spec.storage) return memory_bytes(*spec.storage);
    return 0;
}

std::optional<std::string> refused_spec_fields(const osf::Spec& spec, const HostAbilities& host) {
    std::vector<std::string> problems;
    if (spec.persistence && spec.persistence->storage_class)
        problems.push_back("persistence.storageClassName: sandbox-local has no storage classes "
                           "(/workspace is a directory of the state root); leave it out");
    if (!host.root) {
        if (spec.persistence)
            problems.push_back("persistence.size: an ordinary user's sandbox-local cannot bound "
                               "/workspace (that needs root to mount its file system); leave "
                               "persistence out (/workspace is kept across suspend and resume "
                               "anyway) or run as root");
        else if (spec.storage)
            problems.push_back("storage: an ordinary user's sandbox-local cannot bound /workspace "
                               "(that needs root to mount its file system); leave storage out or "
                               "run as root");
    }
    for (const auto& [asked, controller] :
         {std::pair{spec.cpu.has_value(), "cpu"}, std::pair{spec.memory.has_value(), "memory"}}) {
        if (!asked || std::find(host.controllers.begin(), host.controllers.end(), controller) !=
                          host.controllers.end())
            continue;
        problems.push_back(std::string(controller) + ": this machine gives sandbox-local no " +
                           controller + " cgroup to enforce the limit (" + host.cgroup_reason +
                           "); leave " + controller +
                           " out, or run as root or where cgroup v2 delegates it");
    }
    if (problems.empty()) return std::nullopt;
    std::string message;
    for (const auto& problem : problems)
        message += (message.empty() ? "" : "\n") + problem;
    return message;
}

} // namespace osf::local
