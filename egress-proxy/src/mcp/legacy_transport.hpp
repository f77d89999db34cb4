// Refusing a tools/call on the 2024-11-05 HTTP+SSE transport. There the
// client ignores the body of its POST's HTTP answer and waits for the answer
// on the GET stream, so the proxy's JSON-RPC error must travel that way. The
// proxy forwards, instead of the refused message, a `ping` with the same id
// (the server never sees the tool call, its name or its arguments) and the
// session's SseFilter replaces the server's answer to that ping with the
// refusal.
#pragma once

#include "mcp/mcp_filter.hpp"
#include "mcp/session_registry.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace osf::mcp {

// For a POST whose target carries `sessionId` and that inspect_request
// answered with ReplyJsonRpc and status 200: records every answer of
// `verdict.body` in `registry` for `session_id` and returns the body to
// forward instead (one ping per answered request, the same ids, as a batch
// when the request was one). nullopt when `verdict` is not such a reply:
// then the proxy answers the POST with `verdict` as usual.
std::optional<std::string> legacy_substitute_body(const RequestVerdict& verdict,
                                                  SessionRegistry& registry,
                                                  std::string_view session_id);

} // namespace osf::mcp
