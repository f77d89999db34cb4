#include "commands/log_saving.hpp"

#include "egress_log/log_verifier.hpp"

#include <cerrno>
#include <cstring>
#include <exception>
#include <fcntl.h>
#include <ostream>
#include <sys/stat.h>
#include <unistd.h>

namespace osf::commands {

namespace {

// Writes `text` to a new file (never over an existing one: it may be evidence).
void write_new_file(const std::string& path, const std::string& text) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0640);
    if (fd < 0) throw CommandFailed("cannot create " + path + ": " + std::strerror(errno));
    std::size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            const std::string why = std::strerror(errno);
            ::close(fd);
            throw CommandFailed("cannot write " + path + ": " + why);
        }
        done += static_cast<std::size_t>(n);
    }
    if (::fsync(fd) != 0 || ::close(fd) != 0)
        throw CommandFailed("cannot write " + path + ": " + std::strerror(errno));
}

} // namespace

void save_log(sandbox::EgressLogAccess& access, std::ostream& err, const std::string& program,
              const std::string& path) {
    const LogCopy copy = take_log_copy(access, err, program);
    const auto report = egress_log::verify_log(copy.text, copy.key.raw);
    write_new_file(path, copy.text);
    write_new_file(path + ".pub", copy.key.pem); // the stored key goes with the sandbox
    if (!report.ok)
        throw LogDoesNotVerify(
            "saved the egress log to " + path + " but it does not verify (" +
            (report.bad_line ? "line " + std::to_string(report.bad_line) + ": " : std::string()) +
            report.problem + ")");
    err << egress_log::describe(report, path);
}

void check_new_log_file(const std::string& path) {
    for (const auto& file : {path, path + ".pub"})
        if (!path.empty() && ::access(file.c_str(), F_OK) == 0)
            throw UsageError("--save-log: " + file + " already exists");
}

std::string destroy_not_removed(const LogDoesNotVerify& e, const std::string& id) {
    return std::string(e.what()) + "; sandbox " + id +
           " not removed: destroy it without --save-log to remove it anyway";
}

void check_log_directory(const std::string& dir) {
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
        throw UsageError("--save-logs: " + dir + " is not a directory");
    if (::access(dir.c_str(), W_OK | X_OK) != 0)
        throw UsageError("--save-logs: " + dir + " is not writable");
}

bool keep_log_in(const std::string& dir, const std::string& id, std::ostream& err,
                 const std::string& program, const std::function<void(const std::string&)>& save) {
    const std::string path = dir + "/" + id + ".jsonl";
    for (const auto& file : {path, path + ".pub"})
        if (::access(file.c_str(), F_OK) == 0) {
            err << program << ": " << id << " not removed: " << file
                << " already exists (a saved log is never overwritten)\n";
            return false;
        }
    try {
        save(path);
        return true;
    } catch (const Interrupted&) {
        throw;
    } catch (const std::exception& e) {
        err << program << ": " << id << " not removed: its egress log was not "
            << "kept: " << one_line(e.what()) << "\n";
        return false;
    }
}

} // namespace osf::commands
