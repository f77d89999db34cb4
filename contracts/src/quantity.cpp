#include "quantity.hpp"

#include "ascii.hpp"

#include <algorithm>
#include <array>

namespace osf::spec_detail {

namespace {

bool has_nonzero_digit(std::string_view s) {
    return std::any_of(s.begin(), s.end(), [](char c) { return c >= '1' && c <= '9'; });
}

// "12", "1.5": digits with an optional fraction of digits.
bool is_decimal(std::string_view text, std::size_t max_fraction) {
    const auto dot = text.find('.');
    if (dot == std::string_view::npos) return all_digits(text);
    const auto fraction = text.substr(dot + 1);
    return all_digits(text.substr(0, dot)) && all_digits(fraction) &&
           fraction.size() <= max_fraction;
}

constexpr std::string_view cpu_forms = "write cores (\"2\", \"0.5\") or millicores (\"500m\")";
constexpr std::string_view memory_forms =
    "write a number with a suffix Ki, Mi, Gi, Ti, Pi, Ei (powers of 1024) or k, M, G, T, P, E "
    "(powers of 1000), as \"4Gi\" or \"512Mi\"";

} // namespace

std::optional<std::string> cpu_quantity_problem(std::string_view text) {
    if (text.size() > max_quantity_length) return "is longer than 32 characters";
    if (text.ends_with('m') && all_digits(text.substr(0, text.size() - 1))) {
        if (!has_nonzero_digit(text)) return "asks for no CPU; " + std::string(cpu_forms);
        return std::nullopt;
    }
    if (is_decimal(text, 3)) {
        if (!has_nonzero_digit(text)) return "asks for no CPU; " + std::string(cpu_forms);
        return std::nullopt;
    }
    if (is_decimal(text, std::string_view::npos))
        return "has more than three decimals: CPU comes in millicores, so write at most three, or "
               "millicores (\"500m\")";
    return "is not a CPU quantity: " + std::string(cpu_forms);
}

std::optional<std::string> storage_quantity_problem(std::string_view text) {
    auto problem = memory_quantity_problem(text);
    if (problem && problem->starts_with("asks for no memory"))
        problem->replace(0, std::string_view("asks for no memory").size(), "asks for no storage");
    if (problem && problem->starts_with("is not a memory quantity"))
        problem->replace(0, std::string_view("is not a memory quantity").size(),
                         "is not a storage quantity");
    return problem;
}

std::optional<std::string> memory_quantity_problem(std::string_view text) {
    if (text.size() > max_quantity_length) return "is longer than 32 characters";
    static constexpr std::array<std::string_view, 12> suffixes = {
        "Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "k", "M", "G", "T", "P", "E"};
    std::string_view number = text;
    for (const auto suffix : suffixes) {
        if (text.ends_with(suffix)) {
            number = text.substr(0, text.size() - suffix.size());
            break;
        }
    }
    if (is_decimal(number, std::string_view::npos) && !number.ends_with('.')) {
        if (!has_nonzero_digit(number)) return "asks for no memory; " + std::string(memory_forms);
        return std::nullopt;
    }
    // The usual slips get a precise suggestion.
    for (const char unit : std::string_view("kKMGTPE")) {
        const std::string decimal_slip = std::string(1, unit) + "B";
        const std::string binary_slip = std::string(1, unit) + "iB";
        const bool slip = text.ends_with(decimal_slip) || text.ends_with(binary_slip);
        const auto value = text.substr(0, text.size() - (text.ends_with(binary_slip) ? 3 : 2));
        if (slip && is_decimal(value, std::string_view::npos)) {
            const char decimal_unit = unit == 'K' ? 'k' : unit;
            const char binary_unit = unit == 'k' ? 'K' : unit;
            return "is not a Kubernetes quantity: write \"" + std::string(value) + decimal_unit +
                   "\" (powers of 1000) or \"" + std::string(value) + binary_unit +
                   "i\" (powers of 1024)";
        }
    }
    return "is not a memory quantity: " + std::string(memory_forms);
}

} // namespace osf::spec_detail
