// One egress log line's fields, read leniently: a field that is absent or of
// another type reads as empty or 0. Judging whether a line is well formed is
// the verifier's work (log_verifier), not these readers'.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace osf::egress_log {

inline std::string text_of(const nlohmann::json& line, std::string_view name) {
    const auto it = line.find(name);
    return it != line.end() && it->is_string() ? it->get<std::string>() : std::string();
}

inline std::uint64_t count_of(const nlohmann::json& line, std::string_view name) {
    const auto it = line.find(name);
    return it != line.end() && it->is_number_unsigned() ? it->get<std::uint64_t>() : 0;
}

inline std::vector<std::string> strings_of(const nlohmann::json& line, std::string_view name) {
    std::vector<std::string> out;
    if (const auto it = line.find(name); it != line.end() && it->is_array())
        for (const auto& item : *it)
            if (item.is_string()) out.push_back(item.get<std::string>());
    return out;
}

} // namespace osf::egress_log
