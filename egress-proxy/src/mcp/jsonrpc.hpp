// JSON-RPC 2.0 pieces the MCP filter needs: error codes, error answers and
// a canonical spelling of ids so requests and answers can be matched.
#pragma once

#include <string>
#include <string_view>

namespace osf::mcp {

inline constexpr int kParseError = -32700;
inline constexpr int kInvalidRequest = -32600;
inline constexpr int kInvalidParams = -32602;

// {"jsonrpc":"2.0","id":<id_json>,"error":{"code":<code>,"message":<message>}}.
// `id_json` is the request's id exactly as the client sent it ("null" when it
// had none), so the client can match the answer whatever the id's spelling.
std::string error_answer(std::string_view id_json, int code, std::string_view message);

// One spelling per JSON value (`1`, `"a"`), for comparing ids: "\u0061" and
// "a" are the same id. `json_text` must be strict JSON.
std::string canonical_json(std::string_view json_text);

} // namespace osf::mcp
