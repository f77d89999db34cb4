// What reading one secret from one source gives: the value, or one line
// saying what went wrong (never containing the value).
#pragma once

#include <string>

namespace osf::secrets {

struct SourceResult {
    std::string value;
    std::string error; // empty on success

    bool ok() const { return error.empty(); }
    static SourceResult success(std::string value) { return {std::move(value), {}}; }
    static SourceResult failure(std::string error) { return {{}, std::move(error)}; }
};

} // namespace osf::secrets
