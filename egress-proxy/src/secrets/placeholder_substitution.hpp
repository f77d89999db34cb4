// Finding placeholders in text and putting real values in their place. Pure.
//
// A placeholder is "osf-secret-placeholder-" followed by the longest run of
// name characters [A-Z0-9_] (maximal munch). It is replaced only when that
// whole run is a declared name, so with A and AB declared "..._AB" is AB,
// and with only A declared "..._AB" is an undeclared placeholder left alone.
// Replaced text is never scanned again: a value that itself looks like a
// placeholder stays as it is.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace osf::secrets {

struct Secret;

inline constexpr std::string_view placeholder_prefix = "osf-secret-placeholder-";

// Returns `text` with every declared placeholder replaced; appends the names
// replaced to `used` (possibly with repeats).
std::string replace_placeholders(std::string_view text, std::span<const Secret> secrets,
                                 std::vector<std::string>& used);

// Same, and also inside `Basic` credentials (decoded, replaced, re-encoded
// with the scheme kept as written). A value without any declared placeholder
// comes back unchanged, byte for byte.
std::string substitute_header_value(std::string_view value, std::span<const Secret> secrets,
                                    std::vector<std::string>& used);

} // namespace osf::secrets
