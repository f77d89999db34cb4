// Fuzz target: the SOCKS5 greeting and request as the proxy reads them from a
// sandbox, then the admission of a CONNECT. The reader's sizes and fields are
// checked against the bytes (RFC 1928's layout, restated), a prefix of a whole
// message is never whole, and an admitted tunnel goes only where the fixed
// spec below allows, raw exactly for its `tcp` destinations.
#include "admission/socks5_messages.hpp"
#include "admission/tunnel_admission.hpp"
#include "fuzz_check.hpp"
#include "osf/spec.hpp"
#include "policy/policy.hpp"

#include <span>
#include <string>

namespace {

namespace socks5 = osf::admission::socks5;

constexpr std::string_view spec_text = R"({
  "template": "debian:12",
  "egress": ["api.example.com", "*.githubusercontent.com"],
  "tcp": ["github.com:22", "*.db.example.com:5432", "10.0.0.5:6379"]
})";

const osf::policy::Policy& policy() {
    static const osf::policy::Policy p = [] {
        auto result = osf::parse_spec(spec_text);
        if (!result.spec)
            osf::fuzz::invariant_failed("the fixed spec is valid", __FILE__, __LINE__);
        return osf::policy::Policy(*result.spec, {});
    }();
    return p;
}

// The fixed spec's tcp list, restated.
bool expected_tcp(const std::string& host, std::uint16_t port) {
    const std::string_view db = ".db.example.com";
    return (host == "github.com" && port == 22) ||
           (host.size() > db.size() && host.ends_with(db) && port == 5432) ||
           (host == "10.0.0.5" && port == 6379);
}

// What an HTTP CONNECT may reach under the fixed spec: its egress hosts, written
// without a port, on any port.
bool expected_intercepted(const std::string& host, std::uint16_t port) {
    const std::string_view gh = ".githubusercontent.com";
    return port != 0 &&
           (host == "api.example.com" || (host.size() > gh.size() && host.ends_with(gh)));
}

#define OSF_CHECK(cond)                                                                            \
    do {                                                                                           \
        if (!(cond)) osf::fuzz::invariant_failed(#cond, __FILE__, __LINE__);                       \
    } while (0)

void check_greeting(std::span<const std::uint8_t> bytes) {
    const auto g = socks5::read_greeting(bytes);
    if (g.state == socks5::State::complete) {
        OSF_CHECK(bytes[0] == socks5::version && g.size == 2u + bytes[1] && g.size <= bytes.size());
        bool offered = false;
        for (std::size_t i = 2; i < g.size; ++i)
            offered = offered || bytes[i] == socks5::no_authentication;
        OSF_CHECK(g.offers_no_authentication == offered);
        for (std::size_t k = 0; k < g.size; ++k)
            OSF_CHECK(socks5::read_greeting(bytes.first(k)).state != socks5::State::complete);
    } else if (g.state == socks5::State::incomplete) {
        OSF_CHECK(g.size > bytes.size() && g.size <= socks5::max_greeting_bytes);
    } else {
        OSF_CHECK(!g.problem.empty());
    }
}

void check_request(std::span<const std::uint8_t> bytes) {
    const auto r = socks5::read_request(bytes);
    if (r.state == socks5::State::incomplete) {
        OSF_CHECK(r.size > bytes.size() && r.size <= socks5::max_request_bytes);
        return;
    }
    if (r.state == socks5::State::malformed) {
        OSF_CHECK(!r.problem.empty() && r.reply != socks5::Reply::succeeded);
        return;
    }
    OSF_CHECK(r.size <= bytes.size() && r.size <= socks5::max_request_bytes);
    OSF_CHECK(bytes[0] == socks5::version && r.command == bytes[1]);
    OSF_CHECK(r.port == ((bytes[r.size - 2] << 8) | bytes[r.size - 1]));
    if (r.address_type == socks5::AddressType::domain)
        OSF_CHECK(r.size == 7u + bytes[4] &&
                  r.host == std::string(bytes.begin() + 5, bytes.begin() + 5 + bytes[4]));
    for (std::size_t k = 0; k < r.size; ++k)
        OSF_CHECK(socks5::read_request(bytes.first(k)).state != socks5::State::complete);
    const auto again = socks5::read_request(bytes.first(r.size));
    OSF_CHECK(again.state == socks5::State::complete && again.host == r.host &&
              again.port == r.port);

    const auto a = osf::admission::admit_socks_connect(policy(), r.host, r.port);
    if (a.refusal) {
        OSF_CHECK(!a.raw && a.host.empty());
        return;
    }
    // Admitted: a canonical name the spec allows, raw exactly for its tcp entries.
    OSF_CHECK(a.port == r.port);
    OSF_CHECK(a.raw == expected_tcp(a.host, a.port));
    OSF_CHECK(a.raw || expected_intercepted(a.host, a.port));
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::span<const std::uint8_t> bytes(data, size);
    check_greeting(bytes);
    check_request(bytes);
    return 0;
}
