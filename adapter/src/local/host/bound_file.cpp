#include "local/host/bound_file.hpp"

#include "process/fd.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

namespace osf::local {

namespace {

[[noreturn]] void fail(const std::string& what, const std::string& path, int error) {
    throw std::runtime_error(what + path + ": " + std::strerror(error));
}

} // namespace

void make_bound_file(const std::string& path, mode_t mode) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, mode);
    if (fd < 0) fail("cannot make ", path, errno);
    const int changed = ::fchmod(fd, mode); // the mode exactly, whatever the umask
    const int error = errno;
    ::close(fd);
    if (changed != 0) fail("cannot make ", path, error);
}

void rewrite_bound_file(const std::string& path, std::string_view content) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) fail("cannot rewrite ", path, errno);
    errno = 0;
    if (!process::write_all(fd, content.data(), content.size())) {
        const int error = errno ? errno : EIO;
        ::close(fd);
        fail("cannot rewrite ", path, error);
    }
    ::close(fd);
}

} // namespace osf::local
