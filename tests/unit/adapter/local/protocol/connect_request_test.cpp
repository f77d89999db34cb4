#include "local/protocol/connect_request.hpp"

#include <catch2/catch.hpp>

using namespace osf::local;

TEST_CASE("connect: the targets a CONNECT can name") {
    struct Row {
        const char* host;
        const char* port;
        bool fine;
    };
    const Row rows[] = {
        {"git.example.com", "22", true},
        {"10.0.0.5", "5432", true},
        {"::1", "6379", true},
        {"git.example.com", "65535", true},
        {"git.example.com", "1", true},
        {"", "22", false},
        {"git example.com", "22", false},
        {"git.example.com\r\nX-Injected: 1", "22", false},
        {"user@git.example.com", "22", false},
        {"git.example.com/path", "22", false},
        {"git.example.com", "0", false},
        {"git.example.com", "65536", false},
        {"git.example.com", "", false},
        {"git.example.com", "+22", false},
        {"git.example.com", "22x", false},
        {"git.example.com", "ssh", false},
    };
    for (const auto& row : rows) {
        INFO(row.host << " " << row.port);
        CHECK(!connect_target_problem(row.host, row.port).has_value() == row.fine);
    }
    CHECK(*connect_target_problem("", "22") == "the host is empty");
    CHECK(*connect_target_problem("h", "0") == "the port is not a number from 1 to 65535");
}

TEST_CASE("connect: the request names the target twice, an IPv6 literal in brackets") {
    CHECK(connect_request("git.example.com", "22") ==
          "CONNECT git.example.com:22 HTTP/1.1\r\nHost: git.example.com:22\r\n\r\n");
    CHECK(connect_request("::1", "5432") ==
          "CONNECT [::1]:5432 HTTP/1.1\r\nHost: [::1]:5432\r\n\r\n");
    CHECK(connect_request("[::1]", "5432") ==
          "CONNECT [::1]:5432 HTTP/1.1\r\nHost: [::1]:5432\r\n\r\n");
}

TEST_CASE("connect: the proxy's answer is read once its blank line is in") {
    CHECK(!parse_connect_answer("HTTP/1.1 200 Connection established\r\n").has_value());
    CHECK(!parse_connect_answer("").has_value());
    const auto ok = parse_connect_answer("HTTP/1.1 200 Connection established\r\n\r\n");
    REQUIRE(ok);
    CHECK(ok->status == 200);
    CHECK(ok->reason == "200 Connection established");
    const auto refused =
        parse_connect_answer("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n");
    REQUIRE(refused);
    CHECK(refused->status == 403);
    CHECK(refused->reason == "403 Forbidden");
    const auto bare = parse_connect_answer("HTTP/1.0 200\r\n\r\n");
    REQUIRE(bare);
    CHECK(bare->status == 200);
    for (const char* garbage : {"SSH-2.0-OpenSSH_9.2\r\n\r\n", "HTTP/1.1 2000 x\r\n\r\n",
                                "HTTP/1.1 abc x\r\n\r\n", "HTTP/2 200\r\n\r\n"}) {
        INFO(garbage);
        const auto answer = parse_connect_answer(garbage);
        REQUIRE(answer);
        CHECK(answer->status == 0);
    }
}
