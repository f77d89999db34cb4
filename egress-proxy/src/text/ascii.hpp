// ASCII helpers for protocol text (HTTP fields, media types, hosts, URL
// paths, environment values): locale-independent, bytes >= 0x80 untouched.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace osf::text {

// HTTP's optional white space (RFC 9110 5.6.3): space and tab.
inline constexpr std::string_view ows = " \t";

// `s` without leading and trailing bytes from `chars`.
constexpr std::string_view trim(std::string_view s, std::string_view chars = ows) {
    const auto first = s.find_first_not_of(chars);
    if (first == std::string_view::npos) return {};
    return s.substr(first, s.find_last_not_of(chars) - first + 1);
}

constexpr char lower(char c) {
    return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

inline std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out)
        c = lower(c);
    return out;
}

// Equal but for the case of ASCII letters.
constexpr bool iequals(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (lower(a[i]) != lower(b[i])) return false;
    return true;
}

// The value of a hex digit (either case), -1 for any other byte.
constexpr int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

} // namespace osf::text
