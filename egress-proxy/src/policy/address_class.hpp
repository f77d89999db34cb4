// Classifies a resolved destination address. Pure.
#pragma once

#include <boost/asio/ip/address.hpp>
#include <string_view>

namespace osf::policy {

enum class AddressClass {
    Public,      // anything not below
    Private,     // 10/8, 172.16/12, 192.168/16, CGNAT 100.64/10, ULA fc00::/7: pods,
                 // services, the node's network; only for hosts the spec names (not a wildcard)
    Loopback,    // 127.0.0.0/8, ::1
    LinkLocal,   // 169.254.0.0/16 (cloud metadata), fe80::/10, fd00:ec2::254
    Unspecified, // 0.0.0.0/8, ::
    Multicast,   // 224.0.0.0/4, 255.255.255.255, ff00::/8
};

// IPv6 forms that embed an IPv4 address (mapped ::ffff:a.b.c.d, compatible
// ::a.b.c.d, NAT64 64:ff9b::/96 and 64:ff9b:1::/48, 6to4 2002::/16, Teredo
// 2001::/32) are classified by the embedded address as well; the stricter
// class wins (Private is stricter than Public, every other class than Private).
AddressClass classify(const boost::asio::ip::address& address);

// "loopback", "link-local", ... for logs and refusal reasons.
std::string_view to_string(AddressClass c);

} // namespace osf::policy
