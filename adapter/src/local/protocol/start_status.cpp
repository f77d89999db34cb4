#include "local/protocol/start_status.hpp"

#include <string_view>

namespace osf::local {

namespace {

constexpr std::string_view kReady = "ready";
constexpr std::string_view kWarningPrefix = "warning: ";
constexpr std::string_view kErrorPrefix = "error: ";

} // namespace

std::string status_line(StartStatus kind, const std::string& message) {
    switch (kind) {
    case StartStatus::Ready:
        return std::string(kReady);
    case StartStatus::Warning:
        return std::string(kWarningPrefix) + message;
    case StartStatus::Error:
        return std::string(kErrorPrefix) + message;
    case StartStatus::Other:
        break;
    }
    return message;
}

StatusLine parse_status_line(const std::string& line) {
    if (line == kReady) return {StartStatus::Ready, ""};
    if (line.starts_with(kWarningPrefix))
        return {StartStatus::Warning, line.substr(kWarningPrefix.size())};
    if (line.starts_with(kErrorPrefix))
        return {StartStatus::Error, line.substr(kErrorPrefix.size())};
    return {StartStatus::Other, line};
}

} // namespace osf::local
