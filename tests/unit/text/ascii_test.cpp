// text/ascii.hpp: the one trim/lower/hex the proxy's parsers share. ASCII
// only, whatever the locale: bytes >= 0x80 (UTF-8) are never changed.
#include "text/ascii.hpp"

#include <catch2/catch.hpp>
#include <clocale>

using namespace osf::text;

TEST_CASE("trim removes HTTP optional white space, or the bytes asked for", "[text]") {
    CHECK(trim("  text/html \t") == "text/html");
    CHECK(trim("a b") == "a b");
    CHECK(trim(" \t ").empty());
    CHECK(trim("").empty());
    CHECK(trim("\r\nx\r\n") == "\r\nx\r\n"); // CR and LF are not OWS
    CHECK(trim("\r\n x \n", " \t\r\n") == "x");
    CHECK(trim("\xc2\xa0x\xc2\xa0") == "\xc2\xa0x\xc2\xa0"); // U+00A0 is not ASCII space
    static_assert(trim(" a ") == "a");
}

TEST_CASE("lower changes A-Z only, in any locale", "[text]") {
    CHECK(lower("Content-TYPE: X") == "content-type: x");
    CHECK(lower("\xc3\x89T\xc3\x89") == "\xc3\x89t\xc3\x89"); // É stays as it is
    CHECK(lower('@') == '@');
    CHECK(lower('[') == '[');
    CHECK(lower('Z') == 'z');
    // A locale whose tolower maps bytes >= 0x80 must not change the answer.
    std::setlocale(LC_ALL, "C.UTF-8");
    CHECK(lower(std::string_view("\xc4\xb0I")) == "\xc4\xb0i");
    std::setlocale(LC_ALL, "C");
    CHECK(iequals("Basic", "bASIC"));
    CHECK_FALSE(iequals("Basic", "Basic "));
    CHECK_FALSE(iequals("\xc3\x89", "\xc3\xa9")); // no Unicode case folding
}

TEST_CASE("hex_value reads either case and refuses everything else", "[text]") {
    const std::string_view digits = "0123456789abcdef", upper = "ABCDEF";
    for (std::size_t i = 0; i < digits.size(); ++i)
        CHECK(hex_value(digits[i]) == static_cast<int>(i));
    for (std::size_t i = 0; i < upper.size(); ++i)
        CHECK(hex_value(upper[i]) == static_cast<int>(10 + i));
    static constexpr char others[] = "gG/:@`%x \0\xff";
    for (const char c : std::string_view(others, sizeof others - 1)) // the NUL inside included
        CHECK(hex_value(c) == -1);
}
