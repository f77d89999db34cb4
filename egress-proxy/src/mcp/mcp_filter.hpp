// MCP (JSON-RPC over HTTP) filtering: which client messages may reach a
// server, and which tools a server's answers may show. Pure: the proxy hands
// in bodies and chunks, and gets back what to forward or answer.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace osf::mcp {

struct ServerPolicy {
    std::string name;            // the spec's mcp[].name (log's mcpServer)
    std::set<std::string> tools; // allowed tool names
    std::size_t max_message_bytes = 4 * 1024 * 1024;
};

// The verdict on a client request body (POST to an MCP endpoint).
struct RequestVerdict {
    enum class Action {
        Forward,     // send to the server unchanged
        ReplyJsonRpc, // answer the client ourselves: HTTP 200, application/json, `body`
        Refuse,      // answer with HTTP `status` and `body` (text), refusedBy = mcp-unreadable
    };
    Action action = Action::Refuse;
    int status = 400;
    std::string body;
    std::string refused_by;       // "mcp-tool" | "mcp-unreadable" | empty
    std::string reason;           // short text for the log/diagnostics, no arguments
    std::vector<std::string> tools_called; // tools/call names seen (for the log's `tool`)
    std::vector<std::string> tools_list_ids; // JSON-serialised ids of tools/list requests
};

// Inspects one request body. `content_type` and `content_encoding` are the
// request's header values (empty when absent).
RequestVerdict inspect_request(const ServerPolicy& policy, std::string_view content_type,
                               std::string_view content_encoding, std::string_view body);

// Filters an application/json answer: removes undeclared tools from every
// tools/list result (a response object or inside a batch), keeps every other
// field. Returns nullopt when the body cannot be read (fail closed).
struct FilteredBody {
    std::string body;
    std::size_t tools_removed = 0;
};
std::optional<FilteredBody> filter_json_response(const ServerPolicy& policy, std::string_view body);

// Rewrites a text/event-stream as it streams: each complete event is parsed
// (multi-line data: included); JSON-RPC payloads go through the same filter as
// JSON bodies; an event that cannot be read is dropped and counted.
class SseFilter {
public:
    explicit SseFilter(const ServerPolicy& policy);
    ~SseFilter();
    SseFilter(SseFilter&&) noexcept;

    // Feeds a chunk, returns the bytes to send to the client now (whole events only).
    std::string feed(std::string_view chunk);
    // End of stream: returns what is left (an incomplete final event is dropped).
    std::string finish();

    std::size_t events_dropped() const;
    std::size_t tools_removed() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

} // namespace osf::mcp
