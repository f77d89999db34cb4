// Durations as people write them in specs and variables: "90m", "8h",
// "1h30m", "2d", "45s". One pure parser shared by the spec validator
// (`lifetime`) and sandbox-kubernetes' variables and flags.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>
#include <variant>

namespace osf {

// Digits per number: 999999d is ~2,700 years, so no sum overflows and the
// JSON Schema's pattern can state the same limit.
inline constexpr std::size_t max_duration_digits = 6;

// Either the parsed duration or why the text is not one (a phrase that
// follows the quoted text in a message: "\"8x\" <problem>").
using DurationResult = std::variant<std::chrono::seconds, std::string>;

// One or more <digits><unit> parts (1 to 6 digits), units d, h, m, s in that
// order, each at most once, no spaces or signs; the total must be positive.
DurationResult parse_duration(std::string_view text);

// The shortest text parse_duration reads back as `value`: "1h30m", "8h", "45s".
std::string format_duration(std::chrono::seconds value);

} // namespace osf
