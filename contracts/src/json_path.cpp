#include "json_path.hpp"

namespace osf::spec_detail {

namespace {

bool is_identifier(std::string_view key) {
    if (key.empty()) return false;
    for (std::size_t i = 0; i < key.size(); ++i) {
        const char c = key[i];
        const bool alpha = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
        const bool digit = c >= '0' && c <= '9';
        if (!(alpha || (digit && i > 0))) return false;
    }
    return true;
}

} // namespace

std::string member_path(std::string_view base, std::string_view key) {
    if (is_identifier(key)) return std::string(base) + "." + std::string(key);
    std::string escaped;
    for (const char c : key) {
        if (c == '\'' || c == '\\') escaped += '\\';
        escaped += c;
    }
    // Control characters and invalid UTF-8 never reach a terminal raw.
    const std::string printable =
        nlohmann::json(escaped).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    return std::string(base) + "['" + printable.substr(1, printable.size() - 2) + "']";
}

std::string index_path(std::string_view base, std::size_t index) {
    return std::string(base) + "[" + std::to_string(index) + "]";
}

std::string describe_type(const nlohmann::json& value) {
    switch (value.type()) {
    case nlohmann::json::value_t::null:
        return "null";
    case nlohmann::json::value_t::boolean:
        return "a boolean";
    case nlohmann::json::value_t::string:
        return "a string";
    case nlohmann::json::value_t::array:
        return "an array";
    case nlohmann::json::value_t::object:
        return "an object";
    default:
        return "a number";
    }
}

std::string json_quoted(std::string_view text, std::size_t max) {
    std::string shown(text);
    if (code_points(text) > max) {
        std::size_t kept = 0, bytes = 0;
        while (bytes < shown.size() && kept < max) {
            ++bytes;
            while (bytes < shown.size() &&
                   (static_cast<unsigned char>(shown[bytes]) & 0xC0) == 0x80)
                ++bytes;
            ++kept;
        }
        shown = shown.substr(0, bytes) + "...";
    }
    return nlohmann::json(shown).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::size_t code_points(std::string_view utf8) {
    std::size_t count = 0;
    for (const char c : utf8)
        if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++count;
    return count;
}

} // namespace osf::spec_detail
