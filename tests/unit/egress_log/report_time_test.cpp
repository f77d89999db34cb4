// The timeline's clock: the log's times read exactly, and round bucket widths.
#include "egress_log/report_time.hpp"

#include <catch2/catch.hpp>
#include <cstdint>
#include <optional>
#include <string>

namespace l = osf::egress_log;

TEST_CASE("log times are read as milliseconds since 1970, anything else is no time") {
    struct Row {
        std::string text;
        std::optional<std::int64_t> ms;
    };
    const Row rows[] = {
        {"1970-01-01T00:00:00.000Z", 0},
        {"1970-01-01T00:00:01.234Z", 1234},
        {"2026-11-29T18:46:12.123Z", 1795977972123},
        {"2026-11-29T18:46:12Z", 1795977972000},
        {"2000-02-29T00:00:00.000Z", 951782400000}, // a leap year
        {"1969-12-31T23:59:59.999Z", -1},
        {"2001-02-29T00:00:00.000Z", std::nullopt}, // not a leap year
        {"2026-13-01T00:00:00.000Z", std::nullopt},
        {"2026-04-31T00:00:00.000Z", std::nullopt},
        {"2026-11-29T24:00:00.000Z", std::nullopt},
        {"2026-11-29T18:60:00.000Z", std::nullopt},
        {"2026-11-29 18:46:12.123Z", std::nullopt},
        {"2026-11-29T18:46:12.123+01:00", std::nullopt},
        {"2026-11-29T18:46:12.12Z", std::nullopt},
        {"2026-11-29T18:46:1a.123Z", std::nullopt},
        {"", std::nullopt},
        {"<script>", std::nullopt},
    };
    for (const auto& row : rows) {
        INFO(row.text);
        CHECK(l::parse_log_time(row.text) == row.ms);
    }
}

TEST_CASE("buckets are the narrowest round width that fits, starting on a round time") {
    constexpr std::int64_t s = 1000, min = 60 * s, h = 60 * min, day = 24 * h;
    struct Row {
        std::int64_t first, last;
        std::size_t max;
        std::int64_t start, width;
        std::size_t count;
    };
    const Row rows[] = {
        {5500, 5500, 120, 5000, s, 1},      // one instant: one bucket
        {0, 119 * s + 999, 120, 0, s, 120}, // exactly 120 seconds
        {0, 120 * s, 120, 0, 2 * s, 61},    // one more: 2 s
        {1500, 3 * s, 2, 0, 2 * s, 2},      // alignment counts
        {0, 8 * h, 120, 0, 5 * min, 97},    // a night of work
        {10 * min + 1, 69 * min, 6, 10 * min, 10 * min, 6},
        {0, 30 * day, 120, 0, 12 * h, 61},
        {0, 365 * day, 120, 0, 7 * day, 53},
        {0, 3650 * day, 100, 0, 6 * 7 * day, 87}, // whole weeks beyond a week
        {-1500, 500, 120, -2000, s, 3},           // before 1970
        {0, 10 * s, 0, 0, 15 * s, 1},             // no room: still one bucket
    };
    for (const auto& row : rows) {
        INFO(row.first << ".." << row.last << " in " << row.max);
        const auto b = l::choose_buckets(row.first, row.last, row.max);
        CHECK(b.start_ms == row.start);
        CHECK(b.width_ms == row.width);
        CHECK(b.count == row.count);
        CHECK(b.index(row.first) == 0);
        CHECK(b.index(row.last) == b.count - 1);
    }
    // Years of span in a crafted file: never more buckets than asked for.
    const auto far = l::choose_buckets(0, 253402300799000, 120); // 9999-12-31T23:59:59Z
    CHECK(far.count <= 120);
    CHECK(far.index(253402300799000) == far.count - 1);
}

TEST_CASE("times and widths read as a person writes them") {
    CHECK(l::format_date_time(1795977972123) == "2026-11-29 18:46:12.123");
    CHECK(l::format_date_time(1795977972000) == "2026-11-29 18:46:12");
    CHECK(l::format_date_time(-1) == "1969-12-31 23:59:59.999");
    CHECK(l::format_axis_time(1795977972000, 10000) == "18:46:12");
    CHECK(l::format_axis_time(1795977972000, 86400000) == "2026-11-29");
    CHECK(l::describe_width(1000) == "1 s");
    CHECK(l::describe_width(15000) == "15 s");
    CHECK(l::describe_width(300000) == "5 min");
    CHECK(l::describe_width(3 * 3600000) == "3 h");
    CHECK(l::describe_width(86400000) == "1 day");
    CHECK(l::describe_width(2 * 86400000) == "2 days");
    CHECK(l::describe_width(7 * 86400000) == "1 week");
    CHECK(l::describe_width(14LL * 86400000) == "2 weeks");
}
