#include "commands/process_environment.hpp"

#include <random>
#include <sys/stat.h>
#include <unistd.h>

namespace osf::commands {

bool regular_file_exists(const std::string& path) {
    struct stat info {};
    return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

std::array<std::uint8_t, 6> random_id_bytes() {
    std::random_device device; // /dev/urandom
    std::array<std::uint8_t, 6> bytes{};
    for (auto& byte : bytes)
        byte = static_cast<std::uint8_t>(device());
    return bytes;
}

std::chrono::system_clock::time_point wall_clock_now() {
    return std::chrono::system_clock::now();
}

bool stdio_is_terminal() {
    return ::isatty(0) && ::isatty(1);
}

} // namespace osf::commands
