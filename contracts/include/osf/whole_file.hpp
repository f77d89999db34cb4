// A small file read whole: state files, /proc entries, the spec. Callers say
// what a missing file means to them (an error, or empty).
#pragma once

#include <optional>
#include <string>

namespace osf {

// The file's bytes, or nullopt when it cannot be opened or read (a directory
// included), with errno saying why. The descriptor is close-on-exec: a process
// another thread starts meanwhile does not inherit it.
std::optional<std::string> read_whole_file(const std::string& path);

} // namespace osf
