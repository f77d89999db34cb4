// ASCII character classes for the spec's syntax checks: the spec's names are
// ASCII by definition, so these never consult the locale as <cctype> does.
#pragma once

#include <algorithm>
#include <string_view>

namespace osf::spec_detail {

constexpr bool is_digit(char c) {
    return c >= '0' && c <= '9';
}
constexpr bool is_upper(char c) {
    return c >= 'A' && c <= 'Z';
}
constexpr bool is_lower(char c) {
    return c >= 'a' && c <= 'z';
}
constexpr bool is_letter(char c) {
    return is_upper(c) || is_lower(c);
}
inline bool all_digits(std::string_view s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), is_digit);
}

} // namespace osf::spec_detail
