#include "local/state/tree_removal.hpp"

#include "process/fd.hpp"

#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace osf::local {

namespace {

using process::Fd;

struct Level {
    dev_t device;
    ino_t inode;
    std::string name; // the name of the level below, in this one
};

constexpr int kDirectoryFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;

// The next directory entry of `dir` that is not removed by unlinking it or by
// rmdir (an empty directory); "" when there is none left.
std::string first_left(int dir, std::string& error) {
    const int copy = ::openat(dir, ".", kDirectoryFlags);
    if (copy < 0) {
        error = std::strerror(errno);
        return "";
    }
    DIR* stream = ::fdopendir(copy);
    if (stream == nullptr) {
        ::close(copy);
        error = std::strerror(errno);
        return "";
    }
    std::string left;
    while (const dirent* entry = ::readdir(stream)) {
        const std::string name = entry->d_name;
        if (name == "." || name == "..") continue;
        if (::unlinkat(dir, name.c_str(), 0) == 0) continue;
        if (errno != EISDIR && errno != EPERM) {
            if (errno != ENOENT) error = name + ": " + std::strerror(errno);
            continue;
        }
        if (::unlinkat(dir, name.c_str(), AT_REMOVEDIR) == 0) continue;
        left = name;
        break;
    }
    ::closedir(stream);
    return left;
}

// Opens the subdirectory `name` of `dir`, making it the caller's to enter
// when the sandbox made it unreadable.
Fd open_below(int dir, const std::string& name) {
    Fd child(::openat(dir, name.c_str(), kDirectoryFlags));
    if (!child && errno == EACCES && ::fchmodat(dir, name.c_str(), 0700, 0) == 0)
        child = Fd(::openat(dir, name.c_str(), kDirectoryFlags));
    return child;
}

} // namespace

void remove_tree_at(const std::string& dir) {
    Fd current(::open(dir.c_str(), kDirectoryFlags));
    if (!current) {
        if (errno == ENOENT) return;
        if (errno == ENOTDIR || errno == ELOOP) {
            if (::unlink(dir.c_str()) == 0) return;
        } else if (errno == EACCES && ::chmod(dir.c_str(), 0700) == 0) {
            current = Fd(::open(dir.c_str(), kDirectoryFlags));
        }
        if (!current)
            throw std::runtime_error("cannot remove " + dir + ": " + std::strerror(errno));
    }
    ::fchmod(current.get(), 0700); // written and searched by us, whatever the sandbox set
    std::vector<Level> above;
    std::string error;
    while (true) {
        std::string left = first_left(current.get(), error);
        // readdir may miss entries of a directory changed while it is read: once more.
        if (left.empty() && error.empty()) left = first_left(current.get(), error);
        if (!left.empty()) {
            Fd child = open_below(current.get(), left);
            struct stat here {};
            if (!child || ::fstat(current.get(), &here) != 0) {
                error = left + ": " + std::strerror(errno);
                break;
            }
            ::fchmod(child.get(), 0700);
            above.push_back({here.st_dev, here.st_ino, left});
            current = std::move(child);
            continue;
        }
        if (!error.empty() || above.empty()) break;
        // Empty: up one level, to the very directory it was entered from.
        Fd parent(::openat(current.get(), "..", kDirectoryFlags));
        struct stat info {};
        if (!parent || ::fstat(parent.get(), &info) != 0 || info.st_dev != above.back().device ||
            info.st_ino != above.back().inode) {
            error = "the tree moved while it was removed";
            break;
        }
        current = std::move(parent);
        if (::unlinkat(current.get(), above.back().name.c_str(), AT_REMOVEDIR) != 0) {
            error = above.back().name + ": " + std::strerror(errno);
            break;
        }
        above.pop_back();
    }
    current = Fd();
    if (error.empty() && ::rmdir(dir.c_str()) == 0) return;
    if (error.empty()) error = std::strerror(errno);
    throw std::runtime_error("cannot remove " + dir + ": " + error);
}

} // namespace osf::local
