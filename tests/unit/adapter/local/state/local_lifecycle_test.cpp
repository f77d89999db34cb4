#include "local/state/local_lifecycle.hpp"
#include "sandbox/lifetime.hpp"

#include <catch2/catch.hpp>
#include <string>
#include <utility>
#include <vector>

using namespace osf::local;
using namespace std::chrono_literals;

namespace {

SandboxMeta meta_with(long long expires, long long suspended_at) {
    SandboxMeta meta;
    meta.created = 1000;
    meta.expires = expires;
    meta.suspended_at = suspended_at;
    return meta;
}

std::chrono::system_clock::time_point at(long long seconds) {
    return std::chrono::system_clock::time_point(std::chrono::seconds(seconds));
}

} // namespace

TEST_CASE("list status: running, starting, suspended, stopped") {
    struct Row {
        bool running, ready;
        long long suspended_at;
        std::string status;
    };
    for (const auto& row : {Row{true, true, 0, "Ready"}, Row{true, false, 0, "Starting"},
                            Row{false, false, 0, "Stopped"}, Row{false, false, 1500, "Suspended"},
                            // resume is starting it again: the supervisor's word counts
                            Row{true, false, 1500, "Starting"}}) {
        CAPTURE(row.running, row.ready, row.suspended_at);
        CHECK(sandbox_status(meta_with(5000, row.suspended_at), {row.running, row.ready}) ==
              row.status);
    }
}

TEST_CASE("gc: a dead supervisor, or a suspended sandbox past its expiry; nothing else") {
    // A running supervisor ends its sandbox itself, even past the expiry.
    CHECK_FALSE(gc_reason(meta_with(2000, 0), {true, true}, 9000));
    CHECK(gc_reason(meta_with(5000, 0), {false, false}, 3000) ==
          "supervisor gone (killed, or the machine restarted)");
    CHECK_FALSE(gc_reason(meta_with(5000, 1500), {false, false}, 3000));
    CHECK(gc_reason(meta_with(5000, 1500), {false, false}, 5000) ==
          "expired at 1970-01-01T01:23:20Z while suspended");
    // Without an expiry (older state) a suspended sandbox stays.
    CHECK_FALSE(gc_reason(meta_with(0, 1500), {false, false}, 999999));
}

TEST_CASE("the supervisor waits until the expiry, then not at all") {
    CHECK(time_to_expiry(meta_with(5000, 0), at(4000)) == 1000s);
    CHECK(time_to_expiry(meta_with(5000, 0), at(5000)) == 0ms);
    CHECK(time_to_expiry(meta_with(5000, 0), at(7000)) == 0ms);
    CHECK_FALSE(time_to_expiry(meta_with(0, 0), at(7000)));
}

TEST_CASE("extend from stored times: later by the duration, from now once past, within the max") {
    using osf::sandbox::extended_expiry;
    // Not expired: from the current expiry.
    CHECK(extended_expiry(at(5000), at(1000), 600s, 7200s, at(4000)) == at(5600));
    // Expired: from now.
    CHECK(extended_expiry(at(5000), at(1000), 600s, 7200s, at(6000)) == at(6600));
    // Past created + max: refused, naming the latest time.
    CHECK_THROWS_WITH(extended_expiry(at(5000), at(1000), 7200s, 7200s, at(4000)),
                      Catch::Contains("until 1970-01-01T02:16:40Z"));
}
