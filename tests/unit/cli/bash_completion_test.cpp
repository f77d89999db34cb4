// The bash completion script read off a CLI11 option tree: which words each
// level offers and which options are followed by a value (left to bash's file
// name completion). tests/integration/test_completion.py runs the scripts in bash.
#include "cli/bash_completion.hpp"

#include <catch2/catch.hpp>
#include <sstream>
#include <string>

namespace {

struct Program {
    CLI::App app{"demo"};
    std::string spec, dir, hidden_value;
    bool verbose = false, follow = false;
    Program() {
        app.add_option("--spec", spec, "spec");
        app.add_flag("-v,--verbose", verbose, "verbose");
        app.add_option("--secret-knob", hidden_value, "not for users")->group("");
        auto* log = app.add_subcommand("log", "the log");
        log->add_option("--state-dir", dir, "dir");
        log->add_flag("-f,--follow", follow, "follow");
        app.add_subcommand("internal", "not for users")->group("");
    }
};

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

} // namespace

TEST_CASE("each level offers its subcommands and options, hidden ones left out") {
    Program p;
    const std::string script = osf::cli::bash_completion(p.app, "demo-tool");
    CHECK(contains(script, "\"\") words=\"log --help -h --spec --verbose -v\" ;;"));
    CHECK(contains(script, "\"log\") words=\"--help -h --state-dir --follow -f\" ;;"));
    CHECK_FALSE(contains(script, "secret-knob"));
    CHECK_FALSE(contains(script, "internal"));
    CHECK(contains(script, "            log) sub=\"${COMP_WORDS[i]}\"; break ;;"));
}

TEST_CASE("options that take a value, and only those, hand over to file names") {
    Program p;
    const std::string script = osf::cli::bash_completion(p.app, "demo-tool");
    CHECK(contains(script, "\":--spec\""));
    CHECK(contains(script, "\"log:--state-dir\""));
    CHECK_FALSE(contains(script, "\":--verbose\""));
    CHECK_FALSE(contains(script, "\"log:--follow\""));
    CHECK_FALSE(contains(script, "\":--help\""));
}

TEST_CASE("the function is named after the program, with shell-safe characters") {
    Program p;
    const std::string script = osf::cli::bash_completion(p.app, "demo-tool");
    CHECK(contains(script, "_osf_demo_tool() {"));
    CHECK(contains(script, "complete -o default -F _osf_demo_tool demo-tool\n"));
}

TEST_CASE("--bash-completion prints the script and ends parsing with success") {
    Program p;
    std::ostringstream out;
    osf::cli::add_bash_completion_flag(p.app, "demo-tool", out);
    const char* argv[] = {"demo-tool", "--bash-completion"};
    CHECK_THROWS_AS(p.app.parse(2, argv), CLI::Success);
    CHECK(out.str() == osf::cli::bash_completion(p.app, "demo-tool"));
}
