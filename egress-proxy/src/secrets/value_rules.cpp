#include "secrets/value_rules.hpp"

namespace osf::secrets {

std::optional<std::string> value_problem(std::string_view value) {
    if (value.empty()) return "the value is empty";
    for (char c : value) {
        const auto byte = static_cast<unsigned char>(c);
        if (c == '\r' || c == '\n')
            return "the value contains a line break (CR or LF), which cannot go into an HTTP "
                   "header";
        if (byte == 0) return "the value contains a NUL byte, which cannot go into an HTTP header";
        if ((byte < 0x20 && c != '\t') || byte == 0x7f)
            return "the value contains a control character, which cannot go into an HTTP header";
    }
    return std::nullopt;
}

} // namespace osf::secrets
