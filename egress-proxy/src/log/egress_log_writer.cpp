#include "log/egress_log_writer.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <stdexcept>
#include <unistd.h>

namespace osf::log {

namespace {
bool write_all(int fd, std::string_view data) {
    while (!data.empty()) {
        const ssize_t n = ::write(fd, data.data(), data.size());
        if (n < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        data.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
}
} // namespace

EgressLogWriter::EgressLogWriter(const std::string& path, bool mirror_to_stdout)
    : path_(path), mirror_(mirror_to_stdout) {
    fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0640);
    if (fd_ < 0)
        throw std::runtime_error("cannot open egress log " + path + ": " + std::strerror(errno));
}

EgressLogWriter::~EgressLogWriter() {
    if (fd_ >= 0) ::close(fd_);
}

bool EgressLogWriter::write(std::string_view line) {
    std::lock_guard lock(mutex_);
    // One write(2) per line on O_APPEND: lines never interleave, even with
    // other writers of the same file.
    const bool ok = write_all(fd_, line);
    if (mirror_) write_all(STDOUT_FILENO, line);
    return ok;
}

void EgressLogWriter::sync() {
    std::lock_guard lock(mutex_);
    ::fsync(fd_);
}

} // namespace osf::log
