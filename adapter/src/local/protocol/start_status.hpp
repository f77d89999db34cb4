// What a sandbox's processes tell each other while it starts. The supervisor
// writes lines on its status pipe to create (and resume): warnings, then
// ready or an error, one a line; the agent sends the supervisor one message on
// its control socket once it listens. Both sides write and read them through
// these names only. Pure.
#pragma once

#include <string>

namespace osf::local {

enum class StartStatus { Ready, Warning, Error, Other };

struct StatusLine {
    StartStatus kind = StartStatus::Other;
    std::string message; // a warning's or an error's text, without its prefix
};

// The line for each kind (without its newline); Other has none.
std::string status_line(StartStatus kind, const std::string& message = "");

// A line as create reads it; one it does not know is Other (ignored).
StatusLine parse_status_line(const std::string& line);

// The agent's message to the supervisor: it listens, exec requests may come.
inline constexpr const char* kAgentReady = "ready";

} // namespace osf::local
