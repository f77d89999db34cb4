#include "commands/command_errors.hpp"

#include "sandbox/settings.hpp"

#include <ostream>
#include <sstream>

namespace osf::commands {

void check_interrupted(const std::function<int()>& pending_signal) {
    if (const int signal = pending_signal ? pending_signal() : 0) throw Interrupted(signal);
}

void print_error(std::ostream& err, const std::string& message, const std::string& prefix) {
    std::istringstream lines(message);
    std::string line;
    bool printed = false;
    while (std::getline(lines, line)) {
        if (line.empty()) continue;
        err << prefix << line << "\n";
        printed = true;
    }
    if (!printed) err << prefix << "failed\n";
}

std::string one_line(const std::string& text) {
    std::istringstream lines(text);
    std::string line, joined;
    while (std::getline(lines, line)) {
        const auto first = line.find_first_not_of(" \t\r");
        if (first == std::string::npos) continue;
        const auto last = line.find_last_not_of(" \t\r");
        joined += (joined.empty() ? "" : "; ") + line.substr(first, last - first + 1);
    }
    return joined;
}

int report_errors(std::ostream& err, const std::string& program, const std::function<int()>& body) {
    const std::string prefix = program + ": ";
    try {
        return body();
    } catch (const UsageError& e) {
        print_error(err, e.what(), prefix);
        return kExitUsage;
    } catch (const sandbox::SettingsError& e) {
        print_error(err, e.what(), prefix);
        return kExitUsage;
    } catch (const Interrupted& e) {
        print_error(err, "interrupted", prefix);
        return 128 + e.signal();
    } catch (const std::exception& e) {
        print_error(err, one_line(e.what()), prefix); // a tool's stderr may span lines
        return kExitFailure;
    }
}

} // namespace osf::commands
