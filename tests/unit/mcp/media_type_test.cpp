#include "mcp/media_type.hpp"

#include <catch2/catch.hpp>

using osf::mcp::classify_media_type;
using osf::mcp::is_identity_encoding;
using osf::mcp::MediaType;

TEST_CASE("content types") {
    CHECK(classify_media_type("application/json") == MediaType::Json);
    CHECK(classify_media_type("Application/JSON; charset=utf-8") == MediaType::Json);
    CHECK(classify_media_type("application/json;charset=\"UTF-8\"") == MediaType::Json);
    CHECK(classify_media_type(" application/json ; foo=bar") == MediaType::Json);
    CHECK(classify_media_type("text/event-stream") == MediaType::EventStream);
    CHECK(classify_media_type("text/event-stream; charset=utf-8") == MediaType::EventStream);
    CHECK(classify_media_type("") == MediaType::Other);
    CHECK(classify_media_type("application/json; charset=utf-16") == MediaType::Other);
    CHECK(classify_media_type("application/json; garbage") == MediaType::Other);
    CHECK(classify_media_type("application/jsonx") == MediaType::Other);
    CHECK(classify_media_type("application/json-rpc") == MediaType::Other);
    CHECK(classify_media_type("text/plain") == MediaType::Other);
    CHECK(classify_media_type("application/x-www-form-urlencoded") == MediaType::Other);
}

TEST_CASE("content encodings") {
    CHECK(is_identity_encoding(""));
    CHECK(is_identity_encoding("identity"));
    CHECK(is_identity_encoding(" Identity "));
    CHECK_FALSE(is_identity_encoding("gzip"));
    CHECK_FALSE(is_identity_encoding("br"));
    CHECK_FALSE(is_identity_encoding("identity, gzip"));
}
