#include "osf/duration.hpp"

#include <array>
#include <cstdint>

namespace osf {

namespace {

struct Unit {
    char letter;
    std::int64_t seconds;
};

constexpr std::array<Unit, 4> kUnits = {{{'d', 86400}, {'h', 3600}, {'m', 60}, {'s', 1}}};

constexpr const char* kForm = "write a number and a unit: \"90m\", \"8h\", \"1h30m\", \"2d\" "
                              "(units d, h, m, s, largest first)";

} // namespace

DurationResult parse_duration(std::string_view text) {
    if (text.empty()) return std::string("is empty: ") + kForm;
    std::int64_t total = 0;
    std::size_t next_unit = 0; // units must come largest first, each once
    std::size_t i = 0;
    while (i < text.size()) {
        const std::size_t start = i;
        std::int64_t number = 0;
        while (i < text.size() && text[i] >= '0' && text[i] <= '9' &&
               i - start <= max_duration_digits) {
            number = number * 10 + (text[i] - '0');
            ++i;
        }
        if (i - start > max_duration_digits)
            return std::string("has a number of more than 6 digits: ") + kForm;
        if (i == start) return std::string("is not a duration: ") + kForm;
        if (i == text.size())
            return "has no unit after " + std::string(text.substr(start)) + ": " + kForm;
        std::size_t unit = next_unit;
        while (unit < kUnits.size() && kUnits[unit].letter != text[i])
            ++unit;
        if (unit == kUnits.size()) {
            for (const auto& known : kUnits)
                if (known.letter == text[i])
                    return std::string("has its units out of order or twice: ") + kForm;
            return "has an unknown unit '" + std::string(1, text[i]) + "': " + kForm;
        }
        total += number * kUnits[unit].seconds;
        next_unit = unit + 1;
        ++i;
    }
    if (total == 0) return std::string("is zero: a duration must be positive");
    return std::chrono::seconds(total);
}

std::string format_duration(std::chrono::seconds value) {
    std::int64_t left = value.count();
    if (left <= 0) return "0s";
    std::string text;
    for (const auto& unit : kUnits) {
        if (left >= unit.seconds) {
            text += std::to_string(left / unit.seconds) + unit.letter;
            left %= unit.seconds;
        }
    }
    return text;
}

} // namespace osf
