#include "local/host/mount_staging.hpp"

#include <cerrno>
#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

namespace osf::local {

int stage_binds(const std::vector<StagedBind>& binds) {
    if (::unshare(CLONE_NEWNS) != 0) return errno;
    if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) return errno;
    if (::mount("osf-stage", "/run", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=1m") != 0)
        return errno;
    if (::mkdir(kStagingDir, 0755) != 0) return errno;
    for (const auto& bind : binds) {
        if (!bind.link_target.empty()) {
            if (::symlink(bind.link_target.c_str(), bind.target.c_str()) != 0) return errno;
            continue;
        }
        if (bind.directory) {
            if (::mkdir(bind.target.c_str(), 0755) != 0) return errno;
        } else {
            const int fd = ::open(bind.target.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
            if (fd < 0) return errno;
            ::close(fd);
        }
        if (bind.source.empty()) continue;
        if (::mount(bind.source.c_str(), bind.target.c_str(), nullptr, MS_BIND | MS_REC, nullptr) !=
            0)
            return errno;
    }
    return 0;
}

} // namespace osf::local
