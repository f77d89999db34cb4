// How many client connections a descriptor limit allows.
#include "config/descriptor_budget.hpp"

#include <catch2/catch.hpp>
#include <cstdint>

using osf::config::connections_within;

TEST_CASE("connections within a descriptor limit: two each, a reserve kept aside") {
    struct Row {
        std::uint64_t descriptors;
        std::size_t connections;
    };
    const Row rows[] = {
        {0, 1},
        {100, 1},
        {256, 1},
        {258, 1},
        {400, 72},
        {1024, 384},
        {65536, 32640},
        {1048576, 524160},
        {UINT64_MAX, static_cast<std::size_t>((UINT64_MAX - 256) / 2)},
    };
    for (const auto& row : rows) {
        INFO(row.descriptors);
        CHECK(connections_within(row.descriptors) == row.connections);
    }
    // The default --max-connections fits the usual limits of a container.
    CHECK(connections_within(1048576) > 20000);
}
