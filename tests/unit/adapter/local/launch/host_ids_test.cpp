// The host id of a root-run sandbox: the lowest of the range that no sandbox
// holds and no account, group or subordinate range claims.
#include "local/launch/host_ids.hpp"

#include <catch2/catch.hpp>

using namespace osf::local;

TEST_CASE("host ids: the lowest free one, skipping held and claimed ids") {
    const auto nobody_claims = [](unsigned) { return false; };
    CHECK(choose_host_id({}, nobody_claims) == kHostIdFirst);
    CHECK(choose_host_id({kHostIdFirst, kHostIdFirst + 1}, nobody_claims) == kHostIdFirst + 2);
    CHECK(choose_host_id({kHostIdFirst + 1}, [](unsigned id) { return id == kHostIdFirst; }) ==
          kHostIdFirst + 2);
    CHECK_FALSE(choose_host_id({}, [](unsigned) { return true; }));
}

TEST_CASE("host ids: /etc/subuid ranges") {
    const auto ranges = subordinate_ranges("alice:100000:65536\nbob:165536:65536\nbroken\n"
                                           "carol:x:1\n#:1:2\n");
    REQUIRE(ranges.size() == 3);
    CHECK(ranges[0] == std::pair<unsigned long long, unsigned long long>{100000, 165536});
    CHECK(ranges[1] == std::pair<unsigned long long, unsigned long long>{165536, 231072});
    CHECK(ranges[2] == std::pair<unsigned long long, unsigned long long>{1, 3});
}
