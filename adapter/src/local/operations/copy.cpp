#include "local/operations/copy.hpp"

#include "commands/command_errors.hpp"
#include "local/copy/copy_out.hpp"
#include "local/host/host_mounts.hpp"
#include "local/host/host_program.hpp"
#include "local/operations/in_sandbox.hpp"
#include "local/protocol/sandbox_text.hpp"
#include "process/spawn.hpp"
#include "sandbox/sandbox_id.hpp"

#include <array>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <iostream>
#include <sys/stat.h>
#include <unistd.h>

namespace osf::local::operations {

namespace fs = std::filesystem;
using commands::CommandFailed;

namespace {

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

// A file or a directory of the host into the sandbox, through its tar or cat.
void copy_into_sandbox(OperationContext& context, const sandbox::CopyRequest& request,
                       const CopyBounds& bounds, int null_out) {
    const std::string& inside = request.sandbox_path;
    const std::string& local = request.local_path;
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
        code = run_to_end(context, request.id,
                          {"sh", "-c",
                           "{ [ -d \"$1\" ] || mkdir -- \"$1\"; } && "
                           "tar xf - --no-same-owner -C \"$1\"",
                           "sh", inside},
                          read_end.get(), null_out, bounds);
        read_end = Fd();
        if (wait_exit(tar) != 0) throw CommandFailed("copy: tar failed reading " + local);
    } else {
        Fd file = open_or_fail(local, O_RDONLY);
        code =
            run_to_end(context, request.id,
                       {"sh", "-c", "if [ -d \"$1\" ]; then cat > \"$1/$2\"; else cat > \"$1\"; fi",
                        "sh", inside, base_name(local)},
                       file.get(), null_out, bounds);
    }
    if (code != 0)
        throw CommandFailed("copy: writing " + inside + " in sandbox " + request.id + " failed");
}

// A directory of the sandbox onto the host, through copy_out.hpp.
void copy_directory_out(OperationContext& context, const sandbox::CopyRequest& request,
                        const CopyBounds& bounds, int null_in) {
    const std::string& inside = request.sandbox_path;
    const std::string& local = request.local_path;
    std::error_code error;
    const bool made = fs::create_directories(local, error);
    if (error) throw CommandFailed("copy: cannot create " + local + ": " + error.message());
    // Past a bound nothing was installed: a directory made for the copy goes too.
    struct Unmake {
        const std::string& path;
        bool armed;
        ~Unmake() {
            std::error_code ignored;
            if (armed) fs::remove(path, ignored); // only when still empty
        }
    } unmake{local, made};
    // The sandbox writes the stream (its tar may be anything): see copy_out.hpp.
    CopyOutTree tree;
    tree.staging_parent = context.existing(request.id).dir;
    tree.shown = base_name(inside);
    tree.destination = local;
    tree.user_namespace = bwrap_gets_user_namespace();
    tree.produce = [&](int out) {
        return run_to_end(context, request.id, {"tar", "cf", "-", "-C", inside, "."}, null_in, out,
                          bounds);
    };
    tree.pending_signal = context.options.pending_signal;
    const CopyOutOutcome outcome = copy_out_tree(tree, std::cerr);
    unmake.armed = false;
    if (outcome.producer_exit != 0)
        throw CommandFailed("copy: reading " + inside + " in sandbox " + request.id + " failed");
    if (!outcome.complete)
        throw CommandFailed("copy: some of " + inside +
                            " was not copied (see above); the "
                            "rest is in " +
                            local);
}

// A regular file of the sandbox onto the host.
void copy_file_out(OperationContext& context, const sandbox::CopyRequest& request,
                   const CopyBounds& bounds, int null_in) {
    const std::string& inside = request.sandbox_path;
    const std::string& local = request.local_path;
    // The sandbox's bytes go to a file of the state directory first: the
    // destination is written by the CLI alone, once the sandbox's side is
    // done, and a failed copy leaves it as it was.
    Fd staged(
        ::open(context.existing(request.id).dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600));
    if (!staged)
        throw CommandFailed(std::string("copy: cannot stage the file: ") + std::strerror(errno));
    if (run_to_end(context, request.id, {"cat", inside}, null_in, staged.get(), bounds) != 0)
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

} // namespace

void copy(OperationContext& context, const sandbox::CopyRequest& request) {
    Fd null_in = open_or_fail("/dev/null", O_RDONLY);
    // What the sandbox's side of a step writes on stdout is not the CLI's to print.
    Fd null_out = open_or_fail("/dev/null", O_WRONLY);
    const std::string& inside = request.sandbox_path;
    const CopyBounds bounds = copy_bounds_of(context, request.id);
    if (request.into_sandbox) return copy_into_sandbox(context, request, bounds, null_out.get());
    const auto test = [&](const char* flag) {
        return run_to_end(context, request.id, {"test", flag, inside}, null_in.get(),
                          null_out.get(), bounds) == 0;
    };
    if (!test("-e")) throw CommandFailed("copy: no " + inside + " in sandbox " + request.id);
    const bool directory = test("-d");
    // A FIFO, a device (/dev/zero behind a symlink) or a socket has no end to copy.
    if (!directory && !test("-f"))
        throw CommandFailed("copy: " + printable_name(inside) + " in sandbox " + request.id +
                            " is not a regular file or a directory");
    if (directory) return copy_directory_out(context, request, bounds, null_in.get());
    copy_file_out(context, request, bounds, null_in.get());
}

} // namespace osf::local::operations
