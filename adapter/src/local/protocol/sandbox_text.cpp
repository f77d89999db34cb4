#include "local/protocol/sandbox_text.hpp"

#include <cstdio>

namespace osf::local {

namespace {

std::string escaped(const std::string& text, bool keep_lines) {
    std::string out;
    for (const char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        if (keep_lines && (c == '\n' || c == '\t')) {
            out += c;
        } else if (byte < 0x20 || byte == 0x7f || c == '\\') {
            char hex[5];
            std::snprintf(hex, sizeof hex, "\\x%02x", byte);
            out += hex;
        } else {
            out += c;
        }
    }
    return out;
}

} // namespace

std::string printable_name(const std::string& name) {
    return escaped(name, false);
}

std::string printable_text(const std::string& text) {
    return escaped(text, true);
}

} // namespace osf::local
