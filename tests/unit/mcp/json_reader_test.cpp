#include "mcp/json_reader.hpp"

#include <catch2/catch.hpp>

using osf::mcp::read_strict_json;
using osf::mcp::write_json;

TEST_CASE("strict JSON keeps key order and values") {
    auto read = read_strict_json(R"({"z":1,"a":[true,null,"x"],"m":{"b":2.5,"a":-3}})");
    REQUIRE(read.value);
    CHECK(write_json(*read.value) == R"({"z":1,"a":[true,null,"x"],"m":{"b":2.5,"a":-3}})");
}

TEST_CASE("duplicate keys are unreadable at any depth") {
    CHECK_FALSE(read_strict_json(R"({"a":1,"a":2})").value);
    CHECK_FALSE(
        read_strict_json(R"({"params":{"name":"search","name":"delete_everything"}})").value);
    CHECK_FALSE(read_strict_json(R"([{"x":[{"k":1,"k":1}]}])").value);
    // Escapes decode before comparison: "\u006eame" is "name".
    CHECK_FALSE(read_strict_json(R"({"name":"a","\u006eame":"b"})").value);
    CHECK(read_strict_json(R"({"name":"a","Name":"b"})").value);
    // The same key in sibling objects is fine.
    CHECK(read_strict_json(R"([{"a":1},{"a":2}],)").value == std::nullopt);
    CHECK(read_strict_json(R"([{"a":1},{"a":2}])").value);
    CHECK(read_strict_json(R"({"a":{"a":{"a":1}}})").value);
}

TEST_CASE("only RFC 8259 JSON is readable") {
    CHECK_FALSE(read_strict_json("").value);
    CHECK_FALSE(read_strict_json("{").value);
    CHECK_FALSE(read_strict_json(R"({"a":1} x)").value);
    CHECK_FALSE(read_strict_json(R"({"a":1}{"a":2})").value);
    CHECK_FALSE(read_strict_json("{\"a\":1 /* c */}").value);
    CHECK_FALSE(read_strict_json("{'a':1}").value);
    CHECK_FALSE(read_strict_json("{\"a\":NaN}").value);
    CHECK_FALSE(read_strict_json("\xEF\xBB\xBF{}").value);
    CHECK_FALSE(read_strict_json(std::string("{}\0{}", 5)).value);
    CHECK_FALSE(read_strict_json("{\"a\":\"\xC3\x28\"}").value); // invalid UTF-8
    CHECK(read_strict_json(" \r\n\t{}\n").value);
}

TEST_CASE("nesting is bounded") {
    std::string deep(osf::mcp::kMaxJsonDepth + 5, '[');
    deep += std::string(osf::mcp::kMaxJsonDepth + 5, ']');
    CHECK_FALSE(read_strict_json(deep).value);
    std::string fine(20, '[');
    fine += std::string(20, ']');
    CHECK(read_strict_json(fine).value);
    const auto nested = [](std::size_t depth) {
        return std::string(depth, '[') + std::string(depth, ']');
    };
    CHECK(read_strict_json(nested(osf::mcp::kMaxJsonDepth)).value);
    CHECK(read_strict_json(nested(osf::mcp::kMaxJsonDepth + 1)).error ==
          "nests deeper than 128 levels");
}
