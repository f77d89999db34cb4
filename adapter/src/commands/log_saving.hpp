// Saving a sandbox's egress log before it is removed (destroy --save-log,
// gc --save-logs): a copy signed to its last line, verified against the key
// the adapter stored, written with that key next to it. Never over an
// existing file: a saved log may be evidence. Shared by every sandbox CLI.
#pragma once

#include "commands/command_errors.hpp"
#include "commands/egress_log_copy.hpp"

#include <functional>
#include <iosfwd>
#include <string>

namespace osf::commands {

// The copy was written to `path` (and its key to `path`.pub) but does not
// verify; what() says why, naming the first bad line.
class LogDoesNotVerify : public CommandFailed {
public:
    using CommandFailed::CommandFailed;
};

// Copies the log to `path` and its key to `path`.pub and prints on `err` how
// it verified. Throws LogDoesNotVerify when the copy does not verify,
// CommandFailed (or the access's own error) when it cannot be read or
// written: the caller then removes nothing.
void save_log(sandbox::EgressLogAccess& access, std::ostream& err, const std::string& program,
              const std::string& path);

// destroy --save-log FILE: UsageError when FILE or FILE.pub already exists.
void check_new_log_file(const std::string& path);

// What destroy says when the saved copy does not verify (and removes nothing).
std::string destroy_not_removed(const LogDoesNotVerify& e, const std::string& id);

// gc --save-logs DIR: UsageError unless DIR is a directory gc can write into.
void check_log_directory(const std::string& dir);

// Saves sandbox `id`'s log into `dir` as <ID>.jsonl (+ .pub) through `save`
// (called with that path); false, and one line on `err` saying why, when the
// sandbox must stay. Interrupted passes through.
bool keep_log_in(const std::string& dir, const std::string& id, std::ostream& err,
                 const std::string& program, const std::function<void(const std::string&)>& save);

} // namespace osf::commands
