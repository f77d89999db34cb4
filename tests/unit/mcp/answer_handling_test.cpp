#include "mcp/answer_handling.hpp"

#include <catch2/catch.hpp>

using osf::mcp::AnswerFacts;
using osf::mcp::AnswerHandling;
using osf::mcp::decide_answer;

namespace {

AnswerFacts answer(int status, std::string_view type, std::optional<std::uint64_t> length = 10,
                   std::string_view encoding = {}) {
    AnswerFacts facts;
    facts.status = status;
    facts.content_type = type;
    facts.content_length = length;
    facts.content_encoding = encoding;
    return facts;
}

} // namespace

TEST_CASE("what is done with an MCP answer, by its head", "[mcp]") {
    const osf::mcp::ServerPolicy policy{"wiki", {"search"}, 1000};
    auto head_request = [](AnswerFacts a) {
        a.head_request = true;
        return a;
    };
    auto chunked = [](AnswerFacts a) {
        a.chunked = true;
        a.content_length.reset();
        return a;
    };
    struct Case {
        const char* what;
        AnswerFacts facts;
        AnswerHandling expected;
        std::string_view detail_has; // Refuse only
    };
    const std::vector<Case> cases = {
        // no body: nothing to read
        {"204", answer(204, "text/html", std::nullopt), AnswerHandling::Relay, ""},
        {"304", answer(304, "application/json"), AnswerHandling::Relay, ""},
        {"HEAD", head_request(answer(200, "text/html", 5000, "gzip")), AnswerHandling::Relay, ""},
        {"Content-Length: 0", answer(200, "text/html", 0), AnswerHandling::Relay, ""},
        // compressed: unreadable, whatever the status or type
        {"gzip JSON", answer(200, "application/json", 10, "gzip"), AnswerHandling::Refuse,
         "compressed"},
        {"gzip error", answer(404, "text/html", 10, "gzip"), AnswerHandling::Refuse, "compressed"},
        {"identity, gzip", answer(200, "application/json", 10, "identity, gzip"),
         AnswerHandling::Refuse, "compressed"},
        {"chunked gzip", chunked(answer(200, "text/event-stream", 0, "br")), AnswerHandling::Refuse,
         "compressed"},
        {"identity", answer(200, "application/json", 10, " Identity "), AnswerHandling::FilterJson,
         ""},
        // event streams
        {"SSE", answer(200, "text/event-stream", std::nullopt), AnswerHandling::FilterSse, ""},
        {"SSE, chunked, charset", chunked(answer(200, "Text/Event-Stream; charset=utf-8")),
         AnswerHandling::FilterSse, ""},
        {"SSE error status", answer(500, "text/event-stream"), AnswerHandling::FilterSse, ""},
        // JSON
        {"JSON", answer(200, "application/json"), AnswerHandling::FilterJson, ""},
        {"JSON at the limit", answer(200, "application/json", 1000), AnswerHandling::FilterJson,
         ""},
        {"JSON over the limit", answer(200, "application/json", 1001), AnswerHandling::Refuse,
         "over the size limit"},
        {"JSON error over the limit", answer(400, "application/json", 1001), AnswerHandling::Refuse,
         "over the size limit"},
        {"JSON error", answer(400, "application/json; charset=UTF-8"), AnswerHandling::FilterJson,
         ""},
        {"chunked JSON", chunked(answer(200, "application/json")), AnswerHandling::FilterJson, ""},
        {"close-delimited JSON", answer(200, "application/json", std::nullopt),
         AnswerHandling::FilterJson, ""},
        // JSON or SSE the proxy would read differently from the client
        {"JSON in UTF-16", answer(200, "application/json; charset=utf-16"), AnswerHandling::Refuse,
         "parameters the proxy does not read"},
        {"JSON error in Latin-1", answer(404, "application/json; charset=iso-8859-1"),
         AnswerHandling::Refuse, "parameters the proxy does not read"},
        {"SSE with a malformed parameter", answer(200, "text/event-stream; garbage"),
         AnswerHandling::Refuse, "parameters the proxy does not read"},
        // other types: a success carries what the proxy cannot read
        {"200 HTML", answer(200, "text/html"), AnswerHandling::Refuse,
         "a content type other than JSON"},
        {"200 without a type", answer(200, ""), AnswerHandling::Refuse,
         "a content type other than JSON"},
        {"201 JSON lookalike", answer(201, "application/json-seq"), AnswerHandling::Refuse,
         "a content type other than JSON"},
        {"200 chunked text", chunked(answer(200, "text/plain")), AnswerHandling::Refuse,
         "content type"},
        // ... an error or a 202 carries no tool list
        {"202 Accepted", answer(202, "text/plain"), AnswerHandling::Relay, ""},
        {"202 without a type", answer(202, ""), AnswerHandling::Relay, ""},
        {"401 HTML", answer(401, "text/html"), AnswerHandling::Relay, ""},
        {"404 text", chunked(answer(404, "text/plain")), AnswerHandling::Relay, ""},
        {"503 HTML", answer(503, "text/html", std::nullopt), AnswerHandling::Relay, ""},
        {"302 redirect", answer(302, "text/html"), AnswerHandling::Relay, ""},
    };
    for (const auto& c : cases) {
        INFO(c.what);
        const auto decision = decide_answer(policy, c.facts);
        CHECK(decision.handling == c.expected);
        if (c.expected == AnswerHandling::Refuse)
            CHECK_THAT(decision.detail, Catch::Contains(std::string(c.detail_has)));
        else
            CHECK(decision.detail.empty());
    }
}
