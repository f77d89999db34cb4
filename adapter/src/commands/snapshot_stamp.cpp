#include "commands/snapshot_stamp.hpp"

#include <ctime>

namespace osf::commands {

std::string snapshot_stamp(std::chrono::system_clock::time_point time) {
    const std::time_t seconds = std::chrono::system_clock::to_time_t(time);
    std::tm utc{};
    gmtime_r(&seconds, &utc);
    char text[16];
    std::strftime(text, sizeof text, "%Y%m%d%H%M%S", &utc);
    return text;
}

} // namespace osf::commands
