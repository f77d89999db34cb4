#include "mcp/answer_handling.hpp"

#include "mcp/media_type.hpp"

namespace osf::mcp {

namespace {

AnswerDecision refuse(std::string detail) {
    return {AnswerHandling::Refuse, std::move(detail)};
}

} // namespace

AnswerDecision decide_answer(const ServerPolicy& policy, const AnswerFacts& answer) {
    const bool bodiless = answer.head_request || answer.status == 204 || answer.status == 304;
    const bool has_body =
        !bodiless && (answer.chunked || !answer.content_length || *answer.content_length > 0);
    if (!has_body) return {AnswerHandling::Relay, {}};
    if (!is_identity_encoding(answer.content_encoding))
        return refuse("the MCP server sent a compressed answer");
    const auto type = parse_media_type(answer.content_type);
    // JSON or an event stream the proxy would read differently from the client
    // (another charset, a malformed parameter): unreadable, whatever the status.
    if (type.type != MediaType::Other && !type.readable_parameters)
        return refuse("the MCP server answered JSON or an event stream with content type "
                      "parameters the proxy does not read");
    if (type.type == MediaType::EventStream) return {AnswerHandling::FilterSse, {}};
    if (type.type == MediaType::Json) {
        // Checked before a string body would reserve what the length says.
        if (answer.content_length && *answer.content_length > policy.max_message_bytes)
            return refuse("the MCP server's answer is over the size limit");
        return {AnswerHandling::FilterJson, {}};
    }
    // The details never quote the answer's own text: it may hold a substituted
    // value in a form mask_answer_head does not know (upper-cased, say).
    // 202 "Accepted" and error answers (4xx, 5xx) carry no tool list: they pass.
    const bool success = answer.status >= 200 && answer.status < 300;
    if (success && answer.status != 202)
        return refuse("the MCP server answered with a content type other than JSON or an "
                      "event stream");
    return {AnswerHandling::Relay, {}};
}

} // namespace osf::mcp
