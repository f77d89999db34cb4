// The one strict JSON reader: RFC 8259 text into an nlohmann document, while
// noticing what nlohmann's DOM parser would hide or forgive: duplicate object
// keys at any depth (the last one silently wins there), a NUL byte (its lexer
// takes one for the end of the input, so `{}\0x` would read as `{}`), nesting
// past a limit, and numbers as written (a float's text is lost once it is a
// double). The spec validator and the MCP filter's reference reader both use
// it; the filter's fast path (mcp/json_tape) is checked against it by fuzzing.
#pragma once

#include <cstddef>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace osf::strict_json {

struct ReadOptions {
    // Containers may nest this deep; one more is an error.
    std::size_t max_depth = 64;
    // RFC 8259 section 8.1 lets a reader ignore a UTF-8 byte order mark; the
    // MCP filter refuses one (a server might not skip it), a spec file may
    // have one (editors write them).
    bool allow_byte_order_mark = false;
    // Record every number's text by JSONPath (ReadResult::numbers).
    bool record_numbers = false;
};

struct ReadError {
    std::string path;    // JSONPath of the value: "$", "$.env.CI", "$.egress[2]"
    std::string message; // "duplicate key ...", "not valid JSON: ...", ...
};

template <class Json> struct ReadResult {
    Json document;
    std::vector<ReadError> errors;              // syntax, duplicate keys, nesting
    std::map<std::string, std::string> numbers; // JSONPath -> number as written
    bool complete = false;                      // the whole text was read
    bool ok() const { return complete && errors.empty(); }
};

// Json is nlohmann::json or nlohmann::ordered_json (both instantiated).
template <class Json> ReadResult<Json> read(std::string_view text, const ReadOptions& options);

} // namespace osf::strict_json
