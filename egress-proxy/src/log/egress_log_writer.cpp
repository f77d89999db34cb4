#include "log/egress_log_writer.hpp"

#include "log/json_line_writer.hpp"
#include "log/log_record.hpp"
#include "osf/log_fields.hpp"

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <optional>
#include <stdexcept>
#include <sys/stat.h>
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

std::string read_at(int fd, off_t offset, std::size_t size) {
    std::string out(size, '\0');
    std::size_t done = 0;
    while (done < size) {
        const ssize_t n =
            ::pread(fd, out.data() + done, size - done, offset + static_cast<off_t>(done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0)
            throw std::runtime_error(std::string("cannot read egress log: ") +
                                     (n < 0 ? std::strerror(errno) : "file shrank"));
        done += static_cast<std::size_t>(n);
    }
    return out;
}

// The file's last whole line (with its '\n') and the size up to its end,
// reading backwards in blocks: the file may be large, lines are short.
struct Tail {
    std::string last_line;
    off_t whole_size = 0;
};

Tail read_tail(int fd, off_t size) {
    constexpr off_t block = 64 * 1024;
    std::string seen; // the file's bytes from `from` to its end
    off_t from = size;
    std::optional<std::size_t> last_newline; // in `seen`
    while (from > 0) {
        const off_t step = std::min(block, from);
        from -= step;
        seen.insert(0, read_at(fd, from, static_cast<std::size_t>(step)));
        if (last_newline) {
            *last_newline += static_cast<std::size_t>(step);
        } else if (const auto at = seen.rfind('\n'); at != std::string::npos) {
            last_newline = at;
        }
        if (last_newline && *last_newline > 0) {
            const auto before = seen.rfind('\n', *last_newline - 1);
            if (before != std::string::npos)
                return {seen.substr(before + 1, *last_newline - before),
                        from + static_cast<off_t>(*last_newline + 1)};
        }
    }
    if (last_newline)
        return {seen.substr(0, *last_newline + 1), static_cast<off_t>(*last_newline + 1)};
    return {};
}

} // namespace

EgressLogWriter::EgressLogWriter(const std::string& path, bool mirror_to_stdout,
                                 std::uint64_t checkpoint_every)
    : path_(path), mirror_(mirror_to_stdout),
      checkpoint_every_(checkpoint_every ? checkpoint_every : 1), log_id_(random_hex(16)) {
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0640);
    if (fd_ < 0)
        throw std::runtime_error("cannot open egress log " + path + ": " + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd_, &st) != 0) {
        ::close(fd_);
        throw std::runtime_error("cannot stat egress log " + path + ": " + std::strerror(errno));
    }
    try {
        if (st.st_size > 0) {
            // Continue the chain of the runs before this one, so that the
            // whole file verifies against this run's key.
            const Tail tail = read_tail(fd_, st.st_size);
            if (tail.whole_size < st.st_size) {
                if (::ftruncate(fd_, tail.whole_size) != 0)
                    throw std::runtime_error(std::string("cannot cut a torn last line: ") +
                                             std::strerror(errno));
                truncated_bytes_ = static_cast<std::uint64_t>(st.st_size - tail.whole_size);
            }
            chain_ = tail.last_line.empty() ? egress_log::to_hex(egress_log::sha256(log_id_))
                                            : egress_log::to_hex(hasher_.hash(tail.last_line));
        } else {
            chain_ = egress_log::to_hex(egress_log::sha256(log_id_));
        }
    } catch (...) {
        ::close(fd_);
        throw;
    }
    std::lock_guard lock(mutex_);
    buffer_.clear();
    JsonLineWriter j(buffer_);
    j.field(osf::log_field::time, format_time(std::chrono::system_clock::now()));
    j.field(osf::log_evidence_field::kind, osf::log_kind::start);
    j.field(osf::log_evidence_field::log_id, log_id_);
    j.field(osf::log_evidence_field::public_key, egress_log::base64_encode(signer_.public_key()));
    if (!append_locked())
        throw std::runtime_error("cannot write egress log " + path + ": " + std::strerror(errno));
    // The start line alone does not bring the line-count checkpoint nearer, but
    // it is unsigned until a checkpoint: an idle proxy's log must verify too.
    since_checkpoint_ = 0;
}

EgressLogWriter::~EgressLogWriter() {
    if (fd_ >= 0) ::close(fd_);
}

bool EgressLogWriter::append_locked() {
    buffer_.append(",\"chain\":\"").append(chain_).append("\"}\n");
    // One write(2) per line on O_APPEND: lines never interleave, even with
    // other writers of the same file.
    const bool ok = write_all(fd_, buffer_);
    if (mirror_) write_all(STDOUT_FILENO, buffer_);
    egress_log::to_hex(hasher_.hash(buffer_), chain_);
    ++run_lines_;
    ++since_checkpoint_;
    return ok;
}

bool EgressLogWriter::write(std::string_view line) {
    assert(line.size() >= 3 && line.substr(line.size() - 2) == "}\n");
    std::lock_guard lock(mutex_);
    buffer_.assign(line.data(), line.size() - 2);
    const bool ok = append_locked();
    if (since_checkpoint_ >= checkpoint_every_) checkpoint_locked(false);
    return ok;
}

void EgressLogWriter::checkpoint(bool final) {
    std::lock_guard lock(mutex_);
    if (final || run_lines_ > signed_lines_) checkpoint_locked(final);
}

void EgressLogWriter::checkpoint_locked(bool final) {
    namespace f = osf::log_evidence_field;
    const std::string time = format_time(std::chrono::system_clock::now());
    const std::uint64_t lines = run_lines_;
    const std::string signature =
        signer_.sign(egress_log::checkpoint_message(log_id_, lines, time, chain_, final));
    buffer_.clear();
    JsonLineWriter j(buffer_);
    j.field(osf::log_field::time, time);
    j.field(f::kind, osf::log_kind::checkpoint);
    j.field(f::log_id, log_id_);
    j.field(f::lines, lines);
    if (final) j.field(f::final, true);
    j.field(f::signature, egress_log::base64_encode(signature));
    append_locked();
    since_checkpoint_ = 0;
    signed_lines_ = run_lines_;
}

void EgressLogWriter::sync() {
    std::lock_guard lock(mutex_);
    ::fsync(fd_);
}

} // namespace osf::log
