// Settings read from a fixed set of variables instead of the environment.
#pragma once

#include "sandbox/settings.hpp"

#include <map>
#include <optional>
#include <string>

namespace osf::testing {

inline osf::sandbox::Settings settings_with(std::map<std::string, std::string> env) {
    return osf::sandbox::read_settings(
        [env = std::move(env)](const std::string& name) -> std::optional<std::string> {
            const auto it = env.find(name);
            return it == env.end() ? std::nullopt : std::optional<std::string>(it->second);
        });
}

} // namespace osf::testing
