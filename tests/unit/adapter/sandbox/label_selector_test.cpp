#include "sandbox/label_selector.hpp"

#include <catch2/catch.hpp>

using namespace osf::sandbox;

namespace {

bool matches(const std::string& text, const std::map<std::string, std::string>& labels) {
    const auto parsed = parse_label_selector(text);
    REQUIRE(std::holds_alternative<LabelSelector>(parsed));
    return selector_matches(std::get<LabelSelector>(parsed), labels);
}

std::string problem(const std::string& text) {
    const auto parsed = parse_label_selector(text);
    REQUIRE(std::holds_alternative<std::string>(parsed));
    return std::get<std::string>(parsed);
}

} // namespace

TEST_CASE("label selectors: equality-based requirements, all of which must hold") {
    const std::map<std::string, std::string> labels{
        {"run", "r1"}, {"team", "a"}, {"example.com/tier", ""}};
    struct Row {
        const char* selector;
        bool selected;
    };
    for (const Row& row :
         {Row{"", true}, Row{"run=r1", true}, Row{"run==r1", true}, Row{"run = r1", true},
          Row{"run=r2", false}, Row{"run=r1,team=a", true}, Row{"run=r1,team=b", false},
          Row{"team!=b", true}, Row{"team!=a", false}, Row{"absent!=x", true}, Row{"run", true},
          Row{"absent", false}, Row{"!absent", true}, Row{"!run", false},
          Row{"example.com/tier=", true}, Row{"example.com/tier", true}, Row{"absent=", false}}) {
        INFO(row.selector);
        CHECK(matches(row.selector, labels) == row.selected);
    }
}

TEST_CASE("label selectors: what is not one is named") {
    CHECK(problem("a in (b)").find("only equality-based selectors") != std::string::npos);
    CHECK(problem("run=r1,") == "the label selector 'run=r1,' has an empty part");
    CHECK(problem("-run=x").find("is not a label key") != std::string::npos);
    CHECK(problem("run=has space").find("is not a label value") != std::string::npos);
    CHECK(problem("run=" + std::string(64, 'a')).find("is not a label value") != std::string::npos);
}
