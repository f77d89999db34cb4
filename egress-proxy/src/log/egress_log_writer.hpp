// Appends egress log lines to <state-dir>/egress.jsonl, optionally mirrored
// to stdout. Each line goes out in one write(2) on an O_APPEND descriptor
// before the call returns: a line the proxy has answered for is in the
// kernel, so a crash of the proxy (even kill -9) cannot lose or tear it.
// Writers wait for each other (a mutex) rather than drop a line.
//
// The mutex also gives the lines their one order, which the hash chain
// records: under it each line gets its "chain" field (the SHA-256 of the
// line before, contracts/egress_log/log_chain.hpp), and every
// `checkpoint_every` lines a checkpoint line signing the chain head follows.
// A run begins with a start line naming a random log ID and the signing key.
#pragma once

#include "egress_log/log_chain.hpp"
#include "log/log_signer.hpp"

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>

namespace osf::log {

class EgressLogWriter {
public:
    // Opens (or continues) the log and writes the run's start line. An earlier
    // run's last line, when cut short by a crash mid-write, is cut off first
    // (its request was never answered); truncated_bytes() says how much.
    // Throws std::runtime_error naming the path when the file cannot be opened.
    EgressLogWriter(const std::string& path, bool mirror_to_stdout,
                    std::uint64_t checkpoint_every = 1000);
    ~EgressLogWriter();
    EgressLogWriter(const EgressLogWriter&) = delete;
    EgressLogWriter& operator=(const EgressLogWriter&) = delete;

    // Writes one whole JSON object line (must end in "}\n"), with the chain
    // field added. Returns false if the write failed (disk full); the caller
    // counts it, the proxy goes on (the chain then shows a line missing there).
    bool write(std::string_view line);

    // Writes a signed checkpoint when a line of this run is not signed yet,
    // the start line included (always when `final`: the run's last line, at
    // shutdown).
    void checkpoint(bool final = false);

    // fsync, for shutdown.
    void sync();

    const std::string& path() const { return path_; }
    const std::string& log_id() const { return log_id_; }
    std::string public_key_pem() const { return signer_.public_key_pem(); }
    std::uint64_t truncated_bytes() const { return truncated_bytes_; }

private:
    // Under mutex_: adds the chain field to buffer_ (an object without its
    // closing "}\n"), writes it, moves the chain on.
    bool append_locked();
    void checkpoint_locked(bool final);

    std::string path_;
    int fd_ = -1;
    bool mirror_;
    std::uint64_t checkpoint_every_;
    LogSigner signer_;
    std::string log_id_;
    std::uint64_t truncated_bytes_ = 0;
    std::mutex mutex_;
    egress_log::LineHasher hasher_;
    std::string chain_;                  // hex SHA-256 of the last line written
    std::string buffer_;                 // the line being written
    std::uint64_t run_lines_ = 0;        // lines of this run, the start line included
    std::uint64_t since_checkpoint_ = 0; // lines since the last checkpoint (or start)
    std::uint64_t signed_lines_ = 0;     // run_lines_ when the last checkpoint was written
};

} // namespace osf::log
