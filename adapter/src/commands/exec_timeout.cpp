#include "commands/exec_timeout.hpp"

#include "commands/command_errors.hpp"
#include "osf/duration.hpp"

namespace osf::commands {

std::chrono::seconds exec_timeout(const std::string& timeout, const sandbox::Settings& settings) {
    if (timeout.empty()) return settings.exec_timeout;
    const auto parsed = osf::parse_duration(timeout);
    if (const auto* problem = std::get_if<std::string>(&parsed))
        throw UsageError("exec: --timeout '" + timeout + "' " + *problem);
    return std::get<std::chrono::seconds>(parsed);
}

std::string exec_timed_out_message(std::chrono::seconds timeout) {
    return "exec: timed out after " + osf::format_duration(timeout) + "; the command was stopped";
}

} // namespace osf::commands
