// Strict JSON reading for MCP messages: RFC 8259 only (no comments, no
// trailing data, no byte order mark), valid UTF-8, no duplicate object keys at
// any depth and a bounded nesting depth. Anything else is unreadable, so the
// proxy refuses it rather than guess how the server would read it. The reading
// itself is the project's one strict reader (osf/strict_json.hpp).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace osf::mcp {

// Keeps key order so rewritten answers differ from the original only where
// tools were removed.
using Json = nlohmann::ordered_json;

// Deeper documents are refused: no MCP message needs them and the serialiser
// recurses.
inline constexpr std::size_t kMaxJsonDepth = 128;
// The most messages a JSON-RPC batch may hold: what the proxy keeps per
// message (its method, id and answer) is then bounded whatever the batch's
// shape. Batches are rare (the 2025-06-18 revision dropped them); a larger
// one is refused, 413 mcp-unreadable.
inline constexpr std::size_t kMaxBatchMessages = 1000;

struct JsonReadResult {
    std::optional<Json> value; // set when the text was read
    std::string error;         // why not, when value is empty (no document content)
};

JsonReadResult read_strict_json(std::string_view text);

// Compact serialisation (one line, so it fits one SSE data: field).
std::string write_json(const Json& value);

} // namespace osf::mcp
