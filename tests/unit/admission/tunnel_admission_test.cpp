// SOCKS5 CONNECT admission as a table: which destinations become raw tunnels
// (`tcp`), intercepted ones (`egress`, MCP), or refusals, and what the line says.
#include "admission/tunnel_admission.hpp"

#include <catch2/catch.hpp>

using osf::RefusalReason;
using osf::admission::admit_socks_connect;

namespace {

osf::policy::Policy socks_destinations() {
    osf::Spec s;
    s.template_name = "debian:12";
    s.egress = {osf::EgressRule{"api.example.com", std::nullopt},
                osf::EgressRule{"git.example.com", 443}};
    s.tcp = {osf::TcpDestination{"git.example.com", 22},
             osf::TcpDestination{"*.db.example.com", 5432},
             osf::TcpDestination{"192.0.2.10", 6379}};
    return osf::policy::Policy(s, {});
}

} // namespace

TEST_CASE("admit_socks_connect: the table") {
    struct Row {
        const char* host;
        std::uint16_t port;
        std::optional<RefusalReason> refused; // unset: admitted
        bool raw;
        const char* scheme;
        const char* logged_host;
    };
    const Row rows[] = {
        {"git.example.com", 22, std::nullopt, true, "tcp", "git.example.com"},
        {"GIT.Example.com.", 22, std::nullopt, true, "tcp", "git.example.com"},
        {"a.db.example.com", 5432, std::nullopt, true, "tcp", "a.db.example.com"},
        {"a.b.db.example.com", 5432, std::nullopt, true, "tcp", "a.b.db.example.com"},
        {"192.0.2.10", 6379, std::nullopt, true, "tcp", "192.0.2.10"},
        // An egress destination: served as after an HTTP CONNECT (intercepted).
        {"git.example.com", 443, std::nullopt, false, "https", "git.example.com"},
        {"api.example.com", 443, std::nullopt, false, "https", "api.example.com"},
        {"db.example.com", 5432, RefusalReason::tcp_destination_not_allowed, false, "tcp",
         "db.example.com"}, // a wildcard never covers its own domain
        {"a.db.example.com", 5433, RefusalReason::tcp_destination_not_allowed, false, "tcp",
         "a.db.example.com"},
        {"git.example.com", 2222, RefusalReason::tcp_destination_not_allowed, false, "tcp",
         "git.example.com"},
        {"192.0.2.11", 6379, RefusalReason::tcp_destination_not_allowed, false, "tcp",
         "192.0.2.11"},
        {"evil.example", 22, RefusalReason::tcp_destination_not_allowed, false, "tcp",
         "evil.example"},
        {"git.example.com", 0, RefusalReason::tcp_destination_not_allowed, false, "tcp",
         "git.example.com"},
        {"bad_host!", 22, RefusalReason::bad_host, false, "tcp", "bad_host!"},
        {"", 22, RefusalReason::bad_host, false, "tcp", ""},
    };
    const auto policy = socks_destinations();
    for (const auto& row : rows) {
        INFO(row.host << ":" << row.port);
        const auto a = admit_socks_connect(policy, row.host, row.port);
        CHECK(a.logged.host == row.logged_host);
        CHECK(a.logged.port == row.port);
        CHECK(a.logged.scheme == row.scheme);
        CHECK(a.raw == row.raw);
        if (row.refused) {
            REQUIRE(a.refusal);
            CHECK(*a.refusal == *row.refused);
            CHECK_FALSE(a.detail.empty());
            CHECK(a.host.empty());
        } else {
            CHECK_FALSE(a.refusal);
            CHECK(a.host == row.logged_host);
        }
    }
}
