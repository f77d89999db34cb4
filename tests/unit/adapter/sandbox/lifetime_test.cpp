#include "request_fixture.hpp"
#include "sandbox/lifetime.hpp"
#include "sandbox/settings.hpp"
#include "settings_fixture.hpp"

#include <catch2/catch.hpp>
#include <map>

using namespace osf::sandbox;
using namespace std::chrono_literals;
using osf::testing::settings_with;

namespace {

// 2026-11-29T19:00:00Z
const WallTime kNow{std::chrono::seconds(1795978800)};

} // namespace

TEST_CASE("sandbox_lifetime: the spec's or the default, never beyond the maximum") {
    const Settings settings = settings_with({});
    const Lifetime fallback = sandbox_lifetime(std::nullopt, settings, kNow + 500ms);
    CHECK(fallback.created == kNow);
    CHECK(fallback.expires == kNow + 8h);
    // The pods end an extend window (1 hour by default) after the expiry ...
    CHECK(fallback.pods_end == kNow + 9h);
    CHECK(sandbox_lifetime(90min, settings, kNow).expires == kNow + 90min);
    CHECK(sandbox_lifetime(168h, settings, kNow).expires == kNow + 168h);
    // ... never past the maximum lifetime ...
    CHECK(sandbox_lifetime(168h, settings, kNow).pods_end == kNow + 168h);
    CHECK(sandbox_lifetime(167h + 30min, settings, kNow).pods_end == kNow + 168h);
    // ... and OSF_SANDBOX_EXTEND_WINDOW sets the window, 0 for none.
    CHECK(
        sandbox_lifetime(1h, settings_with({{"OSF_SANDBOX_EXTEND_WINDOW", "0"}}), kNow).pods_end ==
        kNow + 1h);
    CHECK(
        sandbox_lifetime(1h, settings_with({{"OSF_SANDBOX_EXTEND_WINDOW", "1d"}}), kNow).pods_end ==
        kNow + 25h);
    CHECK_THROWS_WITH(settings_with({{"OSF_SANDBOX_EXTEND_WINDOW", "-1h"}}),
                      Catch::StartsWith("OSF_SANDBOX_EXTEND_WINDOW '-1h' "));
    CHECK_THROWS_WITH(sandbox_lifetime(169h, settings, kNow),
                      "lifetime 7d1h is longer than the maximum 7d (OSF_SANDBOX_MAX_LIFETIME)");
}
