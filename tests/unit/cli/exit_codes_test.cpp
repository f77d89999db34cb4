// exit_code_of: a command's own exit code passes through; an exception it lets
// out is a runtime failure (1) with one line, never a usage error (2).
#include "cli/exit_codes.hpp"

#include <catch2/catch.hpp>
#include <sstream>
#include <stdexcept>

using osf::cli::exit_code_of;

TEST_CASE("a command's exit code passes through, an escaped exception exits 1", "[cli]") {
    std::ostringstream err;
    CHECK(exit_code_of([] { return osf::cli::exit_ok; }, err) == 0);
    CHECK(exit_code_of([] { return osf::cli::exit_usage; }, err) == 2);
    CHECK(err.str().empty());

    CHECK(exit_code_of([]() -> int { throw std::runtime_error("cannot write listen.json"); },
                       err) == osf::cli::exit_failure);
    CHECK(err.str() == "egress-proxy: cannot write listen.json\n");

    err.str("");
    CHECK(exit_code_of([]() -> int { throw 42; }, err) == 1);
    CHECK(err.str() == "egress-proxy: unexpected error\n");
}
