#include "local/copy/workspace_copy.hpp"

#include "commands/command_errors.hpp"
#include "local/copy/copy_out_policy.hpp"
#include "local/protocol/sandbox_text.hpp"
#include "process/fd.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <climits>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace osf::local {

namespace {

using commands::CommandFailed;
using process::Fd;

// The names in the directory `dir` (read through a descriptor of its own).
std::vector<std::string> names_in(int dir) {
    std::vector<std::string> names;
    const int copy = ::openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (copy < 0) return names;
    DIR* stream = ::fdopendir(copy);
    if (stream == nullptr) {
        ::close(copy);
        return names;
    }
    while (const dirent* entry = ::readdir(stream)) {
        const std::string name = entry->d_name;
        if (name != "." && name != "..") names.push_back(name);
    }
    ::closedir(stream);
    return names;
}

// Two descriptors per level of the walk.
void allow_descriptors_for_depth() {
    rlimit limit{};
    if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return;
    const rlim_t wanted = 2 * kWorkspaceCopyMaxDepth + 64;
    if (limit.rlim_cur >= wanted) return;
    limit.rlim_cur = std::min(limit.rlim_max, wanted);
    ::setrlimit(RLIMIT_NOFILE, &limit);
}

class Copier {
public:
    Copier(unsigned long long max_bytes, std::ostream& warnings)
        : max_bytes_(max_bytes), warnings_(warnings), root_(::geteuid() == 0) {}

    void directory(int from, int into, const std::string& shown, int depth) {
        if (depth > kWorkspaceCopyMaxDepth)
            throw CommandFailed("snapshot: " + printable_name(shown) + " is nested deeper than " +
                                std::to_string(kWorkspaceCopyMaxDepth) + " directories");
        for (const std::string& name : names_in(from))
            entry(from, into, name, shown.empty() ? name : shown + "/" + name, depth);
    }

    // The copy's own attributes, from the source's: owner (as root), the rwx
    // bits and the times.
    void finish(int target, const struct stat& info) const {
        if (root_ && ::fchown(target, info.st_uid, info.st_gid) != 0) {
            // kept as root's: the copy is still whole
        }
        ::fchmod(target, copied_mode(info.st_mode));
        const std::array<timespec, 2> times{info.st_atim, info.st_mtim};
        ::futimens(target, times.data());
    }

private:
    void entry(int from, int into, const std::string& name, const std::string& shown, int depth) {
        struct stat info {};
        if (::fstatat(from, name.c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0)
            return; // gone meanwhile
        switch (entry_type(info.st_mode)) {
        case EntryType::symlink:
            return link(from, into, name, shown);
        case EntryType::directory:
            return subdirectory(from, into, name, shown, depth);
        case EntryType::regular:
            return file(from, into, name, shown);
        default:
            // The warning names the type: "snapshot: skipped fifo d/f".
            warnings_ << "snapshot"
                      << copy_out_verdict(shown, entry_type(info.st_mode)).warning.substr(4)
                      << '\n';
        }
    }

    void changed(const std::string& shown) {
        warnings_ << "snapshot: skipped " << printable_name(shown)
                  << ": it changed while it was copied\n";
    }

    // Opens `name` below `from`, never through a symlink, and looks at what was opened (not
    // at the name, which the sandbox may have swapped since the fstatat). False, with the
    // warning said, when it is unreadable or gone.
    bool open_entry(int from, const std::string& name, const std::string& shown, int flags,
                    Fd& opened, struct stat& info) {
        const int fd = ::openat(from, name.c_str(), flags | O_NOFOLLOW | O_CLOEXEC);
        int error = fd < 0 ? errno : 0; // before Fd's assignment, which may close
        opened = Fd(fd);
        if (fd >= 0 && ::fstat(fd, &info) != 0) error = errno;
        if (error == 0) return true;
        if (error == EACCES)
            warnings_ << "snapshot: skipped " << printable_name(shown) << ": unreadable\n";
        else
            changed(shown);
        return false;
    }

    void subdirectory(int from, int into, const std::string& name, const std::string& shown,
                      int depth) {
        Fd source;
        struct stat info {};
        if (!open_entry(from, name, shown, O_RDONLY | O_DIRECTORY, source, info)) return;
        if (::mkdirat(into, name.c_str(), 0700) != 0) failed(shown);
        Fd target(::openat(into, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
        if (!target) failed(shown);
        directory(source.get(), target.get(), shown, depth + 1);
        finish(target.get(), info);
    }

    void file(int from, int into, const std::string& name, const std::string& shown) {
        // O_NONBLOCK: should a FIFO be there by now, the open does not wait for a writer.
        Fd source;
        struct stat info {};
        if (!open_entry(from, name, shown, O_RDONLY | O_NONBLOCK | O_NOCTTY, source, info)) return;
        if (!S_ISREG(info.st_mode)) return changed(shown);
        if (static_cast<unsigned long long>(info.st_size) > max_bytes_ - written_) too_large();
        Fd target(::openat(into, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                           0600));
        if (!target) failed(shown);
        std::array<char, 65536> buffer{};
        while (true) {
            const ssize_t got = ::read(source.get(), buffer.data(), buffer.size());
            if (got < 0 && errno == EINTR) continue;
            if (got < 0) return changed(shown);
            if (got == 0) break;
            written_ += static_cast<unsigned long long>(got);
            if (written_ > max_bytes_) too_large();
            if (!process::write_all(target.get(), buffer.data(), static_cast<std::size_t>(got)))
                failed(shown);
        }
        finish(target.get(), info);
    }

    void link(int from, int into, const std::string& name, const std::string& shown) {
        std::array<char, PATH_MAX> target{};
        const ssize_t size = ::readlinkat(from, name.c_str(), target.data(), target.size() - 1);
        if (size < 0) return changed(shown);
        if (::symlinkat(std::string(target.data(), static_cast<std::size_t>(size)).c_str(), into,
                        name.c_str()) != 0)
            failed(shown);
        struct stat info {};
        if (::fstatat(from, name.c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0) return;
        if (root_ &&
            ::fchownat(into, name.c_str(), info.st_uid, info.st_gid, AT_SYMLINK_NOFOLLOW) != 0) {
            // kept as root's
        }
        const std::array<timespec, 2> times{info.st_atim, info.st_mtim};
        ::utimensat(into, name.c_str(), times.data(), AT_SYMLINK_NOFOLLOW);
    }

    [[noreturn]] void too_large() const {
        throw CommandFailed("snapshot: the workspace holds more than " + shown_bytes(max_bytes_) +
                            " (its storage, or OSF_SANDBOX_COPY_LIMIT)");
    }

    [[noreturn]] static void failed(const std::string& shown) {
        throw CommandFailed("snapshot: cannot write the copy of " + printable_name(shown) + ": " +
                            std::strerror(errno));
    }

    unsigned long long max_bytes_;
    std::ostream& warnings_;
    bool root_;
    unsigned long long written_ = 0;
};

} // namespace

void copy_workspace(const std::string& workspace, const std::string& destination,
                    unsigned long long max_bytes, std::ostream& warnings) {
    allow_descriptors_for_depth();
    Fd source(::open(workspace.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    struct stat info {};
    if (!source || ::fstat(source.get(), &info) != 0)
        throw CommandFailed("snapshot: cannot open " + workspace + ": " + std::strerror(errno));
    if (::mkdir(destination.c_str(), 0700) != 0)
        throw CommandFailed("snapshot: cannot create " + destination + ": " + std::strerror(errno));
    Fd target(::open(destination.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!target)
        throw CommandFailed("snapshot: cannot open " + destination + ": " + std::strerror(errno));
    Copier copier(max_bytes, warnings);
    copier.directory(source.get(), target.get(), "", 1);
    copier.finish(target.get(), info);
}

} // namespace osf::local
