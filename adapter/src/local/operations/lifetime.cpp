#include "local/operations/lifetime.hpp"

#include "commands/command_errors.hpp"
#include "local/operations/backend_support.hpp"
#include "local/operations/sandbox_removal.hpp"
#include "local/operations/start_supervisor.hpp"
#include "local/state/sandbox_store.hpp"
#include "process/spawn.hpp"

#include <csignal>
#include <filesystem>
#include <fstream>
#include <ostream>

namespace osf::local::operations {

using commands::CommandFailed;

namespace {

std::optional<int> read_pid_file(const std::string& path) {
    std::ifstream file(path);
    int pid = 0;
    if (file >> pid && pid > 1) return pid;
    return std::nullopt;
}

} // namespace

sandbox::WallTime extend(OperationContext& context, const std::string& id, std::chrono::seconds by,
                         std::chrono::seconds max) {
    const SandboxPaths paths = context.existing(id);
    auto meta = read_meta(paths.meta);
    if (!meta) throw CommandFailed("sandbox " + id + " has no " + paths.meta);
    const auto expires = sandbox::extended_expiry(
        meta->expires != 0 ? std::optional(wall_time(meta->expires)) : std::nullopt,
        meta->created != 0 ? std::optional(wall_time(meta->created)) : std::nullopt, by, max,
        context.options.wall_clock());
    meta->expires = epoch_seconds(expires);
    write_meta(paths.meta, *meta);
    // The supervisor reads the new expiry on SIGHUP.
    if (supervisor_running(paths))
        if (const auto pid = read_pid_file(paths.pid)) ::kill(*pid, SIGHUP);
    return expires;
}

sandbox::StateChange suspend(OperationContext& context, const std::string& id) {
    const SandboxPaths paths = context.existing(id);
    auto meta = read_meta(paths.meta);
    if (!meta) throw CommandFailed("sandbox " + id + " has no " + paths.meta);
    const bool running = supervisor_running(paths);
    if (!running && meta->suspended_at != 0) return sandbox::StateChange::AlreadyThere;
    if (!running)
        throw CommandFailed("sandbox " + id +
                            " is not running (its supervisor is gone; gc removes it)");
    // Marked first, so that gc never takes the stopped sandbox for a dead one.
    meta->suspended_at = epoch_seconds(context.options.wall_clock());
    write_meta(paths.meta, *meta);
    stop_supervisor(paths);
    return sandbox::StateChange::Done;
}

sandbox::StateChange resume(OperationContext& context, const std::string& id,
                            std::ostream& progress) {
    const SandboxPaths paths = context.existing(id);
    auto meta = read_meta(paths.meta);
    if (!meta) throw CommandFailed("sandbox " + id + " has no " + paths.meta);
    if (meta->suspended_at == 0) {
        if (supervisor_running(paths)) return sandbox::StateChange::AlreadyThere;
        throw CommandFailed("sandbox " + id +
                            " is not running (its supervisor is gone; gc removes it)");
    }
    if (supervisor_running(paths)) {
        // A resume that started it and was stopped before it could say so.
        meta->suspended_at = 0;
        write_meta(paths.meta, *meta);
        return sandbox::StateChange::AlreadyThere;
    }
    const auto now = context.options.wall_clock();
    if (meta->expires != 0 && epoch_seconds(now) >= meta->expires) {
        // As on Kubernetes, where the claim is deleted at its expiry.
        remove_buildah_container(meta->buildah_container);
        remove_sandbox(context, paths);
        throw CommandFailed("sandbox " + id + " expired at " +
                            sandbox::rfc3339(wall_time(meta->expires)) +
                            " while suspended; removed");
    }
    // An image's mount does not outlive a restart of the machine.
    if (!meta->buildah_container.empty()) {
        meta->root = run_host_output({"buildah", "mount", meta->buildah_container});
        write_meta(paths.meta, *meta);
    }
    progress << "resuming sandbox " << id << "\n";
    start_supervisor(context, paths, progress);
    meta->suspended_at = 0;
    write_meta(paths.meta, *meta);
    return sandbox::StateChange::Done;
}

} // namespace osf::local::operations
