// Checks an egress log's hash chain and checkpoint signatures (log_chain.hpp).
// Pure: the caller reads the file; the key, when given, is the published one
// (<state-dir>/log-key.pub, the sandbox's CA ConfigMap).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace osf::egress_log {

struct VerifyReport {
    bool ok = false;
    std::size_t bad_line = 0; // the first line that does not hold (1-based); 0 when ok or none
    std::string problem;      // one sentence, when !ok
    std::size_t lines = 0;    // whole lines read
    std::size_t runs = 0;     // start lines: proxy runs that wrote to this file
    std::size_t checkpoints = 0;
    std::size_t last_checkpoint = 0; // its line; 0: no checkpoint
    bool trusted_key = false;        // the last checkpoint was checked against the given key
    bool ends_final = false;         // the last line is a run's final checkpoint
    std::size_t torn_tail_bytes = 0; // bytes after the last newline: not verified
};

// `text`: the log's bytes. `trusted_key`: raw Ed25519 public key (32 bytes);
// when given, the last checkpoint must be signed by it (it covers every line
// before it through the chain). Without it, each run's checkpoints are checked
// against the key its start line names, which proves only that the log is
// consistent with itself.
VerifyReport verify_log(std::string_view text, const std::optional<std::string>& trusted_key);

// The report for a terminal: "NAME: verified ..." and what is and is not
// signed, or "NAME:LINE: problem".
std::string describe(const VerifyReport& report, std::string_view name);

// The log's whole lines, each without its newline (a torn tail is left out).
std::vector<std::string_view> whole_lines(std::string_view text);

} // namespace osf::egress_log
