// Fuzz target: host and address handling. The input is read as a host (or
// host:port, or an alias list) the way it could arrive from a request line, a
// Host header, a spec or OSF_SANDBOX_HOST_ALIASES. The egress decision is
// checked against a plain restatement of the fixed policy below, and the
// address classes against the ranges address_class.hpp promises.
#include "fuzz_check.hpp"
#include "hosts/host.hpp"
#include "osf/spec.hpp"
#include "policy/address_class.hpp"
#include "policy/policy.hpp"

#include <boost/asio/ip/address.hpp>

namespace {

namespace ip = boost::asio::ip;
using osf::policy::AddressClass;

constexpr std::string_view spec_text = R"({
  "template": "debian:12",
  "egress": ["api.example.com", "*.githubusercontent.com", "registry.npmjs.org:443",
             "10.0.0.1:8080"],
  "mcp": [{"name": "wiki", "url": "https://wiki.example.com/mcp", "tools": ["search"]}]
})";

const osf::policy::Policy& policy() {
    static const osf::policy::Policy p = [] {
        auto result = osf::parse_spec(spec_text);
        if (!result.spec)
            osf::fuzz::invariant_failed("the fixed spec is valid", __FILE__, __LINE__);
        return osf::policy::Policy(*result.spec,
                                   {{"api.example.com", ip::make_address("127.0.0.1")}});
    }();
    return p;
}

// The fixed spec's egress list, restated.
bool expected_allowed(const std::string& host, std::uint16_t port) {
    if (port == 0) return false;
    const bool literal = osf::hosts::host_as_address(host).has_value();
    const std::string_view suffix = ".githubusercontent.com";
    return host == "api.example.com" ||
           (!literal && host.size() > suffix.size() && host.ends_with(suffix)) ||
           (host == "registry.npmjs.org" && port == 443) || (host == "10.0.0.1" && port == 8080) ||
           (host == "wiki.example.com" && port == 443);
}

// The ranges address_class.hpp names, including IPv4 inside IPv6.
bool v4_not_public(std::uint32_t a) {
    return (a >> 24) == 0 || (a >> 24) == 127 || (a >> 16) == 0xa9fe || (a >> 28) == 0xe ||
           a == 0xffffffff;
}
bool expected_not_public(const ip::address& address) {
    if (address.is_v4()) return v4_not_public(address.to_v4().to_uint());
    const auto b = address.to_v6().to_bytes();
    auto zero = [&](std::size_t from, std::size_t to) {
        for (std::size_t i = from; i < to; ++i)
            if (b[i] != 0) return false;
        return true;
    };
    auto v4_at = [&](std::size_t i) {
        return (std::uint32_t{b[i]} << 24) | (std::uint32_t{b[i + 1]} << 16) |
               (std::uint32_t{b[i + 2]} << 8) | std::uint32_t{b[i + 3]};
    };
    if (zero(0, 16) || (zero(0, 15) && b[15] == 1)) return true; // ::, ::1
    if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80) return true;      // fe80::/10
    if (b[0] == 0xff) return true;                               // ff00::/8
    if (zero(0, 10) && b[10] == 0xff && b[11] == 0xff && v4_not_public(v4_at(12)))
        return true;                                          // ::ffff:a.b.c.d
    if (zero(0, 12) && v4_not_public(v4_at(12))) return true; // ::a.b.c.d
    if (b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b && zero(4, 12) &&
        v4_not_public(v4_at(12)))
        return true;                                                          // 64:ff9b::/96
    if (b[0] == 0x20 && b[1] == 0x02 && v4_not_public(v4_at(2))) return true; // 2002::/16
    return false;
}

std::optional<std::string> checked_canonical(std::string_view raw) {
    auto canonical = osf::hosts::canonical_host(raw);
    if (!canonical) return canonical;
    OSF_FUZZ_CHECK(!canonical->empty() && canonical->back() != '.');
    OSF_FUZZ_CHECK(osf::hosts::canonical_host(*canonical) == canonical);
    if (auto address = osf::hosts::host_as_address(*canonical)) {
        OSF_FUZZ_CHECK(address->to_string() == *canonical);
    } else {
        OSF_FUZZ_CHECK(canonical->size() <= 253);
        for (char c : *canonical)
            OSF_FUZZ_CHECK((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
                           c == '.');
    }
    return canonical;
}

void check_address(const std::string& host, const ip::address& address) {
    const auto c = osf::policy::classify(address);
    if (expected_not_public(address)) OSF_FUZZ_CHECK(c != AddressClass::Public);
    const auto decision = policy().check_address(host, address);
    const bool aliased = host == "api.example.com" && address == ip::make_address("127.0.0.1");
    // A private address only for a host the fixed spec names itself (never by a wildcard).
    const bool named = host == "api.example.com" || host == "registry.npmjs.org" ||
                       host == "10.0.0.1" || host == "wiki.example.com";
    OSF_FUZZ_CHECK(decision.allowed ==
                   (c == AddressClass::Public || aliased || (c == AddressClass::Private && named)));
}

void check_destination(std::string_view raw, std::uint16_t port) {
    const auto decision = policy().check_destination(raw, port);
    const auto canonical = osf::hosts::canonical_host(raw);
    OSF_FUZZ_CHECK(decision.allowed == (canonical && expected_allowed(*canonical, port)));
    if (!decision.allowed) OSF_FUZZ_CHECK(decision.refused_by.has_value());
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto text = osf::fuzz::as_text(data, size);

    // The input as a host.
    if (auto canonical = checked_canonical(text)) {
        if (auto address = osf::hosts::host_as_address(*canonical))
            check_address(*canonical, *address);
        check_destination(text, 443);
    }

    // The input as an authority (CONNECT target, Host header).
    if (auto hp = osf::hosts::split_host_port(text, 443)) {
        OSF_FUZZ_CHECK(!hp->host.empty() && hp->port != 0);
        checked_canonical(hp->host);
        check_destination(hp->host, hp->port);
    }

    // The input as a resolved address (DNS answers are never canonicalised).
    boost::system::error_code error;
    const auto address = ip::make_address(std::string(text), error);
    if (!error) check_address("api.example.com", address), check_address("other.example", address);

    // The input as OSF_SANDBOX_HOST_ALIASES.
    const auto aliases = osf::hosts::parse_host_aliases(text);
    if (aliases.error.empty()) {
        const osf::policy::Policy with_aliases(osf::Spec{}, aliases.aliases);
        for (const auto& [host, target] : aliases.aliases) {
            OSF_FUZZ_CHECK(checked_canonical(host) == host);
            OSF_FUZZ_CHECK(!osf::hosts::host_as_address(host));
            OSF_FUZZ_CHECK(with_aliases.alias_for(host) == target);
            OSF_FUZZ_CHECK(with_aliases.check_address(host, target).allowed);
        }
    } else {
        OSF_FUZZ_CHECK(aliases.aliases.empty());
    }
    return 0;
}
