// How `exec` talks to a running sandbox. The client connects to the
// supervisor's control socket and sends one request with its stdin, stdout
// and stderr attached (SCM_RIGHTS); the supervisor hands the request, the
// descriptors and the connection itself to the agent inside the sandbox,
// which forks a helper for it (exec_helper.hpp) that runs the command and
// answers on the connection. The descriptors are pipes or a pty the client
// owns (exec_client.hpp), never the client's own. Afterwards the client may
// send kStopByte (its timeout, Ctrl-C or SIGTERM): the helper stops the
// command and every process it started (TERM, a grace, KILL) and then
// answers. Closing the connection kills them at once. Pure encoding here.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace osf::local {

struct ExecMessage {
    std::vector<std::string> command;
    bool terminal = false;
    std::string term; // the caller's TERM, given to the command with a terminal
};

std::string encode_exec_message(const ExecMessage& message);
// nullopt when the text is not a request (the agent then refuses it).
std::optional<ExecMessage> decode_exec_message(const std::string& text);

// The answer: the exit code as "exit <n>\n".
std::string encode_exit(int code);
std::optional<int> decode_exit(const std::string& text);

inline constexpr unsigned char kStopByte = 'S';

// Exit codes when the command is not found or cannot be run, as a shell says.
inline constexpr int kNotFound = 127;
inline constexpr int kCannotRun = 126;

} // namespace osf::local
