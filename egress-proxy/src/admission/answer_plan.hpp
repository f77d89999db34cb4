// What the proxy does with an upstream's answer, decided from its head before
// a byte of it reaches the sandbox: refuse it (and why), relay it as a
// WebSocket session, filter it as an MCP JSON or event-stream answer, or
// relay it, and with which framing. Pure, like admit(): forward() gathers the
// facts and carries the plan out. Secret masking of the head (SecretStore)
// happens between the plan and its carrying out: it may still refuse.
#pragma once

#include "admission/answer_framing.hpp"
#include "mcp/answer_handling.hpp"
#include "osf/log_fields.hpp"

#include <string>

namespace osf::admission {

struct AnswerPlanFacts {
    AnswerFramingFacts framing;
    bool websocket_asked = false;  // the request was a WebSocket handshake
    bool websocket_switch = false; // a 101 whose one Upgrade field is exactly websocket
    // MCP traffic: the server's policy and what the head says (else null).
    const mcp::ServerPolicy* mcp = nullptr;
    mcp::AnswerFacts mcp_answer;
};

enum class AnswerAction {
    fail,        // 502, an error line (`error`)
    refuse,      // 502, a refused line (`reason`)
    websocket,   // a 101 to websocket: relay frames both ways
    filter_json, // an MCP JSON answer: read whole, filtered
    filter_sse,  // an MCP event stream: filtered event by event
    relay,       // as it is, framed by `framing`
};

struct AnswerPlan {
    AnswerAction action = AnswerAction::fail;
    AnswerFraming framing;
    ErrorKind error = ErrorKind::upstream_protocol;       // fail
    RefusalReason reason = RefusalReason::mcp_unreadable; // refuse
    std::string detail; // fail and refuse: the answer's text, never upstream text
};

AnswerPlan plan_answer(const AnswerPlanFacts& facts);

} // namespace osf::admission
