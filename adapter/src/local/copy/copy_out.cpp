#include "local/copy/copy_out.hpp"

#include "commands/command_errors.hpp"
#include "local/copy/copy_out_policy.hpp"
#include "local/host/host_program.hpp"
#include "local/protocol/sandbox_text.hpp"
#include "local/protocol/unix_socket.hpp"
#include "local/state/tree_removal.hpp"

#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace osf::local {

namespace fs = std::filesystem;
using commands::CommandFailed;

namespace {

// Removes the staged tree, whatever its depth and modes (tree_removal.hpp).
void remove_staged(const fs::path& dir) {
    try {
        remove_tree_at(dir);
    } catch (const std::exception&) {
        // what is left stays in the sandbox's state directory: destroy removes it
    }
}

// A mkdtemp directory (0700), removed with all it holds when this ends.
class StagingDir {
public:
    explicit StagingDir(const std::string& parent) {
        std::string pattern = parent + "/copy-XXXXXX";
        if (::mkdtemp(pattern.data()) == nullptr)
            throw CommandFailed("copy: cannot make a staging directory in " + parent + ": " +
                                std::strerror(errno));
        path_ = pattern;
    }
    StagingDir(const StagingDir&) = delete;
    StagingDir& operator=(const StagingDir&) = delete;
    ~StagingDir() { remove_staged(path_); }
    const std::string& path() const { return path_; }

private:
    std::string path_;
};

// The unpacking tar: its stdin's write end, closed and waited for on every way out.
class ConfinedTar {
public:
    ConfinedTar(const std::string& stage, bool user_namespace) {
        std::array<int, 2> pipe{};
        if (::pipe2(pipe.data(), O_CLOEXEC) != 0)
            throw CommandFailed(std::string("pipe: ") + std::strerror(errno));
        Fd read_end(pipe[0]);
        write_end_ = Fd(pipe[1]);
        // Only the staging directory is writable; no capabilities (no mknod,
        // no chown); no network. --no-same-permissions: the umask applies.
        std::vector<std::string> argv{"bwrap", "--ro-bind", "/", "/", "--bind", stage, stage};
        argv.insert(argv.end(), {"--dev", "/dev", "--proc", "/proc", "--unshare-all",
                                 "--die-with-parent", "--cap-drop", "ALL"});
        if (user_namespace) argv.insert(argv.end(), {"--unshare-user", "--disable-userns"});
        argv.insert(argv.end(), {"--", "tar", "xf", "-", "--no-same-owner", "--no-same-permissions",
                                 "-C", stage});
        pid_ = spawn_host(argv, read_end.get(), 2);
    }
    ConfinedTar(const ConfinedTar&) = delete;
    ConfinedTar& operator=(const ConfinedTar&) = delete;
    ~ConfinedTar() {
        if (pid_ > 0) finish();
    }
    int input() const { return write_end_.get(); }
    int finish() {
        write_end_ = Fd();
        const int code = wait_exit(pid_);
        pid_ = -1;
        return code;
    }

private:
    Fd write_end_;
    pid_t pid_ = -1;
};

class Installer {
public:
    Installer(const CopyOutTree& copy, std::ostream& warnings) : copy_(copy), warnings_(warnings) {
        umask_ = ::umask(0);
        ::umask(umask_);
    }

    bool complete() const { return complete_; }

    void directory(const fs::path& from, int into, const std::string& shown,
                   const std::string& local) {
        ::chmod(from.c_str(), 0700); // ours; tar may have made it unreadable
        std::error_code error;
        std::vector<fs::path> names;
        for (const auto& entry : fs::directory_iterator(from, error))
            names.push_back(entry.path().filename());
        if (error) return failed("copy: cannot read the staged " + printable_name(shown));
        for (const auto& name : names) {
            if (copy_.pending_signal)
                if (const int signal = copy_.pending_signal()) throw commands::Interrupted(signal);
            entry(from / name, into, shown + "/" + name.string(), local + "/" + name.string());
        }
    }

private:
    void entry(const fs::path& from, int into, const std::string& shown, const std::string& local) {
        struct stat info {};
        if (::lstat(from.c_str(), &info) != 0)
            return failed("copy: cannot read the staged " + printable_name(shown));
        const EntryType type = entry_type(info.st_mode);
        std::string target;
        if (type == EntryType::symlink) {
            std::error_code error;
            target = fs::read_symlink(from, error).string();
        }
        const CopyOutVerdict verdict = copy_out_verdict(shown, type, target);
        if (!verdict.keep) {
            warnings_ << verdict.warning << '\n';
            return;
        }
        const std::string name = from.filename().string();
        if (type == EntryType::directory) {
            const bool made = ::mkdirat(into, name.c_str(), 0700) == 0;
            if (!made && errno != EEXIST) return failed(local, errno);
            // O_NOFOLLOW: a symlink already in the destination is not followed.
            Fd child(::openat(into, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
            if (!child) return failed(local, errno);
            directory(from, child.get(), shown, local);
            if (made) ::fchmod(child.get(), copied_mode(info.st_mode) & ~umask_);
            return;
        }
        file(from, into, name, info.st_mode, local);
    }

    void file(const fs::path& from, int into, const std::string& name, mode_t mode,
              const std::string& local) {
        Fd source(::open(from.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
        if (!source && errno == EACCES && ::chmod(from.c_str(), 0600) == 0) // ours, unreadable
            source = Fd(::open(from.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
        if (!source) return failed("copy: cannot read the staged " + printable_name(local));
        OpenedTarget opened = open_target_at(into, name, 0600);
        if (opened.not_regular)
            return failed("copy: not writing " + printable_name(local) +
                          ": it exists and is not a regular file");
        if (!opened.fd) return failed(local, errno);
        const Fd target = std::move(opened.fd);
        std::array<char, 65536> buffer{};
        while (true) {
            const ssize_t got = ::read(source.get(), buffer.data(), buffer.size());
            if (got < 0 && errno == EINTR) continue;
            if (got < 0) return failed(local, errno);
            if (got == 0) break;
            if (!write_all(target.get(), buffer.data(), static_cast<std::size_t>(got)))
                return failed(local, errno);
        }
        ::fchmod(target.get(), copied_mode(mode) & ~umask_);
    }

    void failed(const std::string& local, int error) {
        failed("copy: cannot write " + printable_name(local) + ": " + std::strerror(error));
    }
    void failed(const std::string& line) {
        warnings_ << line << '\n';
        complete_ = false;
    }

    const CopyOutTree& copy_;
    std::ostream& warnings_;
    mode_t umask_ = 022;
    bool complete_ = true;
};

} // namespace

CopyOutOutcome copy_out_tree(const CopyOutTree& copy, std::ostream& warnings) {
    Fd destination(::open(copy.destination.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!destination)
        throw CommandFailed("copy: cannot open " + copy.destination + ": " + std::strerror(errno));
    StagingDir stage(copy.staging_parent);
    CopyOutOutcome outcome;
    {
        ConfinedTar tar(stage.path(), copy.user_namespace);
        outcome.producer_exit = copy.produce(tar.input());
        if (tar.finish() != 0) outcome.complete = false;
    }
    Installer installer(copy, warnings);
    installer.directory(stage.path(), destination.get(), copy.shown, copy.destination);
    outcome.complete = outcome.complete && installer.complete();
    return outcome;
}

OpenedTarget open_target_at(int dir, const std::string& name, mode_t mode) {
    OpenedTarget opened;
    // O_NONBLOCK: a FIFO does not hang the open (refused below).
    opened.fd =
        Fd(::openat(dir, name.c_str(),
                    O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, mode));
    if (!opened.fd) return opened;
    struct stat info {};
    if (::fstat(opened.fd.get(), &info) != 0 || !S_ISREG(info.st_mode)) {
        opened.fd = Fd();
        opened.not_regular = true;
        return opened;
    }
    ::fcntl(opened.fd.get(), F_SETFL, 0);
    return opened;
}

void strip_privilege_bits(const std::string& dir) {
    std::error_code error;
    for (auto it = fs::recursive_directory_iterator(dir, error);
         !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
        struct stat info {};
        if (::lstat(it->path().c_str(), &info) != 0 || S_ISLNK(info.st_mode)) continue;
        if ((info.st_mode & 07000) != 0)
            ::fchmodat(AT_FDCWD, it->path().c_str(), copied_mode(info.st_mode), 0);
    }
}

} // namespace osf::local
