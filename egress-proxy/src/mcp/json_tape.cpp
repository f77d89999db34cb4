#include "mcp/json_tape.hpp"

#include "mcp/json_reader.hpp" // kMaxJsonDepth: the same limit as for requests
#include "text/ascii.hpp"
#include "text/utf8.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <limits>

namespace osf::mcp {

namespace {

using text::hex_value;

// Reads 4 hex digits at s[0..3]; -1 when they are not.
long hex4(std::string_view s) {
    if (s.size() < 4) return -1;
    long value = 0;
    for (int i = 0; i < 4; ++i) {
        int d = hex_value(s[static_cast<std::size_t>(i)]);
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

#if defined(__SSE2__)
// The special bytes among the 16 at `p` (as special_bytes, but exact): bit k
// set when byte k is '"', '\\', a control character or >= 0x80. SSE2 is part of
// x86-64 itself; a signed comparison finds both the control characters and
// the bytes >= 0x80 (negative as signed). Four times the bytes of a SWAR word
// for fewer instructions: most strings of a message are short keys.
inline unsigned special_bytes16(const char* p) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i quote = _mm_cmpeq_epi8(v, _mm_set1_epi8('"'));
    const __m128i backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'));
    const __m128i control_or_high = _mm_cmplt_epi8(v, _mm_set1_epi8(0x20));
    return static_cast<unsigned>(
        _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, backslash), control_or_high)));
}
#endif

// a == b, for the short keys of JSON-RPC messages: most pairs differ in length
// or first byte, which is cheaper to see than to call memcmp.
inline bool same_text(std::string_view a, std::string_view b) {
    return a.size() == b.size() && (a.empty() || a[0] == b[0]) &&
           std::memcmp(a.data(), b.data(), a.size()) == 0;
}

constexpr bool is_json_space(char c) {
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

} // namespace

// One loop with an explicit stack of open containers instead of a function
// per value calling the next: the read position stays in a register and a
// value costs a few instructions, which is what a stream of many small
// messages (an SSE event each) is made of. `Record` false: only checks the
// text (the tape is left empty), and stops (`stopped`) at a root that is not
// an object or at its "result" key.
template <bool Record> class JsonTapeReader {
public:
    JsonTapeReader(std::string_view text, JsonTape& tape)
        : begin_(text.data()), end_(text.data() + text.size()), tape_(tape),
          entries_(tape.entries_.data()),
          capacity_(static_cast<std::uint32_t>(tape.entries_.size())), keys_(tape.keys_),
          decoded_(tape.decoded_), max_values_(JsonTape::max_values(text.size())) {}

    // Reads the text into the tape; false (with `error` set) when it is not strict JSON.
    bool run() {
        const bool ok = read();
        tape_.count_ = count_;
        return ok;
    }

    std::string error;
    bool stopped = false;

private:
    using Kind = JsonTape::Kind;

    struct Open {
        std::uint32_t entry;      // the container's tape entry
        std::uint32_t keys_start; // objects: where their keys start in keys_
        bool object;
    };

    bool fail(const char* why) {
        if (error.empty()) error = why;
        return false;
    }

    std::uint32_t offset(const char* p) const { return static_cast<std::uint32_t>(p - begin_); }

    [[gnu::always_inline]] std::uint32_t push(Kind kind, const char* at) {
        if constexpr (!Record) return 0;
        if (count_ == capacity_) grow();
        entries_[count_] = {kind, false, offset(at), 0, 0};
        return count_++;
    }
    // Values of the text so far within JsonTape::max_values (counted when not recorded too).
    [[gnu::always_inline]] bool counted() {
        if constexpr (!Record) ++values_;
        return (Record ? count_ : values_) < max_values_ || fail("too many values");
    }
    [[gnu::always_inline]] void close(std::uint32_t index, const char* p) {
        if constexpr (!Record) return;
        entries_[index].end = offset(p);
        entries_[index].next = count_;
    }
    [[gnu::noinline]] void grow() {
        // Never past the most entries the text may have: counted() stops there.
        tape_.entries_.resize(std::min<std::size_t>(
            max_values_ + 1, std::max<std::size_t>(64, 2 * tape_.entries_.size())));
        entries_ = tape_.entries_.data();
        capacity_ = static_cast<std::uint32_t>(tape_.entries_.size());
    }

    // Most messages are compact: one comparison decides that there is no space.
    [[gnu::always_inline]] const char* skip_space(const char* p) const {
        if (p == end_ || static_cast<unsigned char>(*p) > ' ') return p;
        while (p < end_ && is_json_space(*p))
            ++p;
        return p;
    }

    // Each reader below starts at the value's first byte and returns the
    // position after it, or nullptr (with `error` set) when it is not valid.

    const char* literal(const char* p, std::string_view word, Kind kind) {
        if (static_cast<std::size_t>(end_ - p) < word.size() ||
            std::memcmp(p, word.data(), word.size()) != 0) {
            fail("invalid literal");
            return nullptr;
        }
        auto index = push(kind, p);
        p += word.size();
        close(index, p);
        return p;
    }

    const char* digits(const char* p) const {
        while (p < end_ && *p >= '0' && *p <= '9')
            ++p;
        return p;
    }

    [[gnu::always_inline]] const char* number(const char* p) {
        auto index = push(Kind::Number, p);
        if (p < end_ && *p == '-') ++p;
        if (p < end_ && *p == '0') {
            ++p;
        } else if (p >= end_ || *p < '1' || *p > '9') {
            fail("invalid value");
            return nullptr;
        } else {
            p = digits(p);
        }
        if (p < end_ && *p == '.') {
            const char* fraction = ++p;
            p = digits(p);
            if (p == fraction) {
                fail("invalid number");
                return nullptr;
            }
        }
        if (p < end_ && (*p == 'e' || *p == 'E')) {
            ++p;
            if (p < end_ && (*p == '+' || *p == '-')) ++p;
            const char* exponent = p;
            p = digits(p);
            if (p == exponent) {
                fail("invalid number");
                return nullptr;
            }
        }
        close(index, p);
        return p;
    }

    // One UTF-8 sequence starting at p (a byte >= 0x80).
    const char* utf8_sequence(const char* p) {
        const std::size_t length = text::utf8_sequence_length(p, end_);
        if (length == 0) {
            fail("invalid UTF-8");
            return nullptr;
        }
        return p + length;
    }

    // An escape sequence; p is at the backslash.
    const char* escape(const char* p) {
        const std::string_view rest(p, static_cast<std::size_t>(end_ - p));
        if (rest.size() < 2) {
            fail("unexpected end");
            return nullptr;
        }
        const char e = rest[1];
        if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' || e == 'r' ||
            e == 't')
            return p + 2;
        long cp = e == 'u' ? hex4(rest.substr(2)) : -1;
        if (cp < 0) {
            fail("invalid escape");
            return nullptr;
        }
        if (cp >= 0xDC00 && cp <= 0xDFFF) {
            fail("lone surrogate");
            return nullptr;
        }
        if (cp < 0xD800 || cp > 0xDBFF) return p + 6;
        const long low = rest.substr(6, 2) == "\\u" ? hex4(rest.substr(8)) : -1;
        if (low < 0xDC00 || low > 0xDFFF) {
            fail("lone surrogate");
            return nullptr;
        }
        return p + 12;
    }

    // A string literal (p at its opening quote); `escaped` tells whether it held escapes.
    [[gnu::always_inline]] const char* string(const char* p, Kind kind, bool& escaped) {
        auto index = push(kind, p);
        ++p;
        escaped = false;
        for (;;) {
#if defined(__SSE2__)
            while (end_ - p >= 16) {
                if (const unsigned special = special_bytes16(p)) {
                    p += std::countr_zero(special);
                    goto at_special;
                }
                p += 16;
            }
#endif
            while (end_ - p >= 8) { // whole words of plain bytes at once
                std::uint64_t word;
                std::memcpy(&word, p, 8); // little-endian: byte k is bits 8k..8k+7
                if (const std::uint64_t special = special_bytes(word)) {
                    p += std::countr_zero(special) / 8;
                    goto at_special;
                }
                p += 8;
            }
            // The last few bytes of the text, one at a time.
            while (p < end_ && plain_string_bytes[static_cast<unsigned char>(*p)])
                ++p;
            if (p >= end_) {
                fail("unterminated string");
                return nullptr;
            }
        at_special:
            const auto c = static_cast<unsigned char>(*p);
            if (c == '"') break;
            if (c == '\\') {
                escaped = true;
                p = escape(p);
            } else if (c < 0x20) {
                fail("control character in string");
                return nullptr;
            } else {
                p = utf8_sequence(p); // plain_string_bytes leaves only bytes >= 0x80 here
            }
            if (!p) return nullptr;
        }
        ++p;
        close(index, p);
        if constexpr (Record) entries_[index].escaped = escaped;
        return p;
    }

    bool unique_keys(std::size_t start) {
        const std::size_t count = keys_.size() - start;
        if (count <= 16) {
            const std::string_view* keys = keys_.data() + start;
            for (std::size_t i = 1; i < count; ++i)
                for (std::size_t j = 0; j < i; ++j)
                    if (same_text(keys[i], keys[j])) return false;
            return true;
        }
        // In place: the object's keys are dropped from the scratch once checked.
        const auto first = keys_.begin() + static_cast<std::ptrdiff_t>(start);
        std::sort(first, keys_.end());
        return std::adjacent_find(first, keys_.end()) == keys_.end();
    }

    bool read();

    const char* begin_;
    const char* end_;
    JsonTape& tape_;
    JsonTape::Entry* entries_; // tape_.entries_, written without a capacity check each
    std::uint32_t count_ = 0;
    std::uint32_t capacity_;
    std::vector<std::string_view>& keys_; // keys of the open objects, innermost last
    std::string& decoded_;                // unescaped keys, end to end (tape_.decoded_)
    std::size_t max_values_;              // JsonTape::max_values of the text
    std::size_t values_ = 0;              // values read, when not recorded
};

template <bool Record> bool JsonTapeReader<Record>::read() {
    std::array<Open, kMaxJsonDepth> open; // the containers around the current value
    std::size_t depth = 0;
    const char* p = begin_;
    bool escaped = false;
    if constexpr (!Record) {
        p = skip_space(p);
        if (p < end_ && *p != '{') return stopped = true; // not an object: parse() reads it
    }

value: // p is before a value (and maybe white space)
    p = skip_space(p);
    if (p >= end_) return fail("unexpected end");
    if (!counted()) return false;
    switch (*p) {
    case '{':
    case '[': {
        if (depth == kMaxJsonDepth) return fail("nesting too deep");
        const bool object = *p == '{';
        const auto index = push(object ? Kind::Object : Kind::Array, p);
        open[depth++] = {index, static_cast<std::uint32_t>(keys_.size()), object};
        p = skip_space(p + 1);
        if (p < end_ && *p == (object ? '}' : ']')) {
            ++p;
            close(index, p);
            --depth;
            goto after_value;
        }
        if (object) goto key;
        goto value;
    }
    case '"':
        p = string(p, Kind::String, escaped);
        break;
    case 't':
        p = literal(p, "true", Kind::True);
        break;
    case 'f':
        p = literal(p, "false", Kind::False);
        break;
    case 'n':
        p = literal(p, "null", Kind::Null);
        break;
    default:
        p = number(p);
        break;
    }
    if (!p) return false;

after_value: // p is after a whole value
    p = skip_space(p);
    if (depth == 0) return p == end_ || fail("trailing data");
    {
        Open& top = open[depth - 1];
        if (p < end_ && *p == ',') {
            p = skip_space(p + 1);
            if (top.object) goto key;
            goto value;
        }
        if (p >= end_ || *p != (top.object ? '}' : ']'))
            return fail(top.object ? "expected ',' or '}'" : "expected ',' or ']'");
        ++p;
        close(top.entry, p);
        if (top.object) {
            if (!unique_keys(top.keys_start)) return fail("duplicate key");
            keys_.resize(top.keys_start);
        }
        --depth;
        goto after_value;
    }

key: // p is at an object's key
    if (p >= end_ || *p != '"') return fail("expected a key");
    if (!counted()) return false;
    {
        const char* key_begin = p;
        p = string(p, Kind::Key, escaped);
        if (!p) return false;
        std::string_view inner(key_begin + 1, static_cast<std::size_t>(p - key_begin - 2));
        if (escaped) {
            // An unescaped key is shorter than its literal: a buffer of the
            // text's size never reallocates, so the views into it stay valid
            // (and holds no more than the text).
            if (decoded_.capacity() < static_cast<std::size_t>(end_ - begin_))
                decoded_.reserve(static_cast<std::size_t>(end_ - begin_));
            const std::size_t at = decoded_.size();
            decoded_ += unescape(inner);
            inner = std::string_view(decoded_).substr(at);
        }
        if constexpr (!Record)
            if (depth == 1 && same_text(inner, "result")) return stopped = true;
        keys_.push_back(inner);
    }
    p = skip_space(p);
    if (p >= end_ || *p != ':') return fail("expected ':'");
    ++p;
    goto value;
}

std::optional<JsonTape> JsonTape::read(std::string_view text, std::string* error) {
    JsonTape tape;
    if (!tape.parse(text, error)) return std::nullopt;
    return tape;
}

bool JsonTape::parse(std::string_view text, std::string* error) {
    return read_text(text, error, true, nullptr);
}

JsonTape::Shape JsonTape::classify(std::string_view text) {
    bool stopped = false;
    if (!read_text(text, nullptr, false, &stopped)) return Shape::invalid;
    return stopped ? Shape::other : Shape::object_without_result;
}

bool JsonTape::read_text(std::string_view text, std::string* error, bool record, bool* stopped) {
    count_ = 0;
    keys_.clear();
    decoded_.clear();
    text_ = text;
    if (text.size() >= std::numeric_limits<std::uint32_t>::max()) {
        if (error) *error = "too large";
        return false;
    }
    // Each key is a value: at most half the values are keys (reserved, not touched).
    keys_.reserve(max_values(text.size()) / 2 + 1);
    if (record) {
        // Room for the most entries the text may have, reserved (not touched:
        // resident only as entries are written), so growing never copies the
        // tape, which would hold it twice for a moment.
        entries_.reserve(max_values(text.size()) + 1);
        if (entries_.size() < text.size() / 8 + 4) entries_.resize(text.size() / 8 + 4);
    }
    auto run = [&](auto reader) {
        if (!reader.run()) {
            if (error) *error = reader.error;
            return false;
        }
        if (stopped) *stopped = reader.stopped;
        return true;
    };
    return record ? run(JsonTapeReader<true>(text, *this))
                  : run(JsonTapeReader<false>(text, *this));
}

std::optional<std::uint32_t> JsonTape::member(std::uint32_t object, std::string_view key) const {
    const Entry& o = entries_[object];
    if (o.kind != Kind::Object) return std::nullopt;
    // An escape is longer than what it stands for: a raw key shorter than
    // `key` cannot match, one of the same length only as it is.
    for (std::uint32_t k = object + 1; k < o.next; k = entries_[k + 1].next) {
        const Entry& e = entries_[k];
        const std::size_t raw_size = e.end - e.begin - 2;
        if (raw_size < key.size()) continue;
        const std::string_view inner = text_.substr(e.begin + 1, raw_size);
        if (raw_size == key.size() ? !e.escaped && same_text(inner, key)
                                   : e.escaped && unescape(inner) == key)
            return k + 1;
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
