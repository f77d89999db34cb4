// A sandbox's egress log as a reviewer takes it, whatever holds the sandbox:
// the key the adapter stored when the sandbox's proxy started, the proxy asked
// to sign its log to the last line, then the log; and what egress-log
// --verify/--summary print about such a copy. Verifying against the stored key
// does not take the proxy's word for it. Shared by sandbox-kubernetes and the
// command layer (commands/backend_commands).
#pragma once

#include "sandbox/egress_log_access.hpp"

#include <iosfwd>
#include <optional>
#include <string>

namespace osf::commands {

struct LogCopy {
    std::string text;
    sandbox::LogKey key;
};

// The key, a checkpoint (when the proxy cannot write one, one line on `err`:
// "<program>: the proxy wrote no checkpoint (...); lines after its last one
// are unsigned"), then the log.
LogCopy take_log_copy(sandbox::EgressLogAccess& access, std::ostream& err,
                      const std::string& program);

// egress-log --verify, or --summary [--json], of sandbox `id`'s copy: prints
// the report and returns the exit code (0 verified, 1 not).
int report_log_copy(const LogCopy& copy, const std::string& id, bool summary, bool json,
                    std::ostream& out, std::ostream& err);

// egress-log --report FILE, before anything is asked of the proxy: UsageError
// unless FILE is "-" or a file that can be written in an existing directory.
void check_report_file(const std::string& path);

// egress-log --report FILE of sandbox `id`'s copy: the reviewer's HTML page
// (contracts/egress_log/report_page.hpp) written to `path` (- for `out`);
// when the copy does not verify, verify's words on `err` as well. Returns the
// exit code (0 verified, 1 not); UsageError (exit 2) when `path` cannot be
// written.
int write_log_report(const LogCopy& copy, const std::string& id, const std::string& path,
                     std::ostream& out, std::ostream& err);

} // namespace osf::commands
