// The arguments of egress-log. Shared by every sandbox CLI.
#pragma once

#include <string>

namespace osf::commands {

struct EgressLogOptions {
    std::string id;
    bool follow = false;
    bool raw = false; // the file as written, chain lines and all
    bool verify = false;
    bool summary = false;
    bool json = false;
    bool refused = false; // the entries and tools refused requests needed, once each
    bool suggest = false; // the tightest spec egress that would have let the log through
    std::string report;   // --report FILE: the HTML report (- for standard output)
};

} // namespace osf::commands
