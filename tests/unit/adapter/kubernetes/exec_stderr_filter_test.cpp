#include "kubernetes/exec_stderr_filter.hpp"

#include <catch2/catch.hpp>

using osf::kubernetes::ExecStderrFilter;

namespace {

struct Collected {
    std::string text;
    ExecStderrFilter filter{[this](std::string_view chunk) { text.append(chunk); }};
};

} // namespace

TEST_CASE("exec filter: kubectl's exit code line matching its exit status is consumed") {
    Collected c;
    c.filter.feed("warning from the command\n");
    c.filter.feed("command terminated with exit code 3\n");
    const auto ending = c.filter.finish(3);
    CHECK(ending.command_exit_code == 3);
    CHECK(ending.kubectl_error.empty());
    CHECK(c.text == "warning from the command\n");
}

TEST_CASE("exec filter: the command printing kubectl's line cannot fake its exit code") {
    SECTION("it succeeded: exit 0, and the line is its output") {
        Collected c;
        c.filter.feed("command terminated with exit code 9\n");
        CHECK(c.filter.finish(0).command_exit_code == 0);
        CHECK(c.text == "command terminated with exit code 9\n");
    }
    SECTION("it failed with another code: its own line stays, kubectl's goes") {
        Collected c;
        c.filter.feed("command terminated with exit code 9\n");
        c.filter.feed("command terminated with exit code 3\n");
        CHECK(c.filter.finish(3).command_exit_code == 3);
        CHECK(c.text == "command terminated with exit code 9\n");
    }
    SECTION("it printed the very code it then exited with: only kubectl's copy goes") {
        Collected c;
        c.filter.feed("command terminated with exit code 3\ncommand terminated with exit code 3\n");
        CHECK(c.filter.finish(3).command_exit_code == 3);
        CHECK(c.text == "command terminated with exit code 3\n");
    }
    SECTION("a line that does not match kubectl's status is the command's") {
        Collected c;
        c.filter.feed("command terminated with exit code 9\n");
        const auto ending = c.filter.finish(1);
        CHECK_FALSE(ending.command_exit_code);
        CHECK(ending.kubectl_error.empty());
        CHECK(c.text == "command terminated with exit code 9\n");
    }
}

TEST_CASE("exec filter: kubectl's line after a last line without a newline is consumed") {
    Collected c;
    c.filter.feed("50% done");
    CHECK(c.text == "50% done");
    c.filter.feed("comm");
    CHECK(c.text == "50% done");
    c.filter.feed("and terminated with exit code 5\n");
    CHECK(c.filter.finish(5).command_exit_code == 5);
    CHECK(c.text == "50% done");
}

TEST_CASE("exec filter: lines are forwarded as they come, prompts without a newline too") {
    Collected c;
    c.filter.feed("line one\nPassword: ");
    CHECK(c.text == "line one\nPassword: ");
    c.filter.feed("more\n");
    CHECK(c.text == "line one\nPassword: more\n");
}

TEST_CASE("exec filter: what only looked like kubectl's start is released when it diverges") {
    Collected c;
    c.filter.feed("abc");
    CHECK(c.text == "ab");
    c.filter.feed("d\ncommand terminated with");
    CHECK(c.text == "abcd\n");
    c.filter.feed(" exit code 12 apples\n");
    CHECK(c.text == "abcd\ncommand terminated with exit code 12 apples\n");
    CHECK(c.filter.finish(12).command_exit_code == std::nullopt);
}

TEST_CASE("exec filter: kubectl's own error becomes the error, not output") {
    Collected c;
    c.filter.feed("Error from server (NotFound): pods \"x\" not found\n");
    const auto ending = c.filter.finish(1);
    CHECK_FALSE(ending.command_exit_code);
    CHECK(ending.kubectl_error == "Error from server (NotFound): pods \"x\" not found");
    CHECK(c.text.empty());
}

TEST_CASE("exec filter: an error line from a failing command is output: kubectl's line follows") {
    Collected c;
    c.filter.feed("error: from the command\n");
    c.filter.feed("command terminated with exit code 1\n");
    const auto ending = c.filter.finish(1);
    CHECK(ending.command_exit_code == 1);
    CHECK(ending.kubectl_error.empty());
    CHECK(c.text == "error: from the command\n");
}

TEST_CASE("exec filter: an error-looking line from a successful command is just output") {
    Collected c;
    c.filter.feed("error: not really\n");
    const auto ending = c.filter.finish(0);
    CHECK(ending.command_exit_code == 0);
    CHECK(ending.kubectl_error.empty());
    CHECK(c.text == "error: not really\n");
}

TEST_CASE("exec filter: a held line is released when more output follows") {
    Collected c;
    c.filter.feed("error: from the command\nstill running\n");
    CHECK(c.text == "error: from the command\nstill running\n");
    c.filter.feed("error: again\n");
    CHECK(c.text == "error: from the command\nstill running\n");
    c.filter.feed("x");
    CHECK(c.text == "error: from the command\nstill running\nerror: again\nx");
    c.filter.feed("\ncommand terminated with exit");
    c.filter.feed(" code 42\n");
    CHECK(c.filter.finish(42).command_exit_code == 42);
    CHECK(c.text == "error: from the command\nstill running\nerror: again\nx\n");
}

TEST_CASE("exec filter: a line longer than any of kubectl's is not held") {
    Collected c;
    const std::string line = "error: " + std::string(ExecStderrFilter::kMaxHeld, 'x');
    c.filter.feed(line);
    CHECK(c.text == line);
    c.filter.feed("\n");
    CHECK(c.filter.finish(1).kubectl_error.empty());
    CHECK(c.text == line + "\n");
}
