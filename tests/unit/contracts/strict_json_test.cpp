// The strict JSON reader (osf/strict_json.hpp), and what it catches before the
// spec's rules: syntax, duplicate keys at any depth, absurd nesting, NUL bytes.
#include "osf/strict_json.hpp"
#include "spec_test_support.hpp"

#include <catch2/catch.hpp>

using spec_test::errors_of;

TEST_CASE("duplicate keys are errors at every level", "[spec][json]") {
    CHECK(errors_of(R"({"template": "a", "template": "b"})") ==
          std::vector<std::string>{
              "$.template: duplicate key \"template\": each key may appear once in an "
              "object, or readers disagree on which value counts"});
    CHECK(spec_test::error_paths(R"({"template": "a", "env": {"CI": "1", "CI": "2"}})") ==
          std::vector<std::string>{"$.env.CI"});
    CHECK(spec_test::error_paths(
              R"({"template": "a", "secrets": {"T": "ref:env/A", "T": "ref:env/B"}})") ==
          std::vector<std::string>{"$.secrets.T"});
    CHECK(
        spec_test::error_paths(
            R"({"template": "a", "mcp": [{"name": "w", "url": "https://w.com", "tools": [], "name": "v"}]})") ==
        std::vector<std::string>{"$.mcp[0].name"});
    CHECK(spec_test::error_paths(R"({"template": "a", "x-y": 1, "x-y": 2})") ==
          std::vector<std::string>{"$['x-y']", "$['x-y']"});
}

TEST_CASE("a duplicate key and other mistakes are all reported", "[spec][json]") {
    const auto paths =
        spec_test::error_paths(R"({"template": "a", "cpu": -1, "env": {"A": "1", "A": 2}})");
    CHECK(paths == std::vector<std::string>{"$.env.A", "$.cpu", "$.env.A"});
}

TEST_CASE("JSON syntax errors name the place", "[spec][json]") {
    for (const auto* text : {"", "{", R"({"template": "a",})", R"({"template": 'a'})", "{} {}",
                             "{\"template\": \"a\xff\"}", R"({"template": "a"} x)", "NaN"}) {
        INFO(text);
        const auto result = osf::parse_spec(text);
        REQUIRE(result.errors.size() == 1);
        CHECK(result.errors[0].path == "$");
        CHECK_THAT(result.errors[0].message, Catch::StartsWith("not valid JSON: "));
        CHECK_THAT(result.errors[0].message, Catch::Contains("line 1, column"));
        CHECK_THAT(result.errors[0].message, !Catch::Contains("[json.exception"));
    }
}

TEST_CASE("numbers too large for a double are syntax errors", "[spec][json]") {
    const auto result = osf::parse_spec(R"({"template": "a", "cpu": 1e400})");
    REQUIRE(result.errors.size() == 1);
    CHECK_THAT(result.errors[0].message, Catch::Contains("not valid JSON"));
}

TEST_CASE("absurd nesting stops early with an error", "[spec][json]") {
    const std::string deep =
        R"({"template": "a", "env": )" + std::string(100000, '[') + std::string(100000, ']') + "}";
    const auto result = osf::parse_spec(deep);
    REQUIRE_FALSE(result.ok());
    CHECK_THAT(result.errors[0].message, Catch::Contains("nests deeper than 64 levels"));
}

TEST_CASE("keys and values keep their escapes and Unicode", "[spec][json]") {
    const auto spec = spec_test::valid_spec(
        R"({"template": "a", "env": {"A": "line\nnext \u00e9 \ud83d\ude00"}})");
    CHECK(spec.env.at("A") == "line\nnext \xc3\xa9 \xf0\x9f\x98\x80");
}

TEST_CASE("a control character in a key is shown escaped in the path", "[spec][json]") {
    CHECK(spec_test::error_paths(R"({"template": "a", "env": {"A\nB": "x"}})") ==
          std::vector<std::string>{"$.env['A\\nB']"});
}

TEST_CASE("a NUL byte is an error, not the end of the text", "[spec][json]") {
    using namespace std::string_literals;
    const auto result = osf::parse_spec("{\"template\": \"a\"}\0garbage"s);
    REQUIRE(result.errors.size() == 1);
    CHECK(result.errors[0].to_string() ==
          "$: not valid JSON: a NUL byte at offset 17 (JSON text never holds one raw)");
}

TEST_CASE("a spec file may start with a byte order mark, an MCP message may not", "[spec][json]") {
    CHECK(spec_test::valid_spec("\xEF\xBB\xBF{\"template\": \"a\"}").template_name == "a");
    const auto read =
        osf::strict_json::read<nlohmann::ordered_json>("\xEF\xBB\xBF{}", {.max_depth = 8});
    CHECK_FALSE(read.ok());
    REQUIRE(read.errors.size() == 1);
    CHECK_THAT(read.errors[0].message, Catch::StartsWith("not valid JSON: a byte order mark"));
}

TEST_CASE("the depth limit allows exactly max_depth containers", "[json]") {
    for (const std::size_t depth : {1u, 7u, 8u, 9u}) {
        INFO(depth);
        const std::string text = std::string(depth, '[') + std::string(depth, ']');
        const auto read = osf::strict_json::read<nlohmann::json>(text, {.max_depth = 8});
        CHECK(read.ok() == (depth <= 8));
        if (depth > 8) CHECK(read.errors.at(0).path == "$[0][0][0][0][0][0][0][0]");
    }
}

TEST_CASE("numbers are recorded as written, by path, only when asked", "[json]") {
    const std::string text = R"({"a": [1, 2.50, {"b c": -3e2}], "d": 18446744073709551615})";
    const auto recorded =
        osf::strict_json::read<nlohmann::json>(text, {.max_depth = 8, .record_numbers = true});
    REQUIRE(recorded.ok());
    CHECK(recorded.numbers == std::map<std::string, std::string>{{"$.a[0]", "1"},
                                                                 {"$.a[1]", "2.50"},
                                                                 {"$.a[2]['b c']", "-3e2"},
                                                                 {"$.d", "18446744073709551615"}});
    CHECK(osf::strict_json::read<nlohmann::json>(text, {.max_depth = 8}).numbers.empty());
}

TEST_CASE("an ordered document keeps the keys in the text's order", "[json]") {
    const auto read =
        osf::strict_json::read<nlohmann::ordered_json>(R"({"z":1,"a":{"y":2,"b":3}})", {});
    REQUIRE(read.ok());
    CHECK(read.document.dump() == R"({"z":1,"a":{"y":2,"b":3}})");
}
