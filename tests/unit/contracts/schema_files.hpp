// The contracts' JSON Schemas read from the source tree, and name sets to
// compare them with the C++ constants.
#pragma once

#include <array>
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>

namespace schema_files {

inline nlohmann::json schema(const std::string& name) {
    std::ifstream in(std::string(OSF_SOURCE_DIR) + "/contracts/" + name);
    REQUIRE(in);
    return nlohmann::json::parse(in);
}

template <std::size_t N>
std::set<std::string> as_set(const std::array<std::string_view, N>& names) {
    return {names.begin(), names.end()};
}

inline std::set<std::string> strings(const nlohmann::json& array) {
    return array.get<std::set<std::string>>();
}

} // namespace schema_files
