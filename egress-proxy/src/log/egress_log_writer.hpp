// Appends egress log lines to <state-dir>/egress.jsonl, optionally mirrored
// to stdout. Each line goes out in one write(2) on an O_APPEND descriptor
// before the call returns: a line the proxy has answered for is in the
// kernel, so a crash of the proxy (even kill -9) cannot lose or tear it.
// Writers wait for each other (a mutex) rather than drop a line.
#pragma once

#include <mutex>
#include <string>
#include <string_view>

namespace osf::log {

class EgressLogWriter {
public:
    // Throws std::runtime_error naming the path when the file cannot be opened.
    EgressLogWriter(const std::string& path, bool mirror_to_stdout);
    ~EgressLogWriter();
    EgressLogWriter(const EgressLogWriter&) = delete;
    EgressLogWriter& operator=(const EgressLogWriter&) = delete;

    // Writes one whole line (must end in '\n'). Returns false if the write
    // failed (disk full); the caller counts it, the proxy goes on.
    bool write(std::string_view line);

    // fsync, for shutdown.
    void sync();

    const std::string& path() const { return path_; }

private:
    std::string path_;
    int fd_ = -1;
    bool mirror_;
    std::mutex mutex_;
};

} // namespace osf::log
