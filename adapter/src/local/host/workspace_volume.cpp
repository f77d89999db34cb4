#include "local/host/workspace_volume.hpp"

#include "local/host/host_environment.hpp"
#include "local/host/host_program.hpp"
#include "process/fd.hpp"
#include "process/spawn.hpp"
#include "process/wait.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <stdexcept>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

namespace osf::local {

namespace {

void run(const std::vector<std::string>& argv) {
    process::Fd null = process::open_null();
    process::SpawnSpec spec;
    spec.argv = argv;
    spec.fds = {{0, null.get()}, {1, null.get()}, {2, 2}};
    spec.env = host_program_environment(argv.at(0), caller_environment());
    if (process::wait_exit(process::spawn(spec)) != 0)
        throw std::runtime_error(argv[0] + " failed for the workspace's file system");
}

bool mounted(const SandboxPaths& paths) {
    struct stat workspace {
    }, dir{};
    return ::stat(paths.workspace.c_str(), &workspace) == 0 &&
           ::stat(paths.dir.c_str(), &dir) == 0 && workspace.st_dev != dir.st_dev;
}

} // namespace

void create_workspace_volume(const SandboxPaths& paths, long long bytes, unsigned owner) {
    {
        process::Fd image(
            ::open(paths.workspace_image.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
        if (!image || ::ftruncate(image.get(), bytes) != 0)
            throw std::runtime_error("cannot make " + paths.workspace_image + ": " +
                                     std::strerror(errno));
    }
    const std::string ids = std::to_string(owner) + ":" + std::to_string(owner);
    // No reserved blocks: the whole size is the sandbox's.
    run({"mkfs.ext4", "-q", "-F", "-m", "0", "-E", "root_owner=" + ids, paths.workspace_image});
    mount_workspace_volume(paths);
}

void mount_workspace_volume(const SandboxPaths& paths) {
    if (::access(paths.workspace_image.c_str(), F_OK) != 0 || mounted(paths)) return;
    run({"mount", "-o", "loop,nosuid,nodev", paths.workspace_image, paths.workspace});
}

void unmount_workspace_volume(const SandboxPaths& paths) {
    if (!mounted(paths)) return;
    if (::umount2(paths.workspace.c_str(), 0) != 0 &&
        ::umount2(paths.workspace.c_str(), MNT_DETACH) != 0)
        throw std::runtime_error("cannot unmount " + paths.workspace + ": " + std::strerror(errno));
}

} // namespace osf::local
