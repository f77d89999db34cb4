// Helpers for the spec validator's tests.
#pragma once

#include "osf/spec.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace spec_test {

// The errors of `json`, each as "path: message".
inline std::vector<std::string> errors_of(const std::string& json) {
    std::vector<std::string> out;
    for (const auto& error : osf::parse_spec(json).errors)
        out.push_back(error.to_string());
    return out;
}

// The paths of the errors of `json`.
inline std::vector<std::string> error_paths(const std::string& json) {
    std::vector<std::string> out;
    for (const auto& error : osf::parse_spec(json).errors)
        out.push_back(error.path);
    return out;
}

// A spec with `template` and the given extra members ("\"cpu\": 2").
inline std::string spec_with(const std::string& members) {
    return "{\"template\": \"node:24-alpine\"" + (members.empty() ? "" : ", " + members) + "}";
}

// The Spec of a document that must be valid.
inline osf::Spec valid_spec(const std::string& json) {
    auto result = osf::parse_spec(json);
    if (!result.ok()) {
        std::string all;
        for (const auto& error : result.errors)
            all += error.to_string() + "\n";
        throw std::runtime_error("expected a valid spec, got:\n" + all);
    }
    return *result.spec;
}

} // namespace spec_test
