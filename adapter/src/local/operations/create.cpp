#include "local/operations/create.hpp"

#include "commands/command_errors.hpp"
#include "local/copy/copy_out.hpp"
#include "local/host/cgroup_placement.hpp"
#include "local/host/host_mounts.hpp"
#include "local/host/host_program.hpp"
#include "local/host/package_cache_dir.hpp"
#include "local/host/proxy_binary.hpp"
#include "local/host/user_namespaces.hpp"
#include "local/host/workspace_volume.hpp"
#include "local/launch/host_ids.hpp"
#include "local/launch/launch_plan.hpp"
#include "local/launch/seccomp_policy.hpp"
#include "local/launch/spec_support.hpp"
#include "local/launch/template_choice.hpp"
#include "local/operations/backend_support.hpp"
#include "local/operations/start_supervisor.hpp"
#include "local/state/sandbox_store.hpp"
#include "osf/whole_file.hpp"
#include "process/spawn.hpp"
#include "sandbox/spec_policy.hpp"

#include <array>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <grp.h>
#include <ostream>
#include <poll.h>
#include <pwd.h>
#include <set>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace osf::local::operations {

namespace fs = std::filesystem;
using commands::CommandFailed;

namespace {

void run_host(const std::vector<std::string>& argv, bool quiet = false) {
    Fd null(::open("/dev/null", O_WRONLY | O_CLOEXEC));
    if (wait_exit(spawn_host(argv, 0, quiet ? null.get() : 1)) != 0)
        throw CommandFailed(argv[0] + " " + argv[1] + " failed (" + argv.back() + ")");
}

std::optional<std::string> read_sysctl(const std::string& name) {
    std::ifstream file("/proc/sys/" + name);
    std::string value;
    if (!(file >> value)) return std::nullopt;
    return value;
}

struct ResolvedTemplate {
    TemplateChoice choice;
    SandboxMeta meta;
    std::string snapshot_workspace; // set when starting from a snapshot
};

// The spec's template down to what the sandbox runs on; nothing is made.
ResolvedTemplate resolve_template(OperationContext& context,
                                  const sandbox::SandboxRequest& request) {
    const TemplateLookup lookup{
        [](const std::string& dir) { return fs::is_directory(dir); },
        [&context](const std::string& name) {
            return fs::exists(snapshot_dir(context.root(), name) + "/snapshot.json");
        },
        [](const std::string& image) {
            return process::find_in_path("buildah", "/usr/local/bin:/usr/bin:/bin") != "" &&
                   run_host_quietly({"buildah", "inspect", "--type", "image", image}) == 0;
        }};
    ResolvedTemplate resolved;
    // No template in the spec: the host's root file system.
    const std::string name = request.spec.template_name.empty() ? std::string(kHostTemplate)
                                                                : request.spec.template_name;
    resolved.choice = choose_template(name, lookup);
    SandboxMeta& meta = resolved.meta;
    meta.id = request.id;
    meta.template_name = name;
    meta.base = name;
    meta.root = "/";
    meta.created = epoch_seconds(request.lifetime.created);
    meta.expires = epoch_seconds(request.lifetime.expires);
    if (resolved.choice.kind == TemplateChoice::Kind::Snapshot) {
        const std::string dir = snapshot_dir(context.root(), resolved.choice.snapshot);
        const auto snapshot = read_snapshot_meta(dir + "/snapshot.json");
        if (!snapshot || snapshot->base.empty())
            throw CommandFailed("snapshot " + resolved.choice.snapshot + " is unreadable");
        meta.base = snapshot->base;
        resolved.snapshot_workspace = dir + "/workspace";
        resolved.choice = choose_template(meta.base, lookup);
    }
    if (resolved.choice.kind == TemplateChoice::Kind::RootDirectory)
        meta.root = resolved.choice.root_directory;
    return resolved;
}

// A host id no other sandbox of the state root holds (called under its lock).
unsigned allocate_host_id(OperationContext& context) {
    std::set<unsigned> used;
    for (const auto& id : stored_sandbox_ids(context.root()))
        if (const auto meta = read_meta(sandbox_paths(context.root(), id).meta))
            if (meta->host_id != 0) used.insert(meta->host_id);
    std::vector<std::pair<unsigned long long, unsigned long long>> ranges;
    for (const char* file : {"/etc/subuid", "/etc/subgid"}) {
        const auto more = subordinate_ranges(osf::read_whole_file(file).value_or(""));
        ranges.insert(ranges.end(), more.begin(), more.end());
    }
    const auto id = choose_host_id(used, [&ranges](unsigned candidate) {
        if (::getpwuid(candidate) != nullptr || ::getgrgid(candidate) != nullptr) return true;
        return std::any_of(ranges.begin(), ranges.end(), [candidate](const auto& range) {
            return candidate >= range.first && candidate < range.second;
        });
    });
    if (!id)
        throw CommandFailed("no free host id for a new sandbox (" + std::to_string(kHostIdCount) +
                            " in use from " + std::to_string(kHostIdFirst) + ")");
    return *id;
}

} // namespace

nlohmann::json describe(OperationContext& context, const sandbox::SandboxRequest& request) {
    const ResolvedTemplate resolved = resolve_template(context, request);
    const SandboxPaths paths = sandbox_paths(context.root(), request.id);
    std::string sandbox_root = resolved.meta.root;
    if (resolved.choice.kind == TemplateChoice::Kind::Image)
        sandbox_root = "(buildah mount of " + resolved.choice.image + ")";
    std::string proxy = "egress-proxy";
    try {
        proxy = find_proxy_binary(context.options.getenv);
    } catch (const std::exception&) {
    }
    const bool root_caller = ::geteuid() == 0;
    const LaunchPlan plan =
        launch_plan({request, paths, context.root(), proxy, context.options.getenv,
                     read_host_mounts(paths, request, sandbox_root,
                                      package_cache_path(context.root(), paths, request.spec)),
                     root_caller, host_size()});
    nlohmann::json staged = nlohmann::json::array();
    for (const auto& bind : plan.staged)
        if (bind.link_target.empty())
            staged.push_back({{"source", bind.source}, {"target", bind.target}});
        else
            staged.push_back({{"link", bind.link_target}, {"target", bind.target}});
    nlohmann::json proxy_variables = nlohmann::json::array();
    for (const auto& [name, value] : plan.proxy_environment)
        proxy_variables.push_back(name); // names only: values may be secrets
    nlohmann::json limits = nlohmann::json::object();
    for (const auto& [file, value] : plan.cgroup_limits)
        limits[file] = value;
    nlohmann::json refused = nlohmann::json::array();
    for (const auto& rule : sandbox_syscall_rules())
        if (rule.when.empty()) refused.push_back(rule.name);
    return {{"id", request.id},
            {"stateDirectory", paths.dir},
            {"template", resolved.meta.template_name},
            {"base", resolved.meta.base},
            {"root", sandbox_root},
            {"snapshotWorkspace", resolved.snapshot_workspace},
            {"hostId", root_caller ? "a free id from " + std::to_string(kHostIdFirst) + " to " +
                                         std::to_string(kHostIdFirst + kHostIdCount - 1) +
                                         ", chosen at create"
                                   : "the caller's own (" + std::to_string(::geteuid()) + ")"},
            {"workspaceBytes", workspace_bound(request.spec)},
            // The spec as the proxy reads it (written as given: a bound secret's
            // hosts, in and require whole; references, never values).
            {"proxy",
             {{"argv", plan.proxy_argv},
              {"variables", proxy_variables},
              {"spec", nlohmann::json::parse(request.spec_text, nullptr, false)}}},
            {"sandbox",
             {{"argv", plan.sandbox_argv}, {"staged", staged}, {"sshConfig", plan.ssh_config}}},
            {"cgroup", limits},
            {"refusedSyscalls", refused},
            // What the proxy will admit, as list -o json shows it once running.
            {"policy", sandbox::spec_policy(request.spec_text)}};
}

void create(OperationContext& context, const sandbox::SandboxRequest& request,
            std::ostream& progress) {
    const auto path = context.options.getenv("PATH");
    if (process::find_in_path("bwrap", path ? *path : "/usr/bin:/bin").empty())
        throw CommandFailed("bwrap not found in PATH: install bubblewrap (apt-get install "
                            "bubblewrap)");
    const bool root_caller = ::geteuid() == 0;
    if (auto problem =
            user_namespace_problem(root_caller, {read_sysctl("kernel/unprivileged_userns_clone"),
                                                 read_sysctl("user/max_user_namespaces")}))
        throw CommandFailed(*problem);
    if (root_caller && !bwrap_gets_user_namespace())
        throw CommandFailed("the kernel refuses user namespaces here (a chroot?): sandbox-local "
                            "runs each sandbox under a host id of its own in one; run it where "
                            "/ is the mount namespace's root (pivot_root, not chroot)");
    const CgroupPlacement cgroups = place_sandbox_cgroups(request.id, request.spec, false);
    if (auto refusal =
            refused_spec_fields(request.spec, {root_caller, cgroups.controllers, cgroups.reason}))
        throw commands::UsageError(*refusal);
    auto [choice, meta, snapshot_workspace] = resolve_template(context, request);
    meta.workspace_bytes = workspace_bound(request.spec);
    meta.labels = request.spec.labels;

    const SandboxPaths paths = sandbox_paths(context.root(), request.id);
    if (fs::exists(paths.dir)) throw CommandFailed("sandbox " + request.id + " already exists");
    make_private_dirs(context.root());
    make_private_dirs(sandboxes_dir(context.root()));
    progress << "creating sandbox " << request.id << " in " << paths.dir << "\n";
    // By reference (set below); clang 14 cannot capture a structured binding itself.
    auto clean_up = [&, &buildah_container = meta.buildah_container] {
        progress << "removing sandbox " << request.id << "\n";
        try {
            stop_supervisor(paths);
            remove_buildah_container(buildah_container);
            unmount_workspace_volume(paths);
            remove_tree(paths.dir);
        } catch (const std::exception& e) {
            progress << context.options.program << ": cleanup failed: " << e.what() << "\n";
        }
    };
    {
        // The host id is chosen and written down under one lock, so that two
        // creates never pick the same.
        Fd lock(::open(host_ids_lock(context.root()).c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
        if (!lock || ::flock(lock.get(), LOCK_EX) != 0)
            throw CommandFailed("cannot lock " + host_ids_lock(context.root()) + ": " +
                                std::strerror(errno));
        if (root_caller) meta.host_id = allocate_host_id(context);
        make_private_dirs(paths.dir);
        try {
            write_meta(paths.meta, meta);
        } catch (...) {
            clean_up();
            throw;
        }
    }
    try {
        for (const auto& dir : {paths.workspace, paths.proxy_state, paths.run, paths.cache})
            make_private_dirs(dir);
        {
            std::ofstream spec(paths.spec, std::ios::binary);
            spec << request.spec_text;
        }
        if (meta.host_id != 0) {
            for (const auto& dir : {paths.workspace, paths.cache})
                if (::chown(dir.c_str(), meta.host_id, meta.host_id) != 0)
                    throw CommandFailed("cannot give " + dir +
                                        " to the sandbox's host id: " + std::strerror(errno));
        }
        if (meta.workspace_bytes > 0)
            create_workspace_volume(paths, meta.workspace_bytes,
                                    meta.host_id != 0 ? meta.host_id : ::geteuid());
        if (choice.kind == TemplateChoice::Kind::Image) {
            // A working container of the image; its mount is the sandbox's root.
            meta.buildah_container = "osf-sandbox-" + request.id;
            run_host({"buildah", "from", "--quiet", "--pull=never", "--name",
                      meta.buildah_container, choice.image},
                     true);
            meta.root = run_host_output({"buildah", "mount", meta.buildah_container});
        }
        write_meta(paths.meta, meta);
        if (!snapshot_workspace.empty()) {
            run_host({"cp", "-a", snapshot_workspace + "/.", paths.workspace});
            strip_privilege_bits(paths.workspace); // snapshots made before this kept them
            // The snapshot's files belong to the host id of the sandbox it was made of.
            if (meta.host_id != 0)
                run_host({"chown", "-R", "-P", "-h",
                          std::to_string(meta.host_id) + ":" + std::to_string(meta.host_id),
                          paths.workspace});
        }

        start_supervisor(context, paths, progress);
    } catch (...) {
        clean_up();
        throw;
    }
}

} // namespace osf::local::operations
