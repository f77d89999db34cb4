// Times of the egress log as the report's timeline uses them: the log's
// RFC 3339 text to milliseconds, a bucket width a person reads at a glance,
// and labels for the axis. Pure; UTC throughout, as the log is.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace osf::egress_log {

// "2026-11-29T18:46:12.123Z" (the schema's form, milliseconds optional) ->
// milliseconds since 1970-01-01 UTC; nullopt for anything else or an
// impossible date.
std::optional<std::int64_t> parse_log_time(std::string_view text);

// The timeline's buckets: `count` of `width_ms` each from `start_ms` (a
// multiple of the width, so bucket edges fall on round times).
struct TimeBuckets {
    std::int64_t start_ms = 0;
    std::int64_t width_ms = 1000;
    std::size_t count = 1;
    std::size_t index(std::int64_t ms) const {
        return static_cast<std::size_t>((ms - start_ms) / width_ms);
    }
};

// The narrowest round width (1 s, 2 s, 5 s, ... 1 h, ... 1 day, 7 days, then
// whole weeks) that covers [first_ms, last_ms] in at most `max_buckets`
// buckets (at least 1).
TimeBuckets choose_buckets(std::int64_t first_ms, std::int64_t last_ms, std::size_t max_buckets);

// "2026-11-29 18:46:12" (with ".123" when the milliseconds are not 0).
std::string format_date_time(std::int64_t ms);
// "18:46:12" within a day; the date alone for widths of a day or more.
std::string format_axis_time(std::int64_t ms, std::int64_t width_ms);
// "10 s", "5 min", "1 h", "2 days", "1 week".
std::string describe_width(std::int64_t width_ms);

} // namespace osf::egress_log
