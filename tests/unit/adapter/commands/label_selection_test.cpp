#include "commands/command_errors.hpp"
#include "commands/label_selection.hpp"

#include <catch2/catch.hpp>

using namespace osf::commands;

TEST_CASE("create --label: key=value over the spec's labels, the adapters' keys refused") {
    const std::map<std::string, std::string> spec{{"run", "r1"}, {"team", "spec"}};
    CHECK(with_label_options(spec, {"team=cli", "tier="}) ==
          std::map<std::string, std::string>{{"run", "r1"}, {"team", "cli"}, {"tier", ""}});
    CHECK(with_label_options(spec, {}) == spec);
    CHECK_THROWS_WITH(with_label_options(spec, {"novalue"}),
                      "--label takes key=value; got 'novalue'");
    CHECK_THROWS_WITH(with_label_options(spec, {"osf.sandbox.id=x"}),
                      "--label: osf.sandbox.id is a label the sandbox adapters set themselves");
    CHECK_THROWS_AS(with_label_options(spec, {"app.kubernetes.io/component=x"}), UsageError);
    CHECK_THROWS_AS(with_label_options(spec, {"run=a b"}), UsageError);
}

TEST_CASE("-l: a selector or exit 2") {
    CHECK(selector_option("").empty());
    CHECK(selector_option("a=b,c!=d").size() == 2);
    CHECK_THROWS_AS(selector_option("a in (b)"), UsageError);
}
