#include "admission/answer_plan.hpp"

namespace osf::admission {

namespace {

AnswerPlan failed(std::string detail) {
    AnswerPlan plan;
    plan.action = AnswerAction::fail;
    plan.error = ErrorKind::upstream_protocol;
    plan.detail = std::move(detail);
    return plan;
}

} // namespace

AnswerPlan plan_answer(const AnswerPlanFacts& facts) {
    // One framing towards the sandbox, the proxy's, for every kind of answer.
    AnswerFraming framing = frame_answer(facts.framing);
    if (framing.refused()) return failed(framing.refusal);
    if (facts.framing.status == 101) {
        // Nothing asked for a new protocol (an MCP endpoint is never asked):
        // whatever follows is not HTTP the proxy can read, and is never relayed.
        if (!facts.websocket_asked)
            return failed("the upstream switched protocols without being asked to");
        // Asked for websocket alone; h2c or any other protocol would carry frames
        // the proxy never reads. (Its name is upstream text: not quoted.)
        if (!facts.websocket_switch)
            return failed("the upstream switched to a protocol other than websocket");
        AnswerPlan plan;
        plan.action = AnswerAction::websocket;
        plan.framing = framing;
        return plan;
    }
    AnswerPlan plan;
    plan.framing = framing;
    plan.action = AnswerAction::relay;
    if (!facts.mcp) return plan;
    // MCP answers are judged by their head before anything reaches the sandbox.
    auto decision = mcp::decide_answer(*facts.mcp, facts.mcp_answer);
    switch (decision.handling) {
    case mcp::AnswerHandling::Refuse:
        plan.action = AnswerAction::refuse;
        plan.reason = RefusalReason::mcp_unreadable;
        plan.detail = std::move(decision.detail);
        break;
    case mcp::AnswerHandling::FilterSse:
        plan.action = AnswerAction::filter_sse;
        break;
    case mcp::AnswerHandling::FilterJson:
        plan.action = AnswerAction::filter_json;
        break;
    case mcp::AnswerHandling::Relay:
        break; // an error, a 202 or an empty answer: no tool list in it
    }
    return plan;
}

} // namespace osf::admission
