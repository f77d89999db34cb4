#include "local/local_backend.hpp"

#include "commands/command_errors.hpp"
#include "commands/exec_timeout.hpp"
#include "egress_log/request_lines.hpp"
#include "local/cgroup_limits.hpp"
#include "local/cgroup_placement.hpp"
#include "local/copy_out.hpp"
#include "local/copy_out_policy.hpp"
#include "local/exec_client.hpp"
#include "local/exec_protocol.hpp"
#include "local/host_ids.hpp"
#include "local/host_mounts.hpp"
#include "local/host_program.hpp"
#include "local/local_lifecycle.hpp"
#include "local/local_log_access.hpp"
#include "local/package_cache_dir.hpp"
#include "local/proxy_binary.hpp"
#include "local/proxy_launch.hpp"
#include "local/sandbox_environment.hpp"
#include "local/sandbox_store.hpp"
#include "local/seccomp_policy.hpp"
#include "local/spec_support.hpp"
#include "local/template_choice.hpp"
#include "local/unix_socket.hpp"
#include "local/user_namespaces.hpp"
#include "local/workspace_copy.hpp"
#include "local/workspace_volume.hpp"
#include "process/spawn.hpp"
#include "sandbox/exec_stop.hpp"
#include "sandbox/lifetime.hpp"
#include "sandbox/sandbox_id.hpp"

#include <array>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <grp.h>
#include <iostream>
#include <ostream>
#include <poll.h>
#include <pwd.h>
#include <set>
#include <spawn.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char** environ;

namespace osf::local {

namespace fs = std::filesystem;
using commands::CommandFailed;

namespace {

void run_host(const std::vector<std::string>& argv, bool quiet = false) {
    Fd null(::open("/dev/null", O_WRONLY | O_CLOEXEC));
    if (wait_exit(spawn_host(argv, 0, quiet ? null.get() : 1)) != 0)
        throw CommandFailed(argv[0] + " " + argv[1] + " failed (" + argv.back() + ")");
}

int run_host_quietly(const std::vector<std::string>& argv) {
    Fd null(::open("/dev/null", O_RDWR | O_CLOEXEC));
    return wait_exit(spawn_host(argv, null.get(), null.get(), null.get()));
}

// The program's stdout without its last newline; CommandFailed when it fails.
std::string run_host_output(const std::vector<std::string>& argv) {
    auto run = run_capturing(argv, Captured::stdout_text);
    if (run.exit_code != 0) throw CommandFailed(argv[0] + " " + argv[1] + " failed");
    return std::move(run.text);
}

void remove_buildah_container(const std::string& name) {
    if (!name.empty()) run_host_quietly({"buildah", "rm", name});
}

std::optional<std::string> read_sysctl(const std::string& name) {
    std::ifstream file("/proc/sys/" + name);
    std::string value;
    if (!(file >> value)) return std::nullopt;
    return value;
}

sandbox::WallTime wall_time(long long seconds) {
    return sandbox::WallTime(std::chrono::seconds(seconds));
}

long long epoch_seconds(sandbox::WallTime time) {
    return std::chrono::duration_cast<std::chrono::seconds>(time.time_since_epoch()).count();
}

std::optional<int> read_pid_file(const std::string& path) {
    std::ifstream file(path);
    int pid = 0;
    if (file >> pid && pid > 1) return pid;
    return std::nullopt;
}

SandboxLiveness liveness_of(const SandboxPaths& paths) {
    return {supervisor_running(paths), fs::exists(paths.ready)};
}

Fd open_or_fail(const std::string& path, int flags) {
    Fd fd(::open(path.c_str(), flags | O_CLOEXEC, 0644));
    if (!fd) throw CommandFailed("copy: cannot open " + path + ": " + std::strerror(errno));
    return fd;
}

std::string base_name(const std::string& path) {
    std::string trimmed = path;
    while (trimmed.size() > 1 && trimmed.back() == '/')
        trimmed.pop_back();
    return fs::path(trimmed).filename().string();
}

// Where a single file copied out goes: the path the user named (followed, as
// cp does), or <dir>/<name> when it names a directory, where a symlink is not
// followed. Created 0644 less the umask; an existing file loses setuid/setgid.
Fd open_copy_target(const std::string& local, const std::string& name) {
    Fd file;
    if (fs::is_directory(local)) {
        Fd dir = open_or_fail(local, O_RDONLY | O_DIRECTORY);
        OpenedTarget opened = open_target_at(dir.get(), name, 0644);
        const std::string target = (local.ends_with('/') ? local : local + "/") + name;
        if (opened.not_regular)
            throw CommandFailed("copy: " + target + " exists and is not a regular file");
        if (!opened.fd)
            throw CommandFailed("copy: cannot open " + target + ": " + std::strerror(errno));
        file = std::move(opened.fd);
    } else {
        file = open_or_fail(local, O_WRONLY | O_CREAT);
    }
    struct stat info {};
    if (::fstat(file.get(), &info) == 0 && S_ISREG(info.st_mode) && (info.st_mode & 07000) != 0)
        ::fchmod(file.get(), copied_mode(info.st_mode));
    return file;
}

} // namespace

LocalBackend::LocalBackend(LocalBackendOptions options) : options_(std::move(options)) {}

const std::string& LocalBackend::root() {
    if (root_.empty()) root_ = state_root(options_.getenv, ::geteuid() == 0);
    return root_;
}

SandboxPaths LocalBackend::existing(const std::string& id) {
    SandboxPaths paths = sandbox_paths(root(), id);
    if (!fs::is_directory(paths.dir)) throw CommandFailed("no sandbox " + id);
    return paths;
}

LocalBackend::ResolvedTemplate
LocalBackend::resolve_template(const sandbox::SandboxRequest& request) {
    const TemplateLookup lookup{
        [](const std::string& dir) { return fs::is_directory(dir); },
        [this](const std::string& name) {
            return fs::exists(snapshot_dir(root(), name) + "/snapshot.json");
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
        const std::string dir = snapshot_dir(root(), resolved.choice.snapshot);
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

nlohmann::json LocalBackend::describe(const sandbox::SandboxRequest& request) {
    const ResolvedTemplate resolved = resolve_template(request);
    const SandboxPaths paths = sandbox_paths(root(), request.id);
    std::string sandbox_root = resolved.meta.root;
    if (resolved.choice.kind == TemplateChoice::Kind::Image)
        sandbox_root = "(buildah mount of " + resolved.choice.image + ")";
    SandboxMounts mounts = read_host_mounts(paths, request, sandbox_root,
                                            package_cache_path(root(), paths, request.spec));
    const bool root_caller = ::geteuid() == 0;
    nlohmann::json staged = nlohmann::json::array();
    if (root_caller)
        for (const auto& bind : stage_sources(mounts))
            staged.push_back({{"source", bind.source}, {"target", bind.target}});
    nlohmann::json proxy_variables = nlohmann::json::array();
    for (const auto& [name, value] : proxy_environment(request, options_.getenv))
        proxy_variables.push_back(name); // names only: values may be secrets
    nlohmann::json limits = nlohmann::json::object();
    for (const auto& [file, value] : cgroup_values(request.spec))
        limits[file] = value;
    nlohmann::json refused = nlohmann::json::array();
    for (const auto& rule : sandbox_syscall_rules())
        if (rule.when.empty()) refused.push_back(rule.name);
    std::string proxy = "egress-proxy";
    try {
        proxy = find_proxy_binary(options_.getenv);
    } catch (const std::exception&) {
    }
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
            {"proxy", {{"argv", proxy_argv(proxy, paths, root())}, {"variables", proxy_variables}}},
            {"sandbox", {{"argv", bwrap_arguments(mounts)}, {"staged", staged}}},
            {"cgroup", limits},
            {"refusedSyscalls", refused}};
}

void LocalBackend::create(const sandbox::SandboxRequest& request, std::ostream& progress) {
    const auto path = options_.getenv("PATH");
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
    auto [choice, meta, snapshot_workspace] = resolve_template(request);
    meta.workspace_bytes = workspace_bound(request.spec);

    const SandboxPaths paths = sandbox_paths(root(), request.id);
    if (fs::exists(paths.dir)) throw CommandFailed("sandbox " + request.id + " already exists");
    make_private_dirs(root());
    make_private_dirs(sandboxes_dir(root()));
    progress << "creating sandbox " << request.id << " in " << paths.dir << "\n";
    auto clean_up = [&] {
        progress << "removing sandbox " << request.id << "\n";
        try {
            stop_supervisor(paths);
            remove_buildah_container(meta.buildah_container);
            unmount_workspace_volume(paths);
            remove_tree(paths.dir);
        } catch (const std::exception& e) {
            progress << options_.program << ": cleanup failed: " << e.what() << "\n";
        }
    };
    {
        // The host id is chosen and written down under one lock, so that two
        // creates never pick the same.
        Fd lock(::open(host_ids_lock(root()).c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
        if (!lock || ::flock(lock.get(), LOCK_EX) != 0)
            throw CommandFailed("cannot lock " + host_ids_lock(root()) + ": " +
                                std::strerror(errno));
        if (root_caller) meta.host_id = allocate_host_id();
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

        start_supervisor(paths, progress);
    } catch (...) {
        clean_up();
        throw;
    }
}

unsigned LocalBackend::allocate_host_id() {
    std::set<unsigned> used;
    for (const auto& id : stored_sandbox_ids(root()))
        if (const auto meta = read_meta(sandbox_paths(root(), id).meta))
            if (meta->host_id != 0) used.insert(meta->host_id);
    std::vector<std::pair<unsigned long long, unsigned long long>> ranges;
    for (const char* file : {"/etc/subuid", "/etc/subgid"}) {
        std::ifstream in(file);
        const std::string text((std::istreambuf_iterator<char>(in)),
                               std::istreambuf_iterator<char>());
        const auto more = subordinate_ranges(text);
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

void LocalBackend::start_supervisor(const SandboxPaths& paths, std::ostream& progress) {
    std::array<int, 2> status{};
    if (::pipe2(status.data(), O_CLOEXEC) != 0)
        throw CommandFailed(std::string("pipe: ") + std::strerror(errno));
    Fd status_read(status[0]);
    Fd status_write(status[1]);
    // Taken here and inherited, so that the sandbox is never without a
    // holder (gc removes sandboxes whose lock is free).
    Fd lock(::open(paths.lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
    if (!lock || ::flock(lock.get(), LOCK_EX | LOCK_NB) != 0)
        throw CommandFailed("cannot lock " + paths.lock + ": " + std::strerror(errno));
    constexpr int kStatusFd = 3, kLockFd = 4;
    Fd null(::open("/dev/null", O_RDONLY | O_CLOEXEC));
    Fd log(::open(paths.log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600));
    if (!null || !log)
        throw CommandFailed("cannot open " + paths.log + ": " + std::strerror(errno));
    process::SpawnSpec spec;
    spec.argv = {options_.self_executable, "__supervise", paths.dir, std::to_string(kStatusFd),
                 std::to_string(kLockFd)};
    // Exactly these: whatever else the caller holds (a connection, a file)
    // stays out of the supervisor and of everything it starts.
    spec.fds = {{0, null.get()},
                {1, log.get()},
                {2, log.get()},
                {kStatusFd, status_write.get()},
                {kLockFd, lock.get()}};
    spec.new_session = true; // no terminal: Ctrl-C after create does not reach it
    pid_t supervisor = -1;
    try {
        supervisor = process::spawn(spec);
    } catch (const std::exception& e) {
        throw CommandFailed(std::string("the supervisor: ") + e.what());
    }
    status_write = Fd();
    lock = Fd(); // the supervisor holds it now

    try {
        std::string pending;
        while (true) {
            if (const int signal = options_.pending_signal ? options_.pending_signal() : 0)
                throw commands::Interrupted(signal);
            pollfd poll_status{status_read.get(), POLLIN, 0};
            if (::poll(&poll_status, 1, 200) <= 0) continue;
            std::array<char, 4096> buffer{};
            const ssize_t got = ::read(status_read.get(), buffer.data(), buffer.size());
            if (got < 0 && errno == EINTR) continue;
            if (got <= 0) {
                std::ifstream file(paths.log);
                std::string line, last;
                while (std::getline(file, line))
                    if (!line.empty()) last = line;
                throw CommandFailed("the sandbox's supervisor exited: " + last);
            }
            pending.append(buffer.data(), static_cast<std::size_t>(got));
            std::size_t newline;
            while ((newline = pending.find('\n')) != std::string::npos) {
                const std::string line = pending.substr(0, newline);
                pending.erase(0, newline + 1);
                if (line == "ready") return;
                if (line.starts_with("warning: "))
                    progress << options_.program << ": " << line << "\n";
                else if (line.starts_with("error: "))
                    throw CommandFailed(line.substr(7));
            }
        }
    } catch (...) {
        try {
            stop_supervisor(paths);
        } catch (const std::exception& e) {
            progress << options_.program << ": stopping the supervisor failed: " << e.what()
                     << "\n";
        }
        ::waitpid(supervisor, nullptr, 0);
        throw;
    }
}

sandbox::ExecResult LocalBackend::run_in_sandbox(const std::string& id,
                                                 const std::vector<std::string>& command, int in,
                                                 int out, int err, bool terminal,
                                                 std::optional<std::chrono::seconds> timeout) {
    const SandboxPaths paths = existing(id);
    if (!supervisor_running(paths)) {
        const auto meta = read_meta(paths.meta);
        if (meta && meta->suspended_at != 0)
            throw CommandFailed("sandbox " + id + " is suspended (resume starts it again)");
        throw CommandFailed("sandbox " + id +
                            " is not running (its supervisor is gone; gc "
                            "removes it)");
    }
    Fd connection;
    try {
        connection = connect_unix(paths.control);
    } catch (const std::exception& e) {
        throw CommandFailed("sandbox " + id + " does not answer: " + e.what());
    }
    ExecMessage message;
    message.command = command;
    message.terminal = terminal;
    if (auto term = options_.getenv("TERM")) message.term = *term;
    const ExecOutcome outcome =
        run_exec(connection.get(), message, {in, out, err}, timeout, options_.pending_signal);
    if (outcome.signal != 0) throw commands::Interrupted(outcome.signal);
    if (outcome.timed_out) return {commands::kExitExecTimeout, true};
    if (outcome.exit_code) return {*outcome.exit_code, false};
    throw CommandFailed("sandbox " + id + " went away during exec");
}

sandbox::ExecResult LocalBackend::exec(const sandbox::ExecRequest& request) {
    return run_in_sandbox(request.id, request.command, 0, 1, 2, request.terminal, request.timeout);
}

int LocalBackend::run_to_end(const std::string& id, const std::vector<std::string>& command, int in,
                             int out, int err) {
    return run_in_sandbox(id, command, in, out, err, false, std::nullopt).exit_code;
}

void LocalBackend::copy(const sandbox::CopyRequest& request) {
    Fd null_in = open_or_fail("/dev/null", O_RDONLY);
    const std::string& inside = request.sandbox_path;
    const std::string& local = request.local_path;
    if (request.into_sandbox) {
        struct stat info {};
        if (::stat(local.c_str(), &info) != 0)
            throw CommandFailed("copy: no " + local + ": " + std::strerror(errno));
        int code;
        if (S_ISDIR(info.st_mode)) {
            std::array<int, 2> pipe{};
            if (::pipe2(pipe.data(), O_CLOEXEC) != 0)
                throw CommandFailed(std::string("pipe: ") + std::strerror(errno));
            Fd read_end(pipe[0]), write_end(pipe[1]);
            const pid_t tar = spawn_host({"tar", "cf", "-", "-C", local, "."}, 0, write_end.get());
            write_end = Fd();
            // --no-same-owner: copied files belong to the sandbox's user; the host's
            // owners mean nothing inside (and an unmapped one fails in a user namespace).
            code = run_to_end(request.id,
                              {"sh", "-c",
                               "{ [ -d \"$1\" ] || mkdir -- \"$1\"; } && "
                               "tar xf - --no-same-owner -C \"$1\"",
                               "sh", inside},
                              read_end.get(), 1, 2);
            read_end = Fd();
            if (wait_exit(tar) != 0) throw CommandFailed("copy: tar failed reading " + local);
        } else {
            Fd file = open_or_fail(local, O_RDONLY);
            code = run_to_end(request.id,
                              {"sh", "-c",
                               "if [ -d \"$1\" ]; then cat > \"$1/$2\"; else cat > \"$1\"; fi",
                               "sh", inside, base_name(local)},
                              file.get(), 1, 2);
        }
        if (code != 0)
            throw CommandFailed("copy: writing " + inside + " in sandbox " + request.id +
                                " failed");
        return;
    }
    if (run_to_end(request.id, {"test", "-e", inside}, null_in.get(), 1, 2) != 0)
        throw CommandFailed("copy: no " + inside + " in sandbox " + request.id);
    const bool directory = run_to_end(request.id, {"test", "-d", inside}, null_in.get(), 1, 2) == 0;
    if (directory) {
        std::error_code error;
        fs::create_directories(local, error);
        if (error) throw CommandFailed("copy: cannot create " + local + ": " + error.message());
        // The sandbox writes the stream (its tar may be anything): see copy_out.hpp.
        CopyOutTree tree;
        tree.staging_parent = existing(request.id).dir;
        tree.shown = base_name(inside);
        tree.destination = local;
        tree.user_namespace = bwrap_gets_user_namespace();
        tree.produce = [&](int out) {
            return run_to_end(request.id, {"tar", "cf", "-", "-C", inside, "."}, null_in.get(), out,
                              2);
        };
        tree.pending_signal = options_.pending_signal;
        const CopyOutOutcome outcome = copy_out_tree(tree, std::cerr);
        if (outcome.producer_exit != 0)
            throw CommandFailed("copy: reading " + inside + " in sandbox " + request.id +
                                " failed");
        if (!outcome.complete)
            throw CommandFailed("copy: some of " + inside +
                                " was not copied (see above); the "
                                "rest is in " +
                                local);
        return;
    }
    // The sandbox's bytes go to a file of the state directory first: the
    // destination is written by the CLI alone, once the sandbox's side is
    // done, and a failed copy leaves it as it was.
    Fd staged(::open(existing(request.id).dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600));
    if (!staged)
        throw CommandFailed(std::string("copy: cannot stage the file: ") + std::strerror(errno));
    if (run_to_end(request.id, {"cat", inside}, null_in.get(), staged.get(), 2) != 0)
        throw CommandFailed("copy: reading " + inside + " in sandbox " + request.id + " failed");
    Fd file = open_copy_target(local, base_name(inside));
    if (::ftruncate(file.get(), 0) != 0 || ::lseek(staged.get(), 0, SEEK_SET) != 0)
        throw CommandFailed("copy: cannot write " + local + ": " + std::strerror(errno));
    std::array<char, 65536> buffer{};
    ssize_t got;
    while ((got = ::read(staged.get(), buffer.data(), buffer.size())) > 0)
        if (!write_all(file.get(), buffer.data(), static_cast<std::size_t>(got)))
            throw CommandFailed("copy: cannot write " + local + ": " + std::strerror(errno));
}

std::string LocalBackend::snapshot(const std::string& id, const std::string& stamp) {
    const SandboxPaths paths = existing(id);
    const auto meta = read_meta(paths.meta);
    if (!meta) throw CommandFailed("sandbox " + id + " has no " + paths.meta);
    const std::string name = sandbox::snapshot_name(id, stamp);
    const std::string dir = snapshot_dir(root(), name);
    if (fs::exists(dir)) throw CommandFailed("snapshot " + name + " already exists");
    make_private_dirs(dir);
    try {
        copy_workspace(paths.workspace, dir + "/workspace");
        write_snapshot_meta(dir + "/snapshot.json", {id, meta->base});
    } catch (...) {
        remove_tree(dir);
        throw;
    }
    return name;
}

void LocalBackend::destroy(const std::string& id) {
    const SandboxPaths paths = existing(id);
    stop_supervisor(paths);
    if (const auto meta = read_meta(paths.meta)) remove_buildah_container(meta->buildah_container);
    remove_sandbox(paths);
}

void LocalBackend::remove_sandbox(const SandboxPaths& paths) {
    const std::string id = fs::path(paths.dir).filename().string();
    std::error_code ignored;
    fs::remove(listeners_dir(root()) + "/" + id, ignored);
    // What a killed supervisor could not remove (empty by now: nothing of it runs).
    std::ifstream cgroups(paths.cgroups);
    std::vector<std::string> directories;
    for (std::string line; std::getline(cgroups, line);)
        if (line.starts_with("/sys/fs/cgroup/") &&
            line.find("/osf-sandbox-" + id) != std::string::npos)
            directories.push_back(line);
    remove_sandbox_cgroups(directories);
    unmount_workspace_volume(paths);
    remove_tree(paths.dir);
}

std::vector<sandbox::SandboxRow> LocalBackend::list() {
    std::vector<sandbox::SandboxRow> rows;
    const long long now = epoch_seconds(options_.wall_clock());
    for (const auto& id : stored_sandbox_ids(root())) {
        const SandboxPaths paths = sandbox_paths(root(), id);
        const SandboxMeta meta = read_meta(paths.meta).value_or(SandboxMeta{});
        sandbox::SandboxRow row;
        row.id = id;
        row.status = sandbox_status(meta, liveness_of(paths));
        row.created = meta.created != 0 ? sandbox::rfc3339(wall_time(meta.created)) : "";
        row.age_seconds = meta.created != 0 ? std::max(0LL, now - meta.created) : 0;
        row.image = !meta.template_name.empty() ? meta.template_name : "-";
        if (meta.expires != 0) {
            row.expires = sandbox::rfc3339(wall_time(meta.expires));
            row.expires_in_seconds = meta.expires - now;
        }
        rows.push_back(row);
    }
    std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
        return a.age_seconds != b.age_seconds ? a.age_seconds > b.age_seconds : a.id < b.id;
    });
    return rows;
}

void LocalBackend::egress_log(const std::string& id, std::ostream& out, bool follow, bool raw) {
    const SandboxPaths paths = existing(id);
    std::ifstream log(paths.egress_log(), std::ios::binary);
    egress_log::RequestLineFilter filter; // unless raw: the request lines only
    auto print = [&](std::string_view text) {
        if (raw)
            out << text;
        else
            out << filter.feed(text);
    };
    if (!follow) {
        std::array<char, 65536> buffer{};
        while (log && (log.read(buffer.data(), buffer.size()), log.gcount() > 0))
            print(std::string_view(buffer.data(), static_cast<std::size_t>(log.gcount())));
        if (!raw) out << filter.finish();
        out.flush();
        return;
    }
    // Whole lines, as `egress-proxy log --follow` prints them, until the
    // supervisor is gone: it lets go of its lock only after its proxy wrote
    // its last line, so the read after that sees everything.
    std::string pending;
    std::array<char, 65536> buffer{};
    while (true) {
        const bool running = supervisor_running(paths);
        if (!log.is_open()) log.open(paths.egress_log(), std::ios::binary);
        while (log && (log.read(buffer.data(), buffer.size()), log.gcount() > 0))
            pending.append(buffer.data(), static_cast<std::size_t>(log.gcount()));
        log.clear();
        if (const auto newline = pending.rfind('\n'); newline != std::string::npos) {
            print(std::string_view(pending).substr(0, newline + 1));
            out << std::flush;
            pending.erase(0, newline + 1);
        }
        if (!running || !out) return;
        for (int slice = 0; slice < 4; ++slice) {
            if (const int signal = options_.pending_signal ? options_.pending_signal() : 0)
                throw commands::Interrupted(signal);
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
    }
}

std::unique_ptr<sandbox::EgressLogAccess> LocalBackend::egress_log_access(const std::string& id) {
    return std::make_unique<LocalLogAccess>(existing(id), id, options_.getenv);
}

std::vector<sandbox::Backend::Removal> LocalBackend::gc_plan() {
    std::vector<Removal> removals;
    const long long now = epoch_seconds(options_.wall_clock());
    for (const auto& id : stored_sandbox_ids(root())) {
        const SandboxPaths paths = sandbox_paths(root(), id);
        const SandboxMeta meta = read_meta(paths.meta).value_or(SandboxMeta{});
        if (const auto reason = gc_reason(meta, liveness_of(paths), now))
            removals.push_back({id, *reason});
    }
    return removals;
}

bool LocalBackend::gc_remove(const std::string& id) {
    const SandboxPaths paths = sandbox_paths(root(), id);
    if (!fs::is_directory(paths.dir)) return true; // a destroy or resume got there first
    const SandboxMeta meta = read_meta(paths.meta).value_or(SandboxMeta{});
    if (!gc_reason(meta, liveness_of(paths), epoch_seconds(options_.wall_clock()))) return false;
    kill_leftover_processes(paths);
    remove_buildah_container(meta.buildah_container);
    remove_sandbox(paths);
    return true;
}

sandbox::WallTime LocalBackend::extend(const std::string& id, std::chrono::seconds by,
                                       std::chrono::seconds max) {
    const SandboxPaths paths = existing(id);
    auto meta = read_meta(paths.meta);
    if (!meta) throw CommandFailed("sandbox " + id + " has no " + paths.meta);
    const auto expires = sandbox::extended_expiry(
        meta->expires != 0 ? std::optional(wall_time(meta->expires)) : std::nullopt,
        meta->created != 0 ? std::optional(wall_time(meta->created)) : std::nullopt, by, max,
        options_.wall_clock());
    meta->expires = epoch_seconds(expires);
    write_meta(paths.meta, *meta);
    // The supervisor reads the new expiry on SIGHUP.
    if (supervisor_running(paths))
        if (const auto pid = read_pid_file(paths.pid)) ::kill(*pid, SIGHUP);
    return expires;
}

sandbox::StateChange LocalBackend::suspend(const std::string& id) {
    const SandboxPaths paths = existing(id);
    auto meta = read_meta(paths.meta);
    if (!meta) throw CommandFailed("sandbox " + id + " has no " + paths.meta);
    const bool running = supervisor_running(paths);
    if (!running && meta->suspended_at != 0) return sandbox::StateChange::AlreadyThere;
    if (!running)
        throw CommandFailed("sandbox " + id +
                            " is not running (its supervisor is gone; gc removes it)");
    // Marked first, so that gc never takes the stopped sandbox for a dead one.
    meta->suspended_at = epoch_seconds(options_.wall_clock());
    write_meta(paths.meta, *meta);
    stop_supervisor(paths);
    return sandbox::StateChange::Done;
}

sandbox::StateChange LocalBackend::resume(const std::string& id, std::ostream& progress) {
    const SandboxPaths paths = existing(id);
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
    const auto now = options_.wall_clock();
    if (meta->expires != 0 && epoch_seconds(now) >= meta->expires) {
        // As on Kubernetes, where the claim is deleted at its expiry.
        remove_buildah_container(meta->buildah_container);
        remove_sandbox(paths);
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
    start_supervisor(paths, progress);
    meta->suspended_at = 0;
    write_meta(paths.meta, *meta);
    return sandbox::StateChange::Done;
}

} // namespace osf::local
