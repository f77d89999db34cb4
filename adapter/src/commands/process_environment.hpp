// What both sandbox CLIs take from their own process (its variables come from
// osf/process_env.hpp, shared with the proxy): whether a path is a regular file, random bytes for
// new IDs, the clocks and whether stdin and stdout are a terminal. The wiring main.cpp and
// sandbox_local_main.cpp share.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace osf::commands {

bool regular_file_exists(const std::string& path);
// Six bytes from /dev/urandom: a new sandbox ID or exec marker.
std::array<std::uint8_t, 6> random_id_bytes();
std::chrono::system_clock::time_point wall_clock_now();
bool stdio_is_terminal();

} // namespace osf::commands
