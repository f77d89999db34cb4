#include "admission/answer_framing.hpp"

#include <catch2/catch.hpp>

using osf::admission::AnswerBody;
using osf::admission::AnswerFramingFacts;
using osf::admission::frame_answer;

namespace {

struct Row {
    const char* what;
    AnswerFramingFacts facts;
    bool refused;
    AnswerBody body;
    bool keep_content_length;
    bool keep_chunked = false;
};

} // namespace

TEST_CASE("an answer goes to the sandbox with one framing, the proxy's") {
    const std::optional<std::uint64_t> none;
    const std::optional<std::uint64_t> five = 5;
    const Row rows[] = {
        {"Content-Length", {200, false, 0, "", five, 11}, false, AnswerBody::length, false},
        {"chunked", {200, false, 1, "chunked", none, 11}, false, AnswerBody::chunked, false},
        {"chunked, any case and spaces",
         {200, false, 1, " Chunked ", none, 11},
         false,
         AnswerBody::chunked,
         false},
        {"close-delimited, HTTP/1.1 client",
         {200, false, 0, "", none, 11},
         false,
         AnswerBody::chunked,
         false},
        {"close-delimited, HTTP/1.0 client",
         {200, false, 0, "", none, 10},
         false,
         AnswerBody::close,
         false},
        {"chunked, HTTP/1.0 client",
         {200, false, 1, "chunked", none, 10},
         false,
         AnswerBody::close,
         false},
        {"Content-Length, HTTP/1.0 client",
         {200, false, 0, "", five, 10},
         false,
         AnswerBody::length,
         false},
        {"two Transfer-Encoding fields",
         {200, false, 2, "chunked", none, 11},
         true,
         AnswerBody::none,
         false},
        {"identity with Content-Length",
         {200, false, 1, "identity", five, 11},
         true,
         AnswerBody::none,
         false},
        {"gzip with Content-Length",
         {200, false, 1, "gzip", five, 11},
         true,
         AnswerBody::none,
         false},
        {"gzip, chunked",
         {200, false, 1, "gzip, chunked", none, 11},
         true,
         AnswerBody::none,
         false},
        {"chunked, identity",
         {200, false, 1, "chunked, identity", five, 11},
         true,
         AnswerBody::none,
         false},
        {"xchunked", {200, false, 1, "xchunked", none, 11}, true, AnswerBody::none, false},
        {"204 with Content-Length", {204, false, 0, "", five, 11}, false, AnswerBody::none, false},
        {"204 chunked", {204, false, 1, "chunked", none, 11}, false, AnswerBody::none, false},
        {"304 with Content-Length", {304, false, 0, "", five, 11}, false, AnswerBody::none, true},
        {"304 chunked", {304, false, 1, "chunked", none, 11}, false, AnswerBody::none, false, true},
        {"HEAD with Content-Length", {200, true, 0, "", five, 11}, false, AnswerBody::none, true},
        {"HEAD chunked", {200, true, 1, "chunked", none, 11}, false, AnswerBody::none, false, true},
        {"HEAD with gzip", {200, true, 1, "gzip", none, 11}, true, AnswerBody::none, false},
        {"a 1xx", {103, false, 0, "", none, 11}, false, AnswerBody::none, false},
        {"404 with Content-Length",
         {404, false, 0, "", five, 11},
         false,
         AnswerBody::length,
         false},
    };
    for (const auto& row : rows) {
        INFO(row.what);
        const auto framing = frame_answer(row.facts);
        CHECK(framing.refused() == row.refused);
        if (row.refused) continue;
        CHECK(framing.body == row.body);
        CHECK(framing.keep_content_length == row.keep_content_length);
        CHECK(framing.keep_chunked == row.keep_chunked);
    }
}
