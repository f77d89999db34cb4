#include "log/json_line_writer.hpp"

#include "text/utf8.hpp"

#include <algorithm>
#include <cassert>
#include <charconv>
#include <cmath>

namespace osf::log {

void JsonLineWriter::append_string(std::string& out, std::string_view s) {
    static constexpr char hex[] = "0123456789abcdef";
    out.push_back('"');
    std::size_t i = 0;
    while (i < s.size()) {
        const std::size_t run = i;
        while (i < s.size()) {
            const auto c = static_cast<unsigned char>(s[i]);
            if (c < 0x20 || c == '"' || c == '\\' || c >= 0x80) break;
            ++i;
        }
        out.append(s.data() + run, i - run);
        if (i == s.size()) break;
        const auto c = static_cast<unsigned char>(s[i]);
        if (c >= 0x80) {
            const std::size_t n = text::utf8_sequence_length(s.data() + i, s.data() + s.size());
            if (n == 0) {
                out.append("\xEF\xBF\xBD"); // U+FFFD for each byte that starts no character
                ++i;
            } else {
                out.append(s.data() + i, n);
                i += n;
            }
            continue;
        }
        switch (c) {
        case '"':
            out.append("\\\"");
            break;
        case '\\':
            out.append("\\\\");
            break;
        case '\b':
            out.append("\\b");
            break;
        case '\f':
            out.append("\\f");
            break;
        case '\n':
            out.append("\\n");
            break;
        case '\r':
            out.append("\\r");
            break;
        case '\t':
            out.append("\\t");
            break;
        default:
            out.append("\\u00");
            out.push_back(hex[c >> 4]);
            out.push_back(hex[c & 0xF]);
        }
        ++i;
    }
    out.push_back('"');
}

void JsonLineWriter::key(std::string_view name) {
    // Names are the writer's own identifiers, never escaped: written as they are.
    assert(std::all_of(name.begin(), name.end(),
                       [](char c) { return c > 0x20 && c < 0x7f && c != '"' && c != '\\'; }));
    if (!first_) out_.push_back(',');
    first_ = false;
    out_.push_back('"');
    out_.append(name);
    out_.append("\":");
}

void JsonLineWriter::field(std::string_view name, std::string_view value) {
    key(name);
    append_string(out_, value);
}

template <class Integer> void JsonLineWriter::integer(std::string_view name, Integer value) {
    key(name);
    char buf[24];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
    out_.append(buf, end);
}

void JsonLineWriter::field(std::string_view name, std::uint64_t value) {
    integer(name, value);
}

void JsonLineWriter::field(std::string_view name, std::int64_t value) {
    integer(name, value);
}

void JsonLineWriter::field(std::string_view name, double value) {
    key(name);
    if (!std::isfinite(value)) value = 0;
    char buf[40];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
    const std::string_view text(buf, static_cast<std::size_t>(end - buf));
    out_.append(text);
    if (text.find_first_of(".e") == std::string_view::npos) out_.append(".0");
}

void JsonLineWriter::field(std::string_view name, const std::vector<std::string>& values) {
    key(name);
    out_.push_back('[');
    for (std::size_t k = 0; k < values.size(); ++k) {
        if (k) out_.push_back(',');
        append_string(out_, values[k]);
    }
    out_.push_back(']');
}

void JsonLineWriter::field(std::string_view name, bool value) {
    key(name);
    out_.append(value ? "true" : "false");
}

} // namespace osf::log
