#include "egress_log/report_time.hpp"

#include <array>
#include <cstdio>

namespace osf::egress_log {

namespace {

constexpr std::int64_t second = 1000, minute = 60 * second, hour = 60 * minute, day = 24 * hour,
                       week = 7 * day;

// The widths a person reads at a glance, narrowest first.
constexpr std::array<std::int64_t, 20> round_widths = {
    second,     2 * second, 5 * second,  10 * second, 15 * second, 30 * second, minute,
    2 * minute, 5 * minute, 10 * minute, 15 * minute, 30 * minute, hour,        2 * hour,
    3 * hour,   6 * hour,   12 * hour,   day,         2 * day,     week};

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
    const std::int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

// Howard Hinnant's days_from_civil / civil_from_days (proleptic Gregorian).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
    y -= m <= 2;
    const std::int64_t era = floor_div(y, 400);
    const auto yoe = static_cast<unsigned>(y - era * 400);
    const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

struct Civil {
    std::int64_t year;
    unsigned month, day;
};

Civil civil_from_days(std::int64_t z) {
    z += 719468;
    const std::int64_t era = floor_div(z, 146097);
    const auto doe = static_cast<unsigned>(z - era * 146097);
    const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const unsigned mp = (5 * doy + 2) / 153;
    const unsigned d = doy - (153 * mp + 2) / 5 + 1;
    const unsigned m = mp < 10 ? mp + 3 : mp - 9;
    return {static_cast<std::int64_t>(yoe) + era * 400 + (m <= 2), m, d};
}

bool leap(std::int64_t y) {
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

unsigned days_in_month(std::int64_t y, unsigned m) {
    constexpr std::array<unsigned, 12> days = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return m == 2 && leap(y) ? 29 : days[m - 1];
}

// `count` decimal digits at text[at], or -1.
int digits(std::string_view text, std::size_t at, std::size_t count) {
    int value = 0;
    for (std::size_t i = at; i < at + count; ++i) {
        if (i >= text.size() || text[i] < '0' || text[i] > '9') return -1;
        value = value * 10 + (text[i] - '0');
    }
    return value;
}

} // namespace

std::optional<std::int64_t> parse_log_time(std::string_view t) {
    // YYYY-MM-DDTHH:MM:SS[.mmm]Z
    if (t.size() != 20 && t.size() != 24) return std::nullopt;
    if (t[4] != '-' || t[7] != '-' || t[10] != 'T' || t[13] != ':' || t[16] != ':' ||
        t.back() != 'Z')
        return std::nullopt;
    const int year = digits(t, 0, 4), month = digits(t, 5, 2), mday = digits(t, 8, 2);
    const int h = digits(t, 11, 2), m = digits(t, 14, 2), s = digits(t, 17, 2);
    int ms = 0;
    if (t.size() == 24) {
        if (t[19] != '.') return std::nullopt;
        ms = digits(t, 20, 3);
    }
    if (year < 0 || month < 1 || month > 12 || mday < 1 || h < 0 || h > 23 || m < 0 || m > 59 ||
        s < 0 || s > 59 || ms < 0)
        return std::nullopt;
    if (static_cast<unsigned>(mday) > days_in_month(year, static_cast<unsigned>(month)))
        return std::nullopt;
    const std::int64_t days =
        days_from_civil(year, static_cast<unsigned>(month), static_cast<unsigned>(mday));
    return days * day + h * hour + m * minute + s * second + ms;
}

TimeBuckets choose_buckets(std::int64_t first_ms, std::int64_t last_ms, std::size_t max_buckets) {
    if (max_buckets == 0) max_buckets = 1;
    if (last_ms < first_ms) last_ms = first_ms;
    const auto fits = [&](std::int64_t width) -> std::optional<TimeBuckets> {
        const std::int64_t start = floor_div(first_ms, width) * width;
        const auto count = static_cast<std::uint64_t>((last_ms - start) / width) + 1;
        if (count > max_buckets) return std::nullopt;
        return TimeBuckets{start, width, static_cast<std::size_t>(count)};
    };
    for (const auto width : round_widths)
        if (const auto buckets = fits(width)) return *buckets;
    // Whole weeks beyond: the span's weeks spread over the buckets, plus one
    // for the alignment of the start.
    const std::int64_t weeks = (last_ms - first_ms) / week + 1;
    std::int64_t width = week * (weeks / static_cast<std::int64_t>(max_buckets) + 1);
    while (!fits(width))
        width += week;
    return *fits(width);
}

std::string format_date_time(std::int64_t ms) {
    const std::int64_t days = floor_div(ms, day);
    const std::int64_t in_day = ms - days * day;
    const Civil c = civil_from_days(days);
    char text[48];
    const int h = static_cast<int>(in_day / hour), m = static_cast<int>(in_day % hour / minute),
              s = static_cast<int>(in_day % minute / second),
              milli = static_cast<int>(in_day % second);
    if (milli)
        std::snprintf(text, sizeof text, "%04lld-%02u-%02u %02d:%02d:%02d.%03d",
                      static_cast<long long>(c.year), c.month, c.day, h, m, s, milli);
    else
        std::snprintf(text, sizeof text, "%04lld-%02u-%02u %02d:%02d:%02d",
                      static_cast<long long>(c.year), c.month, c.day, h, m, s);
    return text;
}

std::string format_axis_time(std::int64_t ms, std::int64_t width_ms) {
    const std::string full = format_date_time(ms);
    return width_ms >= day ? full.substr(0, 10) : full.substr(11, 8);
}

std::string describe_width(std::int64_t w) {
    const auto count = [](std::int64_t n, const char* one, const char* many) {
        return std::to_string(n) + " " + (n == 1 ? one : many);
    };
    if (w % week == 0) return count(w / week, "week", "weeks");
    if (w % day == 0) return count(w / day, "day", "days");
    if (w % hour == 0) return std::to_string(w / hour) + " h";
    if (w % minute == 0) return std::to_string(w / minute) + " min";
    if (w % second == 0) return std::to_string(w / second) + " s";
    return std::to_string(w) + " ms";
}

} // namespace osf::egress_log
