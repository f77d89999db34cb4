// The time stamp in a snapshot's name. Shared by every sandbox CLI.
#pragma once

#include <chrono>
#include <string>

namespace osf::commands {

// "20261129185500": UTC, sortable, valid in object names.
std::string snapshot_stamp(std::chrono::system_clock::time_point time);

} // namespace osf::commands
