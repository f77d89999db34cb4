// osf::parse_duration and format_duration: the one reader of "90m", "8h",
// "1h30m" for the spec's lifetime and sandbox-kubernetes' variables.
#include "osf/duration.hpp"
#include "osf/spec.hpp"

#include <catch2/catch.hpp>

using namespace std::chrono_literals;

TEST_CASE("durations people write are read", "[duration]") {
    const std::pair<const char*, std::chrono::seconds> cases[] = {
        {"90m", 90min},       {"8h", 8h},     {"1h30m", 90min}, {"45s", 45s},         {"2d", 48h},
        {"1d2h3m4s", 93784s}, {"0h5m", 5min}, {"007m", 7min},   {"999999s", 999999s}, {"1h0s", 1h},
    };
    for (const auto& [text, expected] : cases) {
        INFO(text);
        const auto parsed = osf::parse_duration(text);
        REQUIRE(std::holds_alternative<std::chrono::seconds>(parsed));
        CHECK(std::get<std::chrono::seconds>(parsed) == expected);
    }
}

TEST_CASE("what is not a duration says why", "[duration]") {
    const std::pair<const char*, const char*> cases[] = {
        {"", "is empty"},
        {"90", "has no unit after 90"},
        {"1h30", "has no unit after 30"},
        {"h", "is not a duration"},
        {"-5m", "is not a duration"},
        {"+5m", "is not a duration"},
        {" 5m", "is not a duration"},
        {"5m ", "is not a duration"},
        {"1.5h", "unknown unit '.'"},
        {"5w", "unknown unit 'w'"},
        {"5M", "unknown unit 'M'"},
        {"30m1h", "out of order or twice"},
        {"1h1h", "out of order or twice"},
        {"0s", "is zero"},
        {"0d0h", "is zero"},
        {"1234567s", "more than 6 digits"},
    };
    for (const auto& [text, problem] : cases) {
        INFO(text);
        const auto parsed = osf::parse_duration(text);
        REQUIRE(std::holds_alternative<std::string>(parsed));
        CHECK_THAT(std::get<std::string>(parsed), Catch::Contains(problem));
    }
}

TEST_CASE("format_duration writes what parse_duration reads back", "[duration]") {
    CHECK(osf::format_duration(90min) == "1h30m");
    CHECK(osf::format_duration(8h) == "8h");
    CHECK(osf::format_duration(48h) == "2d");
    CHECK(osf::format_duration(93784s) == "1d2h3m4s");
    CHECK(osf::format_duration(0s) == "0s");
    for (const long long seconds : {1LL, 59LL, 60LL, 3599LL, 86401LL, 999999LL}) {
        const auto text = osf::format_duration(std::chrono::seconds(seconds));
        INFO(text);
        CHECK(std::get<std::chrono::seconds>(osf::parse_duration(text)).count() == seconds);
    }
}

TEST_CASE("the spec's lifetime is a duration, with its JSON path", "[duration][spec]") {
    const auto ok = osf::parse_spec(R"({"template": "node:24-alpine", "lifetime": "8h"})");
    REQUIRE(ok.ok());
    CHECK(ok.spec->lifetime == 8h);
    CHECK_FALSE(osf::parse_spec(R"({"template": "node:24-alpine"})").spec->lifetime);
    const auto bad = osf::parse_spec(R"({"template": "node:24-alpine", "lifetime": "8x"})");
    REQUIRE(bad.errors.size() == 1);
    CHECK(bad.errors[0].path == "$.lifetime");
    CHECK_THAT(bad.errors[0].message, Catch::StartsWith("\"8x\" has an unknown unit 'x'"));
    const auto number = osf::parse_spec(R"({"template": "node:24-alpine", "lifetime": 60})");
    REQUIRE(number.errors.size() == 1);
    CHECK_THAT(number.errors[0].message, Catch::Contains("write its unit"));
}
