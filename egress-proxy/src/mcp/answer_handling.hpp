// What the proxy does with an MCP server's answer, decided from its head
// before a byte of it reaches the client. Pure.
#pragma once

#include "mcp/mcp_filter.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace osf::mcp {

// The answer head as read from the MCP server.
struct AnswerFacts {
    int status = 200;
    bool head_request = false; // the request was HEAD: no body follows
    bool chunked = false;
    std::optional<std::uint64_t> content_length; // absent: chunked or close-delimited
    std::string_view content_type;
    std::string_view content_encoding;
};

enum class AnswerHandling {
    Relay,      // no body, or one that carries no tool list (an error, a 202): as it is
    FilterJson, // read whole, filtered (filter_json_response), then sent
    FilterSse,  // filtered event by event as it streams (SseFilter)
    Refuse,     // 502, refusedBy mcp-unreadable: the proxy cannot read what it must
};

struct AnswerDecision {
    AnswerHandling handling = AnswerHandling::Refuse;
    std::string detail; // Refuse: the 502 body's text
};

AnswerDecision decide_answer(const ServerPolicy& policy, const AnswerFacts& answer);

} // namespace osf::mcp
