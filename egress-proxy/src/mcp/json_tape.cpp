#include "mcp/json_tape.hpp"

#include "mcp/json_reader.hpp" // kMaxJsonDepth: the same limit as for requests

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <limits>
#include <list>

namespace osf::mcp {

namespace {

int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// Reads 4 hex digits at s[0..3]; -1 when they are not.
long hex4(std::string_view s) {
    if (s.size() < 4) return -1;
    long value = 0;
    for (int i = 0; i < 4; ++i) {
        int d = hex_digit(s[static_cast<std::size_t>(i)]);
        if (d < 0) return -1;
        value = value * 16 + d;
    }
    return value;
}

void append_utf8(std::string& out, unsigned long cp) {
    if (cp < 0x80) {
        out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
        out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
        out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
        out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
}

// Unescapes the inside of a validated string literal.
std::string unescape(std::string_view inner) {
    std::string out;
    out.reserve(inner.size());
    for (std::size_t i = 0; i < inner.size(); ++i) {
        char c = inner[i];
        if (c != '\\') {
            out.push_back(c);
            continue;
        }
        char e = inner[++i];
        switch (e) {
        case 'b':
            out.push_back('\b');
            break;
        case 'f':
            out.push_back('\f');
            break;
        case 'n':
            out.push_back('\n');
            break;
        case 'r':
            out.push_back('\r');
            break;
        case 't':
            out.push_back('\t');
            break;
        case 'u': {
            unsigned long cp = static_cast<unsigned long>(hex4(inner.substr(i + 1)));
            i += 4;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                unsigned long low = static_cast<unsigned long>(hex4(inner.substr(i + 3)));
                i += 6;
                cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
            }
            append_utf8(out, cp);
            break;
        }
        default:
            out.push_back(e);
            break; // " \ /
        }
    }
    return out;
}

// Bytes a string literal holds as they are: printable ASCII but '"' and '\\'.
constexpr std::array<bool, 256> plain_string_bytes = [] {
    std::array<bool, 256> table{};
    for (int c = 0x20; c < 0x80; ++c)
        table[static_cast<std::size_t>(c)] = c != '"' && c != '\\';
    return table;
}();

// The bytes of `word` that are not plain string bytes (a control character,
// '"', '\\' or a byte >= 0x80), as a mask with the high bit of each such byte
// set (SWAR). Bits above the first such byte may be spurious (borrows), so
// only the lowest set bit is exact: it finds the first special byte. Long
// strings (tool descriptions) are most of a tools/list answer.
static_assert(std::endian::native == std::endian::little,
              "the SWAR scan reads words little-endian");
constexpr std::uint64_t special_bytes(std::uint64_t word) {
    constexpr std::uint64_t ones = 0x0101010101010101ULL;
    constexpr std::uint64_t highs = 0x8080808080808080ULL;
    auto has_zero = [](std::uint64_t v) { return (v - ones) & ~v & highs; };
    const std::uint64_t below_space = (word - ones * 0x20) & ~word & highs;
    return below_space | has_zero(word ^ (ones * '"')) | has_zero(word ^ (ones * '\\')) |
           (word & highs);
}

} // namespace

class JsonTapeReader {
public:
    JsonTapeReader(std::string_view text, JsonTape& tape)
        : s_(text), tape_(tape), keys_(tape.keys_) {}

    bool run() {
        skip_ws();
        if (!value(0)) return false;
        skip_ws();
        if (pos_ != s_.size()) return fail("trailing data");
        return true;
    }

    std::string error;

private:
    using Kind = JsonTape::Kind;

    bool fail(const char* why) {
        if (error.empty()) error = why;
        return false;
    }

    void skip_ws() {
        while (pos_ < s_.size()) {
            char c = s_[pos_];
            if (c != ' ' && c != '\n' && c != '\r' && c != '\t') break;
            ++pos_;
        }
    }

    std::uint32_t push(Kind kind, std::size_t begin) {
        auto index = static_cast<std::uint32_t>(tape_.entries_.size());
        tape_.entries_.push_back({kind, static_cast<std::uint32_t>(begin), 0, 0});
        return index;
    }
    void close(std::uint32_t index) {
        tape_.entries_[index].end = static_cast<std::uint32_t>(pos_);
        tape_.entries_[index].next = static_cast<std::uint32_t>(tape_.entries_.size());
    }

    bool value(std::size_t depth) {
        if (pos_ >= s_.size()) return fail("unexpected end");
        switch (s_[pos_]) {
        case '{':
            return object(depth + 1);
        case '[':
            return array(depth + 1);
        case '"':
            return string(Kind::String);
        case 't':
            return literal("true", Kind::True);
        case 'f':
            return literal("false", Kind::False);
        case 'n':
            return literal("null", Kind::Null);
        default:
            return number();
        }
    }

    bool literal(std::string_view word, Kind kind) {
        if (s_.substr(pos_, word.size()) != word) return fail("invalid literal");
        auto index = push(kind, pos_);
        pos_ += word.size();
        close(index);
        return true;
    }

    bool digits() {
        std::size_t start = pos_;
        while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9')
            ++pos_;
        return pos_ > start;
    }

    bool number() {
        auto index = push(Kind::Number, pos_);
        if (pos_ < s_.size() && s_[pos_] == '-') ++pos_;
        if (pos_ < s_.size() && s_[pos_] == '0') {
            ++pos_;
        } else if (pos_ >= s_.size() || s_[pos_] < '1' || s_[pos_] > '9' || !digits()) {
            return fail("invalid value");
        }
        if (pos_ < s_.size() && s_[pos_] == '.') {
            ++pos_;
            if (!digits()) return fail("invalid number");
        }
        if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
            ++pos_;
            if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) ++pos_;
            if (!digits()) return fail("invalid number");
        }
        close(index);
        return true;
    }

    // One UTF-8 sequence starting at pos_ (a byte >= 0x80): well-formed per
    // RFC 3629 (no overlongs, no surrogates, at most U+10FFFF).
    bool utf8_sequence() {
        auto byte = [&](std::size_t i) { return static_cast<unsigned char>(s_[pos_ + i]); };
        auto cont = [&](std::size_t i) { return pos_ + i < s_.size() && (byte(i) & 0xC0) == 0x80; };
        unsigned char b0 = byte(0);
        if (b0 >= 0xC2 && b0 <= 0xDF) {
            if (!cont(1)) return fail("invalid UTF-8");
            pos_ += 2;
        } else if (b0 >= 0xE0 && b0 <= 0xEF) {
            if (!cont(1) || !cont(2)) return fail("invalid UTF-8");
            unsigned char b1 = byte(1);
            if ((b0 == 0xE0 && b1 < 0xA0) || (b0 == 0xED && b1 > 0x9F))
                return fail("invalid UTF-8");
            pos_ += 3;
        } else if (b0 >= 0xF0 && b0 <= 0xF4) {
            if (!cont(1) || !cont(2) || !cont(3)) return fail("invalid UTF-8");
            unsigned char b1 = byte(1);
            if ((b0 == 0xF0 && b1 < 0x90) || (b0 == 0xF4 && b1 > 0x8F))
                return fail("invalid UTF-8");
            pos_ += 4;
        } else {
            return fail("invalid UTF-8");
        }
        return true;
    }

    bool escape() {
        // pos_ is at the backslash.
        if (pos_ + 1 >= s_.size()) return fail("unexpected end");
        char e = s_[pos_ + 1];
        if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' || e == 'r' ||
            e == 't') {
            pos_ += 2;
            return true;
        }
        if (e != 'u') return fail("invalid escape");
        long cp = hex4(s_.substr(pos_ + 2));
        if (cp < 0) return fail("invalid escape");
        pos_ += 6;
        if (cp >= 0xDC00 && cp <= 0xDFFF) return fail("lone surrogate");
        if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (s_.substr(pos_, 2) != "\\u") return fail("lone surrogate");
            long low = hex4(s_.substr(pos_ + 2));
            if (low < 0xDC00 || low > 0xDFFF) return fail("lone surrogate");
            pos_ += 6;
        }
        return true;
    }

    // A string literal; for keys, reports whether it holds escapes.
    bool string(Kind kind, bool* escaped = nullptr) {
        auto index = push(kind, pos_);
        ++pos_;
        bool any_escape = false;
        while (true) {
            bool at_special = false;
            while (pos_ + 8 <= s_.size()) { // whole words of plain bytes at once
                std::uint64_t word;
                std::memcpy(&word, s_.data() + pos_, 8); // little-endian: byte k is bits 8k..8k+7
                if (const std::uint64_t special = special_bytes(word)) {
                    pos_ += static_cast<std::size_t>(std::countr_zero(special)) / 8;
                    at_special = true;
                    break;
                }
                pos_ += 8;
            }
            if (!at_special) { // the last few bytes of the text, one at a time
                while (pos_ < s_.size() && plain_string_bytes[static_cast<unsigned char>(s_[pos_])])
                    ++pos_;
                if (pos_ >= s_.size()) return fail("unterminated string");
            }
            auto c = static_cast<unsigned char>(s_[pos_]);
            if (c == '"') break;
            if (c == '\\') {
                any_escape = true;
                if (!escape()) return false;
            } else if (c < 0x20) {
                return fail("control character in string");
            } else if (c >= 0x80) {
                if (!utf8_sequence()) return false;
            } else {
                ++pos_;
            }
        }
        ++pos_;
        close(index);
        if (escaped) *escaped = any_escape;
        return true;
    }

    bool object(std::size_t depth) {
        if (depth > kMaxJsonDepth) return fail("nesting too deep");
        auto index = push(Kind::Object, pos_);
        ++pos_;
        skip_ws();
        const std::size_t keys_start = keys_.size();
        if (pos_ < s_.size() && s_[pos_] == '}') {
            ++pos_;
            close(index);
            return true;
        }
        while (true) {
            if (pos_ >= s_.size() || s_[pos_] != '"') return fail("expected a key");
            bool escaped = false;
            std::size_t key_begin = pos_;
            if (!string(Kind::Key, &escaped)) return false;
            std::string_view inner = s_.substr(key_begin + 1, pos_ - key_begin - 2);
            if (escaped) {
                decoded_.push_back(unescape(inner));
                inner = decoded_.back();
            }
            keys_.push_back(inner);
            skip_ws();
            if (pos_ >= s_.size() || s_[pos_] != ':') return fail("expected ':'");
            ++pos_;
            skip_ws();
            if (!value(depth)) return false;
            skip_ws();
            if (pos_ < s_.size() && s_[pos_] == ',') {
                ++pos_;
                skip_ws();
                continue;
            }
            if (pos_ < s_.size() && s_[pos_] == '}') {
                ++pos_;
                break;
            }
            return fail("expected ',' or '}'");
        }
        close(index);
        if (!unique_keys(keys_start)) return fail("duplicate key");
        keys_.resize(keys_start);
        return true;
    }

    bool unique_keys(std::size_t start) {
        const std::size_t count = keys_.size() - start;
        if (count <= 16) {
            for (std::size_t i = start; i < keys_.size(); ++i)
                for (std::size_t j = i + 1; j < keys_.size(); ++j)
                    if (keys_[i] == keys_[j]) return false;
            return true;
        }
        std::vector<std::string_view> sorted(keys_.begin() + static_cast<std::ptrdiff_t>(start),
                                             keys_.end());
        std::sort(sorted.begin(), sorted.end());
        return std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end();
    }

    bool array(std::size_t depth) {
        if (depth > kMaxJsonDepth) return fail("nesting too deep");
        auto index = push(Kind::Array, pos_);
        ++pos_;
        skip_ws();
        if (pos_ < s_.size() && s_[pos_] == ']') {
            ++pos_;
            close(index);
            return true;
        }
        while (true) {
            if (!value(depth)) return false;
            skip_ws();
            if (pos_ < s_.size() && s_[pos_] == ',') {
                ++pos_;
                skip_ws();
                continue;
            }
            if (pos_ < s_.size() && s_[pos_] == ']') {
                ++pos_;
                break;
            }
            return fail("expected ',' or ']'");
        }
        close(index);
        return true;
    }

    std::string_view s_;
    std::size_t pos_ = 0;
    JsonTape& tape_;
    std::vector<std::string_view>& keys_; // keys of the open objects, innermost last
    std::list<std::string> decoded_; // unescaped keys (stable addresses, no allocation until used)
};

std::optional<JsonTape> JsonTape::read(std::string_view text, std::string* error) {
    JsonTape tape;
    if (!tape.parse(text, error)) return std::nullopt;
    return tape;
}

bool JsonTape::parse(std::string_view text, std::string* error) {
    entries_.clear();
    keys_.clear();
    text_ = text;
    if (text.size() >= std::numeric_limits<std::uint32_t>::max()) {
        if (error) *error = "too large";
        return false;
    }
    entries_.reserve(text.size() / 8 + 4);
    JsonTapeReader reader(text, *this);
    if (!reader.run()) {
        if (error) *error = reader.error;
        return false;
    }
    return true;
}

std::optional<std::uint32_t> JsonTape::member(std::uint32_t object, std::string_view key) const {
    const Entry& o = entries_[object];
    if (o.kind != Kind::Object) return std::nullopt;
    for (std::uint32_t k = object + 1; k < o.next; k = entries_[k + 1].next) {
        std::string_view raw = span(k);
        std::string_view inner = raw.substr(1, raw.size() - 2);
        bool match =
            inner.find('\\') == std::string_view::npos ? inner == key : unescape(inner) == key;
        if (match) return k + 1;
    }
    return std::nullopt;
}

std::vector<std::uint32_t> JsonTape::elements(std::uint32_t array) const {
    std::vector<std::uint32_t> out;
    const Entry& a = entries_[array];
    if (a.kind != Kind::Array) return out;
    for (std::uint32_t e = array + 1; e < a.next; e = entries_[e].next)
        out.push_back(e);
    return out;
}

std::string JsonTape::string_value(std::uint32_t index) const {
    std::string_view raw = span(index);
    return unescape(raw.substr(1, raw.size() - 2));
}

} // namespace osf::mcp
