#include "osf/host_port.hpp"

#include <catch2/catch.hpp>

using osf::bracketed_host;
using osf::host_port;

TEST_CASE("host_port brackets IPv6 literals only") {
    CHECK(host_port("example.com", std::uint16_t{443}) == "example.com:443");
    CHECK(host_port("127.0.0.1", std::uint16_t{8080}) == "127.0.0.1:8080");
    CHECK(host_port("::1", std::uint16_t{8080}) == "[::1]:8080");
    CHECK(host_port("fe80::1%eth0", "9090") == "[fe80::1%eth0]:9090");
    CHECK(bracketed_host("::") == "[::]");
    CHECK(bracketed_host("bao.internal") == "bao.internal");
}
