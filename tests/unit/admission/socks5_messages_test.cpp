// The SOCKS5 messages (RFC 1928) as tables: greetings and requests, whole,
// cut short at every length, and malformed; the replies' bytes.
#include "admission/socks5_messages.hpp"

#include <catch2/catch.hpp>
#include <vector>

namespace socks5 = osf::admission::socks5;
using Bytes = std::vector<std::uint8_t>;

TEST_CASE("socks5 greetings: the table") {
    struct Row {
        Bytes bytes;
        socks5::State state;
        std::size_t size;
        bool no_auth;
    };
    const Row rows[] = {
        {{5, 1, 0}, socks5::State::complete, 3, true},
        {{5, 2, 2, 0}, socks5::State::complete, 4, true},
        {{5, 1, 2}, socks5::State::complete, 3, false}, // username/password only
        {{5, 2, 0, 2, 0x16},
         socks5::State::complete,
         4,
         true}, // bytes after it are the next message's
        {{5}, socks5::State::incomplete, 2, false},
        {{5, 3, 0}, socks5::State::incomplete, 5, false},
        {{5, 0}, socks5::State::malformed, 2, false},
        {{4, 1, 0}, socks5::State::malformed, 2, false}, // SOCKS4
        {{'G', 'E', 'T'}, socks5::State::malformed, 2, false},
    };
    for (const auto& row : rows) {
        const auto g = socks5::read_greeting(row.bytes);
        CHECK(g.state == row.state);
        CHECK(g.size == row.size);
        CHECK(g.offers_no_authentication == row.no_auth);
        CHECK((g.state == socks5::State::malformed) == !g.problem.empty());
    }
}

TEST_CASE("socks5 requests: the table") {
    struct Row {
        Bytes bytes;
        socks5::State state;
        std::size_t size;
        std::uint8_t command;
        const char* host;
        std::uint16_t port;
        socks5::Reply reply; // malformed only
    };
    const auto ok = socks5::Reply::general_failure; // not read when complete
    const Row rows[] = {
        {{5, 1, 0, 1, 127, 0, 0, 1, 0x1f, 0x90},
         socks5::State::complete,
         10,
         1,
         "127.0.0.1",
         8080,
         ok},
        {{5, 1, 0, 3, 10, 'g', 'i', 't', 'h', 'u', 'b', '.', 'c', 'o', 'm', 0, 22},
         socks5::State::complete,
         17,
         1,
         "github.com",
         22,
         ok},
        {{5, 1, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0x15, 0x38},
         socks5::State::complete,
         22,
         1,
         "::1",
         5432,
         ok},
        {{5, 2, 0, 1, 10, 0, 0, 1, 0, 80}, socks5::State::complete, 10, 2, "10.0.0.1", 80, ok},
        {{5, 3, 0, 1, 0, 0, 0, 0, 0, 0}, socks5::State::complete, 10, 3, "0.0.0.0", 0, ok},
        {{5, 1, 0}, socks5::State::incomplete, 4, 0, "", 0, ok},
        {{5, 1, 0, 3}, socks5::State::incomplete, 5, 1, "", 0, ok},
        {{5, 1, 0, 3, 3, 'a', 'b'}, socks5::State::incomplete, 10, 1, "", 0, ok},
        {{5, 1, 0, 1, 127, 0, 0, 1, 0}, socks5::State::incomplete, 10, 1, "", 0, ok},
        {{5, 1, 0, 3, 0, 0, 22},
         socks5::State::malformed,
         5,
         1,
         "",
         0,
         socks5::Reply::general_failure},
        {{5, 1, 0, 9, 1, 2},
         socks5::State::malformed,
         4,
         1,
         "",
         0,
         socks5::Reply::address_type_not_supported},
        {{4, 1, 0, 1, 1, 2, 3, 4, 0, 80},
         socks5::State::malformed,
         4,
         0,
         "",
         0,
         socks5::Reply::general_failure},
    };
    for (const auto& row : rows) {
        const auto r = socks5::read_request(row.bytes);
        INFO("request of " << row.bytes.size() << " bytes, host " << row.host);
        CHECK(r.state == row.state);
        CHECK(r.size == row.size);
        CHECK(r.command == row.command);
        CHECK(r.host == row.host);
        CHECK(r.port == row.port);
        if (row.state == socks5::State::malformed) {
            CHECK(r.reply == row.reply);
            CHECK_FALSE(r.problem.empty());
        }
    }
}

TEST_CASE("socks5: a request cut at every length is incomplete, never wrong") {
    const Bytes whole = {5, 1, 0, 3, 4, 'h', 'o', 's', 't', 1, 187};
    for (std::size_t n = 0; n < whole.size(); ++n) {
        const auto r = socks5::read_request(std::span(whole.data(), n));
        CHECK(r.state == socks5::State::incomplete);
        CHECK(r.size > n);
    }
    const auto r = socks5::read_request(whole);
    CHECK(r.state == socks5::State::complete);
    CHECK(r.host == "host");
    CHECK(r.port == 443);
}

TEST_CASE("socks5 replies: method choice and reply bytes") {
    CHECK(socks5::method_choice(true) == std::array<std::uint8_t, 2>{5, 0});
    CHECK(socks5::method_choice(false) == std::array<std::uint8_t, 2>{5, 0xFF});
    CHECK(socks5::reply(socks5::Reply::succeeded) ==
          std::array<std::uint8_t, 10>{5, 0, 0, 1, 0, 0, 0, 0, 0, 0});
    CHECK(socks5::reply(socks5::Reply::command_not_supported)[1] == 7);
    CHECK(socks5::reply(socks5::Reply::not_allowed)[1] == 2);
}
