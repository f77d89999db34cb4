// The answer plan as a table: from an answer head's facts, what the proxy does
// (fail, refuse, websocket, filter JSON or SSE, relay) and with which framing.
#include "admission/answer_plan.hpp"

#include <catch2/catch.hpp>

using osf::ErrorKind;
using osf::RefusalReason;
using osf::admission::AnswerAction;
using osf::admission::AnswerBody;
using osf::admission::AnswerPlanFacts;
using osf::admission::plan_answer;

namespace {

const osf::mcp::ServerPolicy wiki{"wiki", {"search"}, 1000};

AnswerPlanFacts answer(int status, std::optional<std::uint64_t> length = 10) {
    AnswerPlanFacts f;
    f.framing.status = status;
    f.framing.content_length = length;
    return f;
}

AnswerPlanFacts mcp(AnswerPlanFacts f, std::string_view type, std::string_view encoding = {}) {
    f.mcp = &wiki;
    f.mcp_answer.status = f.framing.status;
    f.mcp_answer.content_length = f.framing.content_length;
    f.mcp_answer.content_type = type;
    f.mcp_answer.content_encoding = encoding;
    return f;
}

AnswerPlanFacts websocket(AnswerPlanFacts f, bool asked, bool switched) {
    f.framing.content_length.reset();
    f.websocket_asked = asked;
    f.websocket_switch = switched;
    return f;
}

AnswerPlanFacts coded(AnswerPlanFacts f, std::string_view coding) {
    f.framing.transfer_encoding_fields = 1;
    f.framing.transfer_encoding = coding;
    f.framing.content_length.reset();
    return f;
}

} // namespace

TEST_CASE("plan_answer: the table") {
    struct Row {
        const char* name;
        AnswerPlanFacts facts;
        AnswerAction action;
        AnswerBody body;
    };
    const Row rows[] = {
        {"a plain 200 with a length", answer(200), AnswerAction::relay, AnswerBody::length},
        {"a plain chunked 200", coded(answer(200), "chunked"), AnswerAction::relay,
         AnswerBody::chunked},
        {"gzip as a transfer coding", coded(answer(200), "gzip"), AnswerAction::fail,
         AnswerBody::none},
        {"a 204", answer(204, std::nullopt), AnswerAction::relay, AnswerBody::none},
        {"a 101 nobody asked for", websocket(answer(101), false, true), AnswerAction::fail,
         AnswerBody::none},
        {"a 101 to h2c for a websocket handshake", websocket(answer(101), true, false),
         AnswerAction::fail, AnswerBody::none},
        {"a 101 to websocket, asked", websocket(answer(101), true, true), AnswerAction::websocket,
         AnswerBody::none},
        {"a 101 from an MCP endpoint", mcp(websocket(answer(101), false, true), "text/plain"),
         AnswerAction::fail, AnswerBody::none},
        {"an MCP JSON answer", mcp(answer(200), "application/json"), AnswerAction::filter_json,
         AnswerBody::length},
        {"an MCP event stream", mcp(coded(answer(200), "chunked"), "text/event-stream"),
         AnswerAction::filter_sse, AnswerBody::chunked},
        {"an MCP answer of another type", mcp(answer(200), "text/html"), AnswerAction::refuse,
         AnswerBody::length},
        {"an MCP 202", mcp(answer(202, 0), ""), AnswerAction::relay, AnswerBody::length},
        {"an MCP answer with bad framing",
         mcp(coded(answer(200), "gzip, chunked"), "application/json"), AnswerAction::fail,
         AnswerBody::none},
    };
    for (const auto& row : rows) {
        INFO(row.name);
        const auto plan = plan_answer(row.facts);
        CHECK(plan.action == row.action);
        if (plan.action == AnswerAction::fail) {
            CHECK(plan.error == ErrorKind::upstream_protocol);
            CHECK_FALSE(plan.detail.empty());
        } else if (plan.action == AnswerAction::refuse) {
            CHECK(plan.reason == RefusalReason::mcp_unreadable);
            CHECK_FALSE(plan.detail.empty());
        } else {
            CHECK(plan.framing.body == row.body);
        }
    }
}

TEST_CASE("plan_answer never quotes the upstream's words") {
    auto f = mcp(answer(200), "text/x-secret-value-AKIA1234");
    const auto plan = plan_answer(f);
    REQUIRE(plan.action == AnswerAction::refuse);
    CHECK(plan.detail.find("AKIA1234") == std::string::npos);
    auto h2c = websocket(answer(101), true, false);
    CHECK(plan_answer(h2c).detail.find("h2c") == std::string::npos);
}
