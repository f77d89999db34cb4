#include "secrets/basic_auth.hpp"

#include "text/ascii.hpp"

#include <array>

namespace osf::secrets {
namespace {

constexpr std::string_view alphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int sextet(char c) {
    const auto at = alphabet.find(c);
    return at == std::string_view::npos ? -1 : static_cast<int>(at);
}

using text::iequals;

} // namespace

std::string base64_encode(std::string_view bytes) {
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    std::size_t i = 0;
    for (; i + 2 < bytes.size(); i += 3) {
        const unsigned n = static_cast<unsigned char>(bytes[i]) << 16 |
                           static_cast<unsigned char>(bytes[i + 1]) << 8 |
                           static_cast<unsigned char>(bytes[i + 2]);
        out += alphabet[n >> 18 & 63];
        out += alphabet[n >> 12 & 63];
        out += alphabet[n >> 6 & 63];
        out += alphabet[n & 63];
    }
    const std::size_t rest = bytes.size() - i;
    if (rest > 0) {
        unsigned n = static_cast<unsigned char>(bytes[i]) << 16;
        if (rest == 2) n |= static_cast<unsigned char>(bytes[i + 1]) << 8;
        out += alphabet[n >> 18 & 63];
        out += alphabet[n >> 12 & 63];
        out += rest == 2 ? alphabet[n >> 6 & 63] : '=';
        out += '=';
    }
    return out;
}

std::optional<std::string> base64_decode(std::string_view text) {
    std::size_t pads = 0;
    while (pads < 2 && !text.empty() && text.back() == '=') {
        text.remove_suffix(1);
        ++pads;
    }
    if (pads > 0 && (text.size() + pads) % 4 != 0) return std::nullopt;
    if (text.size() % 4 == 1) return std::nullopt;
    std::string out;
    out.reserve(text.size() * 3 / 4);
    unsigned buffer = 0;
    int bits = 0;
    for (char c : text) {
        const int value = sextet(c);
        if (value < 0) return std::nullopt;
        buffer = (buffer << 6) | static_cast<unsigned>(value);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out += static_cast<char>((buffer >> bits) & 0xff);
        }
    }
    return out;
}

std::optional<BasicCredentials> parse_basic(std::string_view header_value) {
    const auto space = header_value.find(' ');
    if (space == std::string_view::npos || !iequals(header_value.substr(0, space), "Basic"))
        return std::nullopt;
    auto token_start = header_value.find_first_not_of(' ', space);
    if (token_start == std::string_view::npos) return std::nullopt;
    auto token = header_value.substr(token_start);
    while (!token.empty() && (token.back() == ' ' || token.back() == '\t'))
        token.remove_suffix(1);
    auto decoded = base64_decode(token);
    if (!decoded) return std::nullopt;
    return BasicCredentials{header_value.substr(0, token_start), std::move(*decoded)};
}

} // namespace osf::secrets
