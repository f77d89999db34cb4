// JSON-RPC 2.0 message shapes the MCP filter needs: which messages are
// requests, which are calls of a given method, and error answers.
#pragma once

#include "mcp/json_reader.hpp"

#include <string>
#include <string_view>

namespace osf::mcp {

inline constexpr int kParseError = -32700;
inline constexpr int kInvalidRequest = -32600;
inline constexpr int kInvalidParams = -32602;

// A request or notification: an object with a "method" member.
bool has_method(const Json& message);
// Exact, case-sensitive comparison, as JSON-RPC servers do.
bool is_method(const Json& message, std::string_view method);
// A request expects an answer: it has an "id" member (a notification has none).
bool expects_answer(const Json& message);

// {"jsonrpc":"2.0","id":<id>,"error":{"code":<code>,"message":<message>}}
Json make_error(const Json& id, int code, std::string message);

} // namespace osf::mcp
