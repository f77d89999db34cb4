// UTF-8 well-formedness, shared by the strict JSON reader (mcp/) and the egress
// log's string writer (log/): both must agree on what is a character.
#pragma once

#include <cstddef>

namespace osf::text {

// Length of the well-formed UTF-8 sequence that starts at `p` (a byte >= 0x80)
// and ends before `end`; 0 when there is none (RFC 3629: no overlongs, no
// surrogates, nothing above U+10FFFF).
inline std::size_t utf8_sequence_length(const char* p, const char* end) {
    auto byte = [&](std::size_t k) { return static_cast<unsigned char>(p[k]); };
    auto cont = [&](std::size_t k) { return p + k < end && (byte(k) & 0xC0) == 0x80; };
    const unsigned char b0 = byte(0);
    if (b0 >= 0xC2 && b0 <= 0xDF) return cont(1) ? 2 : 0;
    if (b0 >= 0xE0 && b0 <= 0xEF) {
        if (!cont(1) || !cont(2)) return 0;
        if ((b0 == 0xE0 && byte(1) < 0xA0) || (b0 == 0xED && byte(1) > 0x9F)) return 0;
        return 3;
    }
    if (b0 >= 0xF0 && b0 <= 0xF4) {
        if (!cont(1) || !cont(2) || !cont(3)) return 0;
        if ((b0 == 0xF0 && byte(1) < 0x90) || (b0 == 0xF4 && byte(1) > 0x8F)) return 0;
        return 4;
    }
    return 0;
}

} // namespace osf::text
