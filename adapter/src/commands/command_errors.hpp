// The outcomes a subcommand reports besides success, each with its exit code:
// bad usage or input (2), a failure (1), an interruption (128 + signal).
#pragma once

#include <functional>
#include <iosfwd>
#include <stdexcept>
#include <string>

namespace osf::commands {

inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;
inline constexpr const char* kErrorPrefix = "sandbox-kubernetes: ";

// Exit 2: an invalid ID, spec, variable or argument. Nothing was started.
class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Exit 1: the command could not do its work (unknown ID, start failure...).
class CommandFailed : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Exit 128 + signal: Ctrl-C (130) or SIGTERM (143) arrived.
class Interrupted : public std::runtime_error {
public:
    explicit Interrupted(int signal) : std::runtime_error("interrupted"), signal_(signal) {}
    int signal() const { return signal_; }

private:
    int signal_;
};

// Throws Interrupted when `pending_signal` (SIGINT, SIGTERM since start, 0
// when none) reports one.
void check_interrupted(const std::function<int()>& pending_signal);

// Prints `message` to `err`, every line of it prefixed with `prefix`.
// A message that holds several errors prints one line per error.
void print_error(std::ostream& err, const std::string& message,
                 const std::string& prefix = kErrorPrefix);

// The lines of `text`, trimmed, joined with "; ": one error on one line.
std::string one_line(const std::string& text);

// Runs a subcommand body, prints its error as print_error does with the
// prefix "<program>: " and returns its exit code. Shared by every sandbox CLI.
int report_errors(std::ostream& err, const std::string& program, const std::function<int()>& body);

} // namespace osf::commands
