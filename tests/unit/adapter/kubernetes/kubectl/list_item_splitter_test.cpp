#include "kubernetes/kubectl/list_item_splitter.hpp"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

using osf::kubernetes::kubectl::ListItemSplitter;

namespace {

struct Split {
    std::vector<std::string> items;
    bool complete = false;
};

// `text` fed in pieces of `piece` bytes.
Split split(const std::string& text, std::size_t piece) {
    Split out;
    ListItemSplitter splitter([&](std::string_view item) { out.items.emplace_back(item); });
    for (std::size_t at = 0; at < text.size(); at += piece)
        splitter.feed(std::string_view(text).substr(at, piece));
    out.complete = splitter.complete();
    return out;
}

} // namespace

TEST_CASE("list item splitter: each item of the top-level items array, however the bytes come") {
    struct Case {
        std::string text;
        std::vector<std::string> items;
        bool complete;
    };
    const std::vector<Case> cases = {
        {R"({"kind":"PodList","items":[]})", {}, true},
        {R"({"kind":"PodList","metadata":{"resourceVersion":"7"},"items":[{"a":1},{"b":[2,{"c":3}]}]})",
         {R"({"a":1})", R"({"b":[2,{"c":3}]})"},
         true},
        // Items after other keys and around whitespace; a nested "items" key is not the list's.
        {"{\n \"items\" : [ {\"items\":[{\"x\":1}]} ,\n {\"y\":\"}]{\"} ],\"kind\":\"List\"}",
         {R"({"items":[{"x":1}]})", R"({"y":"}]{"})"},
         true},
        // Quotes and backslashes escaped inside strings.
        {R"({"items":[{"s":"a\"}\\"},{"t":"\\\""}]})",
         {R"({"s":"a\"}\\"})", R"({"t":"\\\""})"},
         true},
        // A value named "items" is not the key.
        {R"({"kind":"items","x":[{"no":1}],"items":[{"yes":1}]})", {R"({"yes":1})"}, true},
        // Cut short: the items so far, not complete.
        {R"({"items":[{"a":1},{"b":)", {R"({"a":1})"}, false},
        {"", {}, false},
        {"Error from server", {}, false},
    };
    for (const auto& c : cases)
        for (const std::size_t piece : {std::size_t{1}, std::size_t{3}, std::size_t{4096}}) {
            INFO(c.text << " in pieces of " << piece);
            const auto got = split(c.text, piece);
            CHECK(got.items == c.items);
            CHECK(got.complete == c.complete);
        }
}

TEST_CASE("list item splitter: the top-level metadata, where a page says how to continue") {
    struct Case {
        std::string text;
        std::string metadata;
    };
    const std::vector<Case> cases = {
        {R"({"kind":"PodList","metadata":{"resourceVersion":"7","continue":"eyJ2Ijo"},"items":[]})",
         R"({"resourceVersion":"7","continue":"eyJ2Ijo"})"},
        // After the items, nested, and escaped braces inside its strings.
        {R"({"items":[{"metadata":{"name":"a"}}],"metadata":{"continue":"x}\"{","o":{"p":1}}})",
         R"({"continue":"x}\"{","o":{"p":1}})"},
        // An item's metadata is not the list's; a value "metadata" is not the key.
        {R"({"kind":"metadata","items":[{"metadata":{"continue":"no"}}]})", ""},
        {R"({"items":[]})", ""},
    };
    for (const auto& c : cases)
        for (const std::size_t piece : {std::size_t{1}, std::size_t{5}, std::size_t{4096}}) {
            INFO(c.text << " in pieces of " << piece);
            ListItemSplitter splitter([](std::string_view) {});
            for (std::size_t at = 0; at < c.text.size(); at += piece)
                splitter.feed(std::string_view(c.text).substr(at, piece));
            CHECK(splitter.complete());
            CHECK(splitter.metadata() == c.metadata);
        }
}
