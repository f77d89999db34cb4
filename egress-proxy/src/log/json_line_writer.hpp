// Writes one flat JSON object into a string, field by field, in the order the
// fields are added. Written by hand rather than with nlohmann::json: the egress
// log writes one line per request, and building an ordered_json object to dump
// it costs far more than the line itself (docs/benchmark.md, "Figures behind
// the code's comments"). Strings are escaped per RFC 8259; bytes that are not
// well-formed UTF-8 (a path or method off the wire) become U+FFFD, so a line
// is always valid JSON and never lost. Field names are the caller's own
// identifiers (ASCII, nothing to escape) and are written as they are.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace osf::log {

class JsonLineWriter {
public:
    explicit JsonLineWriter(std::string& out) : out_(out) { out_.push_back('{'); }

    void field(std::string_view name, std::string_view value);
    void field(std::string_view name, const char* value) { field(name, std::string_view(value)); }
    void field(std::string_view name, std::uint64_t value);
    void field(std::string_view name, std::int64_t value);
    void field(std::string_view name, int value) { field(name, static_cast<std::int64_t>(value)); }
    // A number with a fraction: the shortest form that reads back as `value`,
    // always with a decimal point ("5.0", "0.125"); non-finite values as 0.0.
    void field(std::string_view name, double value);
    void field(std::string_view name, const std::vector<std::string>& values);
    void field(std::string_view name, bool value);

    // Closes the object and ends the line with '\n'.
    void finish() { out_.append("}\n"); }

    // `s` as a JSON string literal, quotes included.
    static void append_string(std::string& out, std::string_view s);

private:
    void key(std::string_view name);
    template <class Integer> void integer(std::string_view name, Integer value);

    std::string& out_;
    bool first_ = true;
};

} // namespace osf::log
