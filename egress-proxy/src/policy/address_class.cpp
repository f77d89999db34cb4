// Address classification. The proxy refuses destinations that reach the proxy's
// own node or the cloud's metadata service; IPv6 forms that carry an IPv4
// address are unwrapped so "::ffff:127.0.0.1" and its cousins are not a way round.
#include "policy/address_class.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

namespace osf::policy {
namespace {

using boost::asio::ip::address_v4;
using boost::asio::ip::address_v6;
using Bytes = address_v6::bytes_type;

AddressClass classify_v4(const address_v4& address) {
    std::uint32_t a = address.to_uint();
    if ((a >> 24) == 0) return AddressClass::Unspecified;    // 0.0.0.0/8
    if ((a >> 24) == 127) return AddressClass::Loopback;     // 127.0.0.0/8
    if ((a >> 16) == 0xa9fe) return AddressClass::LinkLocal; // 169.254.0.0/16
    if (a == 0x646464c8) return AddressClass::LinkLocal;     // 100.100.100.200: Alibaba metadata
    if ((a >> 28) == 0xe) return AddressClass::Multicast;    // 224.0.0.0/4
    if (a == 0xffffffff) return AddressClass::Multicast;     // limited broadcast
    if ((a >> 24) == 10) return AddressClass::Private;       // 10.0.0.0/8
    if ((a >> 20) == 0xac1) return AddressClass::Private;    // 172.16.0.0/12
    if ((a >> 16) == 0xc0a8) return AddressClass::Private;   // 192.168.0.0/16
    if ((a >> 22) == 0x191) return AddressClass::Private;    // 100.64.0.0/10 (CGNAT)
    return AddressClass::Public;
}

bool has_prefix(const Bytes& bytes, std::initializer_list<unsigned char> prefix) {
    std::size_t i = 0;
    for (unsigned char b : prefix)
        if (bytes[i++] != b) return false;
    return true;
}

address_v4 v4_at(const Bytes& bytes, std::size_t offset, std::uint32_t mask = 0) {
    std::uint32_t v = (std::uint32_t{bytes[offset]} << 24) |
                      (std::uint32_t{bytes[offset + 1]} << 16) |
                      (std::uint32_t{bytes[offset + 2]} << 8) | std::uint32_t{bytes[offset + 3]};
    return address_v4(v ^ mask);
}

// Every IPv4 address this IPv6 address may deliver to.
std::vector<address_v4> embedded_v4(const address_v6& address) {
    Bytes b = address.to_bytes();
    std::vector<address_v4> found;
    auto zero = [&](std::size_t from, std::size_t to) {
        for (std::size_t i = from; i < to; ++i)
            if (b[i] != 0) return false;
        return true;
    };
    // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible, deprecated).
    if (zero(0, 10) && b[10] == 0xff && b[11] == 0xff) found.push_back(v4_at(b, 12));
    if (zero(0, 12)) found.push_back(v4_at(b, 12));
    // ::ffff:0:a.b.c.d (SIIT translated, RFC 2765).
    if (zero(0, 8) && b[8] == 0xff && b[9] == 0xff && b[10] == 0 && b[11] == 0)
        found.push_back(v4_at(b, 12));
    // NAT64: 64:ff9b::/96 (RFC 6052) and 64:ff9b:1::/48 (RFC 8215), IPv4 in the last 32 bits.
    if (has_prefix(b, {0x00, 0x64, 0xff, 0x9b}) && zero(4, 12)) found.push_back(v4_at(b, 12));
    if (has_prefix(b, {0x00, 0x64, 0xff, 0x9b, 0x00, 0x01})) found.push_back(v4_at(b, 12));
    // 6to4: 2002:AABB:CCDD::/48 (RFC 3056).
    if (has_prefix(b, {0x20, 0x02})) found.push_back(v4_at(b, 2));
    // Teredo: 2001:0000::/32, client address in the last 32 bits, inverted (RFC 4380).
    if (has_prefix(b, {0x20, 0x01, 0x00, 0x00})) found.push_back(v4_at(b, 12, 0xffffffff));
    return found;
}

AddressClass classify_v6_itself(const address_v6& address) {
    Bytes b = address.to_bytes();
    if (address.is_unspecified()) return AddressClass::Unspecified;
    if (address.is_loopback()) return AddressClass::Loopback;
    if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80) return AddressClass::LinkLocal; // fe80::/10
    if (b[0] == 0xff) return AddressClass::Multicast;                          // ff00::/8
    // fd00:ec2::254: the AWS instance metadata service over IPv6.
    static const Bytes aws_metadata = boost::asio::ip::make_address_v6("fd00:ec2::254").to_bytes();
    if (b == aws_metadata) return AddressClass::LinkLocal;
    if ((b[0] & 0xfe) == 0xfc) return AddressClass::Private; // fc00::/7 (unique local)
    return AddressClass::Public;
}

} // namespace

AddressClass classify(const boost::asio::ip::address& address) {
    if (address.is_v4()) return classify_v4(address.to_v4());
    const address_v6 v6 = address.to_v6();
    // Any class but Public and Private is always a refusal: the first found wins;
    // else Private if the address or one it carries is private.
    auto always_refused = [](AddressClass c) {
        return c != AddressClass::Public && c != AddressClass::Private;
    };
    AddressClass found = classify_v6_itself(v6);
    if (always_refused(found)) return found;
    for (const address_v4& inner : embedded_v4(v6)) {
        AddressClass c = classify_v4(inner);
        if (always_refused(c)) return c;
        if (c == AddressClass::Private) found = c;
    }
    return found;
}

std::string_view to_string(AddressClass c) {
    switch (c) {
    case AddressClass::Public:
        return "public";
    case AddressClass::Private:
        return "private";
    case AddressClass::Loopback:
        return "loopback";
    case AddressClass::LinkLocal:
        return "link-local";
    case AddressClass::Unspecified:
        return "unspecified";
    case AddressClass::Multicast:
        return "multicast";
    }
    return "unknown";
}

} // namespace osf::policy
