#include "osf/process_env.hpp"

#include <cstdlib>

namespace osf {

std::optional<std::string> process_getenv(const std::string& name) {
    const char* value = std::getenv(name.c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
}

} // namespace osf
