#include "hosts/host.hpp"

#include <algorithm>
#include <arpa/inet.h>
#include <catch2/catch.hpp>

using osf::hosts::canonical_host;
using osf::hosts::host_as_address;
using osf::hosts::split_host_port;

namespace {
struct CanonicalCase {
    std::string raw;
    std::optional<std::string> expected;
};
} // namespace

TEST_CASE("canonical_host normalises names and literals", "[host]") {
    const std::vector<CanonicalCase> cases = {
        // names
        {"example.com", "example.com"},
        {"Example.COM", "example.com"},
        {"example.com.", "example.com"},
        {"API.Example.Com.", "api.example.com"},
        {"localhost", "localhost"},
        {"a-b.example", "a-b.example"},
        {"xn--bcher-kva.example", "xn--bcher-kva.example"},
        {"XN--BCHER-KVA.example", "xn--bcher-kva.example"},
        {"1.2.3.example", "1.2.3.example"},
        {std::string(63, 'a') + ".com", std::string(63, 'a') + ".com"},
        // IPv4 in every inet_aton form
        {"127.0.0.1", "127.0.0.1"},
        {"127.0.0.1.", "127.0.0.1"},
        {"2130706433", "127.0.0.1"},
        {"0177.0.0.1", "127.0.0.1"},
        {"0x7f.0.0.1", "127.0.0.1"},
        {"0X7F.0.0.1", "127.0.0.1"},
        {"0x7f000001", "127.0.0.1"},
        {"017700000001", "127.0.0.1"},
        {"127.1", "127.0.0.1"},
        {"127.0.1", "127.0.0.1"},
        {"0x7f.1", "127.0.0.1"},
        {"169.254.43518", "169.254.169.254"},
        {"0xa9.0xfe.0xa9.0xfe", "169.254.169.254"},
        {"0", "0.0.0.0"},
        {"4294967295", "255.255.255.255"},
        // IPv6
        {"[::1]", "::1"},
        {"::1", "::1"},
        {"[0:0:0:0:0:0:0:1]", "::1"},
        {"[FD00:EC2:0::254]", "fd00:ec2::254"},
        {"[::ffff:127.0.0.1]", "::ffff:127.0.0.1"},
        {"[2001:DB8::0001]", "2001:db8::1"},
        // refused
        {"", std::nullopt},
        {".", std::nullopt},
        {"example.com..", std::nullopt},
        {"a..example.com", std::nullopt},
        {".example.com", std::nullopt},
        {std::string(64, 'a') + ".com", std::nullopt},
        {std::string(254, 'a'), std::nullopt},
        {"under_score.example.com", std::nullopt},
        {"user@example.com", std::nullopt},
        {"user:pw@example.com", std::nullopt},
        {"exa mple.com", std::nullopt},
        {" example.com", std::nullopt},
        {"example.com\t", std::nullopt},
        {"b\xc3\xbc"
         "cher.example",
         std::nullopt},
        {"*.example.com", std::nullopt},
        {"example.com/path", std::nullopt},
        {"[fe80::1%eth0]", std::nullopt},
        {"fe80::1%25eth0", std::nullopt},
        {"[::1", std::nullopt},
        {"[]", std::nullopt},
        {"[127.0.0.1]", std::nullopt},
        {"[example.com]", std::nullopt},
        {"1.2.3.4.5", std::nullopt},
        {"256.0.0.1", std::nullopt},
        {"1.2.3.256", std::nullopt},
        {"1.2.65536", std::nullopt},
        {"4294967296", std::nullopt},
        {"08.0.0.1", std::nullopt},
        {"0x1g.0.0.1", std::nullopt},
        {"example.123", std::nullopt},
        {"example.0x1f", std::nullopt},
    };
    for (const auto& c : cases) {
        INFO("raw = \"" << c.raw << "\"");
        CHECK(canonical_host(c.raw) == c.expected);
    }
}

TEST_CASE("canonical_host accepts 253-character names and no more", "[host]") {
    std::string label(63, 'a');
    std::string name = label + "." + label + "." + label + "." + std::string(61, 'b'); // 253
    REQUIRE(name.size() == 253);
    CHECK(canonical_host(name) == name);
    CHECK(canonical_host(name + ".") == name);
    CHECK(canonical_host(name + "c") == std::nullopt);
}

TEST_CASE("canonical_host agrees with the C library's inet_aton on numeric hosts", "[host]") {
    const std::vector<std::string> numeric = {
        "1",
        "1.2",
        "1.2.3",
        "1.2.3.4",
        "0x1.0x2.0x3.0x4",
        "01.02.03.04",
        "0x",
        "0x.1",
        "00",
        "09",
        "0xffffffff",
        "0xfffffffff",
        "1.0xffffff",
        "1.0x1000000",
        "1.2.0xffff",
        "1.2.0x10000",
        "255.255.255.255",
        "037777777777",
        "040000000000",
        "0.0.0.0",
        "1..2",
        "1.2.3.4.",
    };
    for (const auto& text : numeric) {
        INFO("text = " << text);
        in_addr libc{};
        std::string trimmed = text.ends_with('.') ? text.substr(0, text.size() - 1) : text;
        bool libc_ok = inet_aton(trimmed.c_str(), &libc) != 0;
        auto ours = canonical_host(text);
        REQUIRE(ours.has_value() == libc_ok);
        if (libc_ok) {
            char buffer[INET_ADDRSTRLEN];
            inet_ntop(AF_INET, &libc, buffer, sizeof buffer);
            CHECK(*ours == buffer);
        }
    }
}

TEST_CASE("host_as_address recognises canonical literals only", "[host]") {
    CHECK(host_as_address("127.0.0.1") == boost::asio::ip::make_address("127.0.0.1"));
    CHECK(host_as_address("::1") == boost::asio::ip::make_address("::1"));
    CHECK_FALSE(host_as_address("example.com"));
    CHECK_FALSE(host_as_address("fe80::1%1"));
}

TEST_CASE("split_host_port handles authorities and Host headers", "[host]") {
    struct Case {
        std::string authority;
        std::uint16_t default_port;
        std::optional<std::pair<std::string, std::uint16_t>> expected;
    };
    const std::vector<Case> cases = {
        {"example.com:443", 80, std::pair{"example.com", 443}},
        {"example.com", 80, std::pair{"example.com", 80}},
        {"Example.COM.:8443", 443, std::pair{"Example.COM.", 8443}},
        {"[::1]:8080", 80, std::pair{"[::1]", 8080}},
        {"[::1]", 443, std::pair{"[::1]", 443}},
        {"1.2.3.4:1", 80, std::pair{"1.2.3.4", 1}},
        {"h:65535", 80, std::pair{"h", 65535}},
        {"h:65536", 80, std::nullopt},
        {"h:0", 80, std::nullopt},
        {"h:", 80, std::nullopt},
        {"h:-1", 80, std::nullopt},
        {"h:+80", 80, std::nullopt},
        {"h:80a", 80, std::nullopt},
        {"h:000080", 80, std::nullopt},
        {":443", 80, std::nullopt},
        {"", 80, std::nullopt},
        {"[]:443", 80, std::nullopt},
        {"[::1]x", 80, std::nullopt},
        {"[::1:443", 80, std::nullopt},
        {"::1:443", 80, std::nullopt},
        {"::1", 80, std::nullopt},
    };
    for (const auto& c : cases) {
        INFO("authority = \"" << c.authority << "\"");
        auto result = split_host_port(c.authority, c.default_port);
        REQUIRE(result.has_value() == c.expected.has_value());
        if (result) {
            CHECK(result->host == c.expected->first);
            CHECK(result->port == c.expected->second);
        }
    }
}

TEST_CASE("canonical_host is idempotent and its output is canonical", "[host]") {
    // Random strings over the characters that matter, from a fixed seed.
    const std::string alphabet = "aZ0179x.-_:[]%@ \xc3";
    std::uint32_t state = 12345;
    auto next = [&] {
        state = state * 1664525u + 1013904223u;
        return state >> 8;
    };
    int accepted = 0;
    for (int i = 0; i < 20000; ++i) {
        std::string raw;
        std::size_t length = 1 + next() % 12;
        for (std::size_t j = 0; j < length; ++j)
            raw.push_back(alphabet[next() % alphabet.size()]);
        auto once = canonical_host(raw);
        if (!once) continue;
        ++accepted;
        INFO("raw = \"" << raw << "\" -> \"" << *once << "\"");
        CHECK(canonical_host(*once) == once);
        CHECK_FALSE(once->ends_with('.'));
        CHECK(std::none_of(once->begin(), once->end(), [](char c) {
            return (c >= 'A' && c <= 'Z') || c == '_' || c == '%' || c == '@' || c == ' ' ||
                   c == '[' || c == ']';
        }));
    }
    CHECK(accepted > 100);
}
