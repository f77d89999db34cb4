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
