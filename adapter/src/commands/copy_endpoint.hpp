// The arguments of copy: which side is the sandbox's, and where inside it.
// Shared by every sandbox CLI.
#pragma once

#include <optional>
#include <string>

namespace osf::commands {

// One side of a copy. A sandbox side is "<ID>:<path>"; an argument is a
// sandbox side when it holds ':' and no '/' before it (./a:b is local).
struct CopyEndpoint {
    std::optional<std::string> id; // set for the sandbox side
    std::string path;              // absolute inside the sandbox
};

// Throws UsageError for an invalid ID.
CopyEndpoint parse_copy_endpoint(const std::string& text);

} // namespace osf::commands
