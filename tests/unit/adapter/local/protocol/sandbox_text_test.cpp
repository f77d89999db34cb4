// Text from the sandbox on the user's terminal: no control byte passes as itself.
#include "local/protocol/sandbox_text.hpp"

#include <catch2/catch.hpp>
#include <string>

using namespace osf::local;

TEST_CASE("names from the sandbox are printed without control bytes") {
    CHECK(printable_name("d/plain name.txt") == "d/plain name.txt");
    CHECK(printable_name("d/\x1b[2Jx") == "d/\\x1b[2Jx");
    CHECK(printable_name("a\nb\rc\x7f") == "a\\x0ab\\x0dc\\x7f");
    CHECK(printable_name("back\\slash") == "back\\x5cslash");
    CHECK(printable_name("caf\xc3\xa9") == "caf\xc3\xa9"); // UTF-8 stays
}

TEST_CASE("the sandbox's stderr passed on by the CLI keeps lines and loses escapes") {
    struct Row {
        std::string in;
        std::string out;
    };
    const Row rows[] = {
        {"tar: d/x: Cannot open\n", "tar: d/x: Cannot open\n"},
        {"a\tb\n", "a\tb\n"},
        {"\x1b]0;owned\x07\n", "\\x1b]0;owned\\x07\n"},
        {"\x1b[2J\r", "\\x1b[2J\\x0d"},
        {"back\\slash", "back\\x5cslash"},
        {std::string("nul\0x", 5), "nul\\x00x"},
        {"\x7f", "\\x7f"},
    };
    for (const auto& row : rows)
        CHECK(printable_text(row.in) == row.out);
}
