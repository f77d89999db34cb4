#include "sandbox/sandbox_id.hpp"

#include <cctype>

namespace osf::sandbox {

std::optional<std::string> normalize_sandbox_id(std::string_view text) {
    if (text.size() != 12) return std::nullopt;
    std::string id;
    for (const char c : text) {
        if (!std::isxdigit(static_cast<unsigned char>(c))) return std::nullopt;
        id.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    }
    return id;
}

std::string sandbox_id_from_bytes(const std::array<std::uint8_t, 6>& bytes) {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string id;
    for (const auto byte : bytes) {
        id.push_back(kDigits[byte >> 4]);
        id.push_back(kDigits[byte & 0xf]);
    }
    return id;
}

} // namespace osf::sandbox
