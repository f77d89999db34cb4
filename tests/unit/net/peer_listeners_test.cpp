#include "net/peer_listeners.hpp"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <unistd.h>

using osf::net::parse_listener_lines;
using osf::net::read_peer_listeners;

TEST_CASE("peer listener files hold ADDR:PORT lines") {
    const auto endpoints =
        parse_listener_lines("127.0.0.1:8080\n[::1]:9090\n\nnot an address\n127.0.0.1:0\n"
                             "127.0.0.1:70000\n10.0.0.1:x\n127.0.0.2:443");
    REQUIRE(endpoints.size() == 3);
    CHECK(endpoints[0].address().to_string() == "127.0.0.1");
    CHECK(endpoints[0].port() == 8080);
    CHECK(endpoints[1].address().to_string() == "::1");
    CHECK(endpoints[1].port() == 9090);
    CHECK(endpoints[2].port() == 443);
}

TEST_CASE("a directory of peers is read file by file, an unreadable one lists none") {
    const auto dir =
        std::filesystem::temp_directory_path() / ("osf-peers-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir / "a-directory");
    std::ofstream(dir / "one") << "127.0.0.1:1001\n127.0.0.1:1002\n";
    std::ofstream(dir / "two") << "127.0.0.1:2001\n";
    CHECK(read_peer_listeners(dir.string()).size() == 3);
    CHECK(read_peer_listeners((dir / "missing").string()).empty());
    std::filesystem::remove_all(dir);
}
