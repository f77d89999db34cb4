#include "commands/exec_stderr_filter.hpp"

#include <catch2/catch.hpp>

using osf::commands::ExecStderrFilter;

namespace {

struct Collected {
    std::string text;
    ExecStderrFilter filter{[this](std::string_view chunk) { text.append(chunk); }};
};

} // namespace

TEST_CASE("exec filter: the command's exit code line is consumed") {
    Collected c;
    c.filter.feed("warning from the command\n");
    c.filter.feed("command terminated with exit code 3\n");
    const auto ending = c.filter.finish(3);
    CHECK(ending.command_exit_code == 3);
    CHECK(ending.kubectl_error.empty());
    CHECK(c.text == "warning from the command\n");
}

TEST_CASE("exec filter: lines are forwarded as they come, prompts without a newline too") {
    Collected c;
    c.filter.feed("line one\nPassword: ");
    CHECK(c.text == "line one\nPassword: ");
    c.filter.feed("more\n");
    CHECK(c.text == "line one\nPassword: more\n");
}

TEST_CASE("exec filter: kubectl's own error becomes the error, not output") {
    Collected c;
    c.filter.feed("Error from server (NotFound): pods \"x\" not found\n");
    const auto ending = c.filter.finish(1);
    CHECK_FALSE(ending.command_exit_code);
    CHECK(ending.kubectl_error == "Error from server (NotFound): pods \"x\" not found");
    CHECK(c.text.empty());
}

TEST_CASE("exec filter: an error-looking line from a successful command is just output") {
    Collected c;
    c.filter.feed("error: not really\n");
    const auto ending = c.filter.finish(0);
    CHECK_FALSE(ending.command_exit_code);
    CHECK(ending.kubectl_error.empty());
    CHECK(c.text == "error: not really\n");
}

TEST_CASE("exec filter: a held line is released when more output follows") {
    Collected c;
    c.filter.feed("error: from the command\nstill running\n");
    CHECK(c.text == "error: from the command\nstill running\n");
    c.filter.feed("command terminated with exit");
    c.filter.feed(" code 42\n");
    CHECK(c.filter.finish(42).command_exit_code == 42);
    CHECK(c.text == "error: from the command\nstill running\n");
}
