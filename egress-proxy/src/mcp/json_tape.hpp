// A fast strict JSON reader for MCP answers, which can be large (a tools/list
// of a thousand tools) or many (an SSE stream): it validates the text (RFC
// 8259, UTF-8, no lone surrogates, no duplicate keys at any depth, bounded
// depth) and records where every value is, without building a DOM. Pruning
// then copies the original bytes minus the removed tools, so everything kept
// is byte for byte what the server sent.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace osf::mcp {

class JsonTape {
public:
    enum class Kind : std::uint8_t { Object, Array, String, Number, True, False, Null, Key };

    struct Entry {
        Kind kind;
        bool escaped;        // String and Key: the literal holds escapes
        std::uint32_t begin; // byte offsets in the text; a string's include its quotes
        std::uint32_t end;
        std::uint32_t next; // index of the entry after this value (and its children)
    };

    // Memory is bounded by the text's bytes whatever its shape: a text of n
    // bytes may hold at most max_values(n) values (keys count), else it is
    // refused ("too many values"); the tape then holds at most 16 bytes per
    // value, about 4 per byte of text, and the key scratch at most as much
    // again for the keys of the objects open at once.
    static constexpr std::size_t max_values(std::size_t text_bytes) {
        return text_bytes / 4 + 1024;
    }

    // Reads `text` (which must outlive the tape); nullopt with `error` set when it
    // is not strict JSON. Texts of 4 GiB and more are refused.
    static std::optional<JsonTape> read(std::string_view text, std::string* error = nullptr);
    // The same into an existing tape, reusing its storage: for the many small
    // messages of an SSE stream, which would otherwise each allocate a tape.
    // False with `error` set when `text` is not strict JSON (the tape is then unusable).
    bool parse(std::string_view text, std::string* error = nullptr);
    // For the many messages of a stream nothing needs to be found in: checks
    // `text` as parse() does without recording it (the tape is empty
    // afterwards) while it is a root object without a "result" member, which
    // is most of what such streams carry; stops (`other`) at anything else,
    // which parse() then reads. Cheaper than parse() by what recording costs.
    enum class Shape { invalid, object_without_result, other };
    Shape classify(std::string_view text);

    std::string_view text() const { return text_; }
    const Entry& at(std::uint32_t index) const { return entries_[index]; }
    static constexpr std::uint32_t root() { return 0; }
    std::string_view span(std::uint32_t index) const {
        return text_.substr(entries_[index].begin, entries_[index].end - entries_[index].begin);
    }

    // The member of object `object` named `key` (compared after unescaping);
    // returns the value's index.
    std::optional<std::uint32_t> member(std::uint32_t object, std::string_view key) const;
    // Indexes of the elements of array `array`.
    std::vector<std::uint32_t> elements(std::uint32_t array) const;
    // The unescaped content of a String or Key entry.
    std::string string_value(std::uint32_t index) const;

private:
    bool read_text(std::string_view text, std::string* error, bool record, bool* stopped);

    std::string_view text_;
    // Sized to the most entries a text needed so far (grown, never shrunk, so
    // a reused tape writes entries without a capacity check each); the first
    // `count_` are this text's.
    std::vector<Entry> entries_;
    std::uint32_t count_ = 0;
    std::vector<std::string_view> keys_; // the reader's scratch: keys of the open objects
    std::string decoded_; // the reader's scratch: unescaped keys (reserved once, never moved)
    template <bool Record> friend class JsonTapeReader;
};

} // namespace osf::mcp
