#include "sandbox/sandbox_id.hpp"

#include <catch2/catch.hpp>

using namespace osf::sandbox;

TEST_CASE("sandbox IDs are 12 hex digits, normalised to lower case") {
    CHECK(normalize_sandbox_id("0123456789ab") == "0123456789ab");
    CHECK(normalize_sandbox_id("0123456789AB") == "0123456789ab");
    CHECK_FALSE(normalize_sandbox_id("0123456789a"));
    CHECK_FALSE(normalize_sandbox_id("0123456789abc"));
    CHECK_FALSE(normalize_sandbox_id("0123456789ag"));
    CHECK_FALSE(normalize_sandbox_id(""));
    CHECK_FALSE(normalize_sandbox_id("../../etc/pa"));
    CHECK(sandbox_id_from_bytes({0x00, 0x0f, 0xa0, 0xff, 0x12, 0x34}) == "000fa0ff1234");
}
