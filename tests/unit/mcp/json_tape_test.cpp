// The fast reader used on answers must accept exactly what the strict DOM
// reader (used on requests) accepts, and find members the way a server would.
#include "mcp/json_reader.hpp"
#include "mcp/json_tape.hpp"

#include <catch2/catch.hpp>
#include <random>

using osf::mcp::JsonTape;
using osf::mcp::read_strict_json;

namespace {

const char* kCorpus[] = {
    "{}",
    "[]",
    "0",
    "-0",
    "1.5e+10",
    "-12.0E-3",
    "true",
    "false",
    "null",
    "\"\"",
    R"({"a":[1,{"b":null}],"c":"\u00e9\ud83d\ude00\n\"\\\/"})",
    "  [ 1 , 2 ]  ",
    "\"\xC3\xA9\"",
    "\"\xF0\x9F\x98\x80\"",
    "\"\xE2\x82\xAC\"",
    // Refused by both:
    "",
    " ",
    "{",
    "}",
    "[",
    "[1,]",
    "{\"a\":1,}",
    "{\"a\" 1}",
    "{a:1}",
    "01",
    "1.",
    ".5",
    "1e",
    "-",
    "+1",
    "NaN",
    "Infinity",
    "tru",
    "nul",
    "[1 2]",
    "{\"a\":1}{}",
    "{\"a\":1} x",
    "'a'",
    "\"\\x\"",
    "\"\\u12\"",
    "\"\\ud800\"",
    "\"\\udc00\"",
    "\"\\ud800\\u0041\"",
    "\"a\tb\"",
    "\"\xC3\"",
    "\"\xC0\x80\"",
    "\"\xED\xA0\x80\"",
    "\"\xF4\x90\x80\x80\"",
    "\"\xFF\"",
    "\"\xE0\x80\x80\"",
    "\xEF\xBB\xBF{}",
    "{\"a\":1,\"a\":2}",
    "{\"a\":1,\"\\u0061\":2}",
    "[{\"x\":{\"y\":1,\"y\":1}}]",
    "/*c*/{}",
    "{\"a\":1 /*c*/}",
};

bool tape_accepts(std::string_view text) {
    return JsonTape::read(text).has_value();
}
bool dom_accepts(std::string_view text) {
    return read_strict_json(text).value.has_value();
}

// classify() may only answer object_without_result for what the DOM reader
// reads as an object without a "result" member, and invalid only for what it
// refuses; at anything else it stops early, and parse() decides.
void check_classify(const std::string& text) {
    JsonTape tape;
    const auto shape = tape.classify(text);
    const auto dom = read_strict_json(text).value;
    INFO(text);
    switch (shape) {
    case JsonTape::Shape::invalid:
        REQUIRE_FALSE(dom);
        break;
    case JsonTape::Shape::object_without_result:
        REQUIRE(dom);
        REQUIRE(dom->is_object());
        REQUIRE_FALSE(dom->contains("result"));
        break;
    case JsonTape::Shape::other:
        if (dom) REQUIRE((!dom->is_object() || dom->contains("result")));
        break;
    }
}

std::string mutated(std::string text, std::mt19937& rng) {
    const std::string alphabet = "{}[]\",:\\/u0123456789abcdefnrtlsE.-+ \n\xC3\xA9\xF0\x9F";
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits; ++e) {
        std::size_t at = rng() % text.size();
        switch (rng() % 3) {
        case 0:
            text.erase(at, 1);
            break;
        case 1:
            text.insert(at, 1, alphabet[rng() % alphabet.size()]);
            break;
        default:
            text[at] = alphabet[rng() % alphabet.size()];
            break;
        }
        if (text.empty()) text = "x";
    }
    return text;
}

} // namespace

TEST_CASE("the tape reader and the DOM reader agree on a corpus") {
    for (const char* text : kCorpus) {
        INFO(text);
        CHECK(tape_accepts(text) == dom_accepts(text));
    }
}

TEST_CASE("the tape reader and the DOM reader agree on mutated messages") {
    const std::string seed =
        R"({"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"s\u00e9arch","n":-1.5e3,"ok":true,"x":null},{"name":"b"}],"nextCursor":"c"}})";
    std::mt19937 rng(12345);
    int accepted = 0;
    for (int round = 0; round < 20000; ++round) {
        const std::string text = mutated(seed, rng);
        INFO(text);
        REQUIRE(tape_accepts(text) == dom_accepts(text));
        accepted += tape_accepts(text) ? 1 : 0;
    }
    CHECK(accepted > 100); // the mutations also produce valid documents
}

TEST_CASE("classify checks objects without a result and leaves the rest to parse") {
    for (const char* text : kCorpus)
        check_classify(text);
    for (const char* text : {R"({"result":1})", R"( {"id":1, "result" :{}})",
                             R"({"r\u0065sult":2})", R"({"a":{"result":1}})", R"([{"method":"x"}])",
                             R"({"result":1,)", R"({"a":1,"a":2,"result":3})", R"({"resultx":1})"})
        check_classify(text);
    JsonTape tape;
    CHECK(tape.classify(R"({"a":{"result":1}})") == JsonTape::Shape::object_without_result);
    CHECK(tape.classify(R"({"r\u0065sult":2})") == JsonTape::Shape::other);
    CHECK(tape.classify(R"([{"method":"x"}])") == JsonTape::Shape::other);
    // Stopped at "result" before the duplicate is seen: parse() refuses it.
    CHECK(tape.classify(R"({"a":1,"a":2,"result":3})") == JsonTape::Shape::other);
    CHECK_FALSE(tape.parse(R"({"a":1,"a":2,"result":3})"));
    CHECK(tape.classify(R"({"a":1,"a":2})") == JsonTape::Shape::invalid);
    const std::string notification =
        R"({"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t\u00e9","progress":-1.5e3,"done":false,"x":null,"list":[1,{"result":2}]}})";
    std::mt19937 rng(777);
    for (int round = 0; round < 20000; ++round)
        check_classify(mutated(notification, rng));
}

TEST_CASE("nesting is bounded like the DOM reader") {
    for (std::size_t depth : {osf::mcp::kMaxJsonDepth - 1, osf::mcp::kMaxJsonDepth,
                              osf::mcp::kMaxJsonDepth + 1, osf::mcp::kMaxJsonDepth + 50}) {
        std::string text = std::string(depth, '[') + std::string(depth, ']');
        INFO(depth);
        CHECK(tape_accepts(text) == dom_accepts(text));
        std::string objects;
        for (std::size_t i = 0; i < depth; ++i)
            objects += "{\"a\":";
        objects += "1" + std::string(depth, '}');
        CHECK(tape_accepts(objects) == dom_accepts(objects));
    }
}

TEST_CASE("duplicate keys in large objects are found") {
    std::string text = "{";
    for (int i = 0; i < 1000; ++i)
        text += "\"k" + std::to_string(i) + "\":" + std::to_string(i) + ",";
    CHECK(tape_accepts(text + "\"k999x\":1}"));
    CHECK_FALSE(tape_accepts(text + "\"k5\":1}"));
    CHECK_FALSE(tape_accepts(text + "\"\\u006b5\":1}"));
}

TEST_CASE("members, elements and strings") {
    auto tape = JsonTape::read(R"( {"id": 7, "r\u0065sult": {"tools": [ {"name":"a\nb"}, 2 ]}} )");
    REQUIRE(tape);
    auto result = tape->member(JsonTape::root(), "result");
    REQUIRE(result);
    auto tools = tape->member(*result, "tools");
    REQUIRE(tools);
    auto elements = tape->elements(*tools);
    REQUIRE(elements.size() == 2);
    CHECK(tape->span(elements[1]) == "2");
    auto name = tape->member(elements[0], "name");
    REQUIRE(name);
    CHECK(tape->string_value(*name) == "a\nb");
    CHECK(tape->span(*tape->member(JsonTape::root(), "id")) == "7");
    CHECK_FALSE(tape->member(JsonTape::root(), "tools"));
    CHECK_FALSE(tape->member(*tools, "name")); // not an object
}

TEST_CASE("keys are compared as they read, escapes decoded") {
    auto tape = JsonTape::read(R"({"a\/":1,"i\u0064":2,"ids":3})");
    REQUIRE(tape);
    const auto root = JsonTape::root();
    CHECK(tape->span(*tape->member(root, "a/")) == "1");
    CHECK_FALSE(tape->member(root, "a\\/")); // as long as the raw key, but that is not it
    CHECK(tape->span(*tape->member(root, "id")) == "2");
    CHECK(tape->span(*tape->member(root, "ids")) == "3");
    CHECK_FALSE(tape->member(root, "i"));
    CHECK_FALSE(tape->member(root, "idsx"));
}

TEST_CASE("long strings are read word by word: any special byte at any offset is seen") {
    // Each byte that ends, escapes or invalidates a string, at every position of a
    // string long enough for the 8-byte scan, inside and across word boundaries.
    const std::vector<std::string> specials = {"\"",
                                               "\\n",
                                               "\\",
                                               "\x01",
                                               "\x1f",
                                               "\t",
                                               "\x7f",
                                               "\xC3\xA9",
                                               "\xC3",
                                               "\xFF",
                                               "\xF0\x9F\x98\x80"};
    for (const auto& special : specials) {
        for (std::size_t at = 0; at < 40; ++at) { // every lane of 16- and 8-byte blocks
            std::string inner = std::string(at, 'a') + special + std::string(17, 'b');
            const std::string text = "{\"k\":\"" + inner + "\",\"z\":1}";
            INFO("special " << special.size() << " bytes at " << at);
            CHECK(tape_accepts(text) == dom_accepts(text));
        }
    }
}

TEST_CASE("a tape is reused for message after message, also after a refusal") {
    JsonTape tape;
    REQUIRE(tape.parse(R"({"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a"}]}})"));
    REQUIRE(tape.member(JsonTape::root(), "id"));
    CHECK_FALSE(tape.parse(R"({"a":1,"a":2})"));
    const std::string second = R"({"method":"notifications/progress","params":{"progress":7}})";
    REQUIRE(tape.parse(second));
    auto params = tape.member(JsonTape::root(), "params");
    REQUIRE(params);
    auto progress = tape.member(*params, "progress");
    REQUIRE(progress);
    CHECK(tape.span(*progress) == "7");
    CHECK_FALSE(tape.member(JsonTape::root(), "id"));
}

TEST_CASE("a text holds at most max_values values, whatever its shape") {
    auto repeated = [](const std::string& open, const std::string& piece, std::size_t n,
                       const std::string& close) {
        std::string text = open;
        for (std::size_t i = 0; i < n; ++i)
            text += (i ? "," : "") + piece;
        return text + close;
    };
    // Two bytes a value: past a quarter of the bytes (and the constant) it is refused.
    for (const std::string piece : {"0", "{}", "[]"}) {
        INFO(piece);
        const auto fits = repeated("[", piece, 1000, "]");
        CHECK(JsonTape::read(fits));
        const auto dense = repeated("[", piece, 100000, "]");
        std::string error;
        CHECK_FALSE(JsonTape::read(dense, &error));
        CHECK(error == "too many values");
        JsonTape tape; // counted when only checked, too
        CHECK(tape.classify("{\"a\":" + dense + "}") == JsonTape::Shape::invalid);
    }
    // Ordinary text (strings of some length) is far from it.
    const auto words = repeated("[", "\"a word or two\"", 100000, "]");
    CHECK(JsonTape::read(words));
    CHECK(JsonTape::max_values(words.size()) > 100000);
}

TEST_CASE("escaped keys of a large object are compared unescaped") {
    std::string text = "{";
    for (int i = 0; i < 2000; ++i)
        text += (i ? "," : "") + std::string("\"\\u0061") + std::to_string(i) + "\":0";
    CHECK(JsonTape::read(text + "}"));
    CHECK_FALSE(JsonTape::read(text + ",\"a7\":1}")); // "\u00617" is "a7"
}
