#include "commands/command_errors.hpp"
#include "local/launch/bwrap_command.hpp"
#include "local/launch/template_choice.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <sys/wait.h>

using namespace osf::local;

TEST_CASE("templates: host, a root directory, a local image, a snapshot; the rest refused") {
    TemplateLookup lookup{[](const std::string& d) { return d == "/srv/rootfs"; },
                          [](const std::string& n) { return n == "osf-snapshot-x"; },
                          [](const std::string& i) { return i == "localhost/tools:1"; }};
    CHECK(choose_template("host", lookup).kind == TemplateChoice::Kind::Host);
    const auto root = choose_template("/srv/rootfs", lookup);
    CHECK(root.kind == TemplateChoice::Kind::RootDirectory);
    CHECK(root.root_directory == "/srv/rootfs");
    const auto image = choose_template("localhost/tools:1", lookup);
    CHECK(image.kind == TemplateChoice::Kind::Image);
    CHECK(image.image == "localhost/tools:1");
    CHECK(choose_template("osf-snapshot-x", lookup).kind == TemplateChoice::Kind::Snapshot);
    CHECK_THROWS_AS(choose_template("/srv/missing", lookup), osf::commands::UsageError);
    CHECK_THROWS_AS(choose_template("node:24-alpine", lookup), osf::commands::UsageError);
    CHECK_THROWS_AS(choose_template("other", lookup), osf::commands::CommandFailed);
}
