// CONNECT admission as a table: the authority a CONNECT names, and whether a
// tunnel opens, with the reason and the line's destination when it does not.
#include "admission/connect_admission.hpp"

#include <catch2/catch.hpp>

using osf::RefusalReason;
using osf::admission::admit_connect;

namespace {

osf::policy::Policy destinations() {
    osf::Spec s;
    s.template_name = "debian:12";
    s.egress = {osf::EgressRule{"api.example.com", std::nullopt},
                osf::EgressRule{"pinned.example.com", 8443},
                osf::EgressRule{"*.cdn.example.com", std::nullopt}};
    return osf::policy::Policy(s, {});
}

} // namespace

TEST_CASE("admit_connect: the table") {
    struct Row {
        const char* authority;
        std::optional<RefusalReason> refused; // unset: admitted
        const char* logged_host;
        std::uint16_t logged_port;
    };
    const Row rows[] = {
        {"api.example.com:443", std::nullopt, "api.example.com", 443},
        {"API.Example.COM.:443", std::nullopt, "api.example.com", 443},
        {"api.example.com", std::nullopt, "api.example.com", 443}, // the port left out: 443
        {"x.cdn.example.com:443", std::nullopt, "x.cdn.example.com", 443},
        {"pinned.example.com:8443", std::nullopt, "pinned.example.com", 8443},
        {"pinned.example.com:443", RefusalReason::port_not_allowed, "pinned.example.com", 443},
        {"api.example.com:22", std::nullopt, "api.example.com", 22}, // no port in the rule: any
        {"evil.example:443", RefusalReason::host_not_allowed, "evil.example", 443},
        {"api.example.com:0", RefusalReason::bad_host, "api.example.com:0", 0},
        {"api.example.com:70000", RefusalReason::bad_host, "api.example.com:70000", 0},
        {"bad_host!:443", RefusalReason::bad_host, "bad_host!", 443},
        {"", RefusalReason::bad_host, "", 0},
    };
    const auto policy = destinations();
    for (const auto& row : rows) {
        INFO(row.authority);
        const auto a = admit_connect(policy, row.authority);
        CHECK(a.logged.host == row.logged_host);
        CHECK(a.logged.port == row.logged_port);
        if (row.refused) {
            REQUIRE(a.refusal);
            CHECK(a.refusal->reason == *row.refused);
            CHECK(a.refusal->status == boost::beast::http::status::forbidden);
            CHECK(a.host.empty());
        } else {
            CHECK_FALSE(a.refusal);
            CHECK(a.host == row.logged_host);
            CHECK(a.port == row.logged_port);
        }
    }
}

TEST_CASE("admit_connect: a tcp destination is a raw tunnel, before egress") {
    osf::Spec s;
    s.template_name = "debian:12";
    s.egress = {osf::EgressRule{"git.example.com", std::nullopt}};
    s.tcp = {osf::TcpDestination{"git.example.com", 22},
             osf::TcpDestination{"*.db.example.com", 5432}};
    const osf::policy::Policy policy(s, {});
    struct Row {
        const char* authority;
        bool admitted;
        bool raw;
    };
    const Row rows[] = {
        {"git.example.com:22", true, true},    // in tcp (and in egress): raw wins
        {"git.example.com:443", true, false},  // egress only: intercepted as today
        {"x.db.example.com:5432", true, true}, // a tcp wildcard
        {"x.db.example.com:443", false, false}, {"db.example.com:5432", false, false},
    };
    for (const auto& row : rows) {
        INFO(row.authority);
        const auto a = admit_connect(policy, row.authority);
        CHECK(!a.refusal == row.admitted);
        CHECK(a.raw == row.raw);
    }
}
