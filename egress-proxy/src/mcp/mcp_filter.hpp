// MCP (JSON-RPC over HTTP) filtering: which client messages may reach a
// server, and which tools a server's answers may show. Pure: the proxy hands
// in bodies and chunks, and gets back what to forward or answer.
#pragma once

#include "mcp/tool_arguments.hpp"
#include "osf/log_fields.hpp"

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace osf::mcp {

using osf::RefusalReason;

struct ServerPolicy {
    std::string name;            // the spec's mcp[].name (log's mcpServer)
    std::set<std::string> tools; // allowed tool names
    std::size_t max_message_bytes = 4 * 1024 * 1024;
    // The rules of tools written as {"name", "arguments"}, by tool name.
    std::map<std::string, ToolArguments, std::less<>> tool_arguments{};
};

// The verdict on a client request body (POST to an MCP endpoint).
struct RequestVerdict {
    enum class Action {
        Forward,      // send to the server unchanged
        ReplyJsonRpc, // answer the client ourselves with HTTP `status`: 200 with an
                      // application/json `body`, or 202 with no body when only
                      // notifications were refused (JSON-RPC answers them with nothing)
        Refuse,       // answer with HTTP `status` (400, 413, 415) and `body` (a JSON-RPC
                      // error, application/json), refusedBy = mcp-unreadable
    };
    Action action = Action::Refuse;
    int status = 400;
    std::string body;
    // mcp_tool | tool_argument_not_allowed | mcp_unreadable | unset (forwarded)
    std::optional<RefusalReason> refused_by;
    std::string reason; // short text for the log/diagnostics, no arguments
    std::string rule;   // tool_argument_not_allowed: the first argument rule that refused
    std::vector<std::string> tools_called;   // tools/call names seen (for the log's `tool`)
    std::vector<std::string> tools_list_ids; // ids of tools/list requests (canonical JSON)
    std::vector<std::string>
        methods; // the JSON-RPC methods, each once, in order (the log's mcpMethod)
};

struct RoutingHeaders; // mcp/routing_headers.hpp

// Inspects one request body. `content_type` and `content_encoding` are the
// request's header values (empty when absent); `routing`, its Mcp-Method and
// Mcp-Name headers, which must agree with the body (a mismatch: HTTP 400,
// JSON-RPC -32020; refusedBy mcp-tool when a header names an undeclared tool,
// else mcp-unreadable).
RequestVerdict inspect_request(const ServerPolicy& policy, std::string_view content_type,
                               std::string_view content_encoding, std::string_view body);
RequestVerdict inspect_request(const ServerPolicy& policy, std::string_view content_type,
                               std::string_view content_encoding, std::string_view body,
                               const RoutingHeaders& routing);

// Filters an application/json answer: removes undeclared tools from every
// tools/list result (a response object or inside a batch), keeps every other
// field. Returns nullopt when the body cannot be read (fail closed).
struct FilteredBody {
    std::string body;
    std::size_t tools_removed = 0;
};
std::optional<FilteredBody> filter_json_response(const ServerPolicy& policy, std::string_view body);
// Same, stricter: a response whose id is one of `tools_list_ids` (the request
// verdict's) must carry a result.tools array when it has a result.
std::optional<FilteredBody> filter_json_response(const ServerPolicy& policy, std::string_view body,
                                                 const std::vector<std::string>& tools_list_ids);

class SessionRegistry; // mcp/session_registry.hpp: the 2024-11-05 HTTP+SSE transport

// Rewrites a text/event-stream as it streams: each complete event is parsed
// (multi-line data: included); JSON-RPC payloads go through the same filter as
// JSON bodies; an event that cannot be read is dropped and counted.
class SseFilter {
public:
    explicit SseFilter(const ServerPolicy& policy);
    // For the GET stream of the 2024-11-05 HTTP+SSE transport: learns the
    // session from the "endpoint" event and checks answers to the tools/list
    // requests recorded in `registry` for it (forgotten when the filter ends).
    SseFilter(const ServerPolicy& policy, std::shared_ptr<SessionRegistry> registry);
    ~SseFilter();
    SseFilter(SseFilter&&) noexcept;

    // Feeds a chunk, returns the bytes to send to the client now (whole events only).
    std::string feed(std::string_view chunk);
    // The same, appending to `out`: a stream reuses one output buffer instead of
    // allocating (and freeing, often back to the kernel) one per chunk.
    void feed_into(std::string_view chunk, std::string& out);
    // End of stream: returns what is left (an incomplete final event is dropped).
    std::string finish();

    // Called with the data of every `event: endpoint` (an MCP endpoint the
    // server announces) before it is passed; false drops the event (the proxy
    // could not record the endpoint, so the client must not learn it).
    using EndpointHook = std::function<bool(std::string_view url)>;
    void on_endpoint(EndpointHook hook);

    // Answers to these tools/list request ids (canonical JSON, as in tools_list_ids) (from the POST
    // whose answer this stream is) must carry a result.tools array.
    void expect_tools_list_ids(std::vector<std::string> ids);

    std::size_t events_dropped() const;
    std::size_t tools_removed() const;
    // The legacy transport's session id, once the "endpoint" event was seen.
    std::optional<std::string> session_id() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

} // namespace osf::mcp
