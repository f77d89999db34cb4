#include "policy/address_class.hpp"

#include <catch2/catch.hpp>

using osf::policy::AddressClass;
using osf::policy::classify;

TEST_CASE("classify sorts addresses, unwrapping IPv4 embedded in IPv6", "[address]") {
    struct Case {
        const char* address;
        AddressClass expected;
    };
    const std::vector<Case> cases = {
        // IPv4
        {"8.8.8.8", AddressClass::Public},
        {"10.0.0.1", AddressClass::Private}, // pods and services: for named hosts only
        {"192.168.1.1", AddressClass::Private},
        {"192.169.0.1", AddressClass::Public},
        {"172.16.0.1", AddressClass::Private},
        {"172.31.255.255", AddressClass::Private},
        {"172.15.255.255", AddressClass::Public},
        {"172.32.0.1", AddressClass::Public},
        {"100.64.0.1", AddressClass::Private}, // CGNAT
        {"100.127.255.255", AddressClass::Private},
        {"100.128.0.1", AddressClass::Public},
        {"100.63.255.255", AddressClass::Public},
        {"100.100.100.199", AddressClass::Private},
        {"127.0.0.1", AddressClass::Loopback},
        {"127.255.255.254", AddressClass::Loopback},
        {"0.0.0.0", AddressClass::Unspecified},
        {"0.1.2.3", AddressClass::Unspecified},
        {"169.254.169.254", AddressClass::LinkLocal},
        {"169.254.0.1", AddressClass::LinkLocal},
        {"100.100.100.200", AddressClass::LinkLocal},
        {"224.0.0.1", AddressClass::Multicast},
        {"239.255.255.250", AddressClass::Multicast},
        {"255.255.255.255", AddressClass::Multicast},
        // IPv6 itself
        {"2001:db8::1", AddressClass::Public},
        {"fd00::1", AddressClass::Private}, // unique local
        {"fc00::1", AddressClass::Private},
        {"fe00::1", AddressClass::Public},
        {"::ffff:10.1.2.3", AddressClass::Private},
        {"2002:0a00:0001::1", AddressClass::Private}, // 6to4 of 10.0.0.1
        {"2002:7f00:0001::1", AddressClass::Loopback},
        {"::1", AddressClass::Loopback},
        {"::", AddressClass::Unspecified},
        {"fe80::1", AddressClass::LinkLocal},
        {"febf::1", AddressClass::LinkLocal},
        {"fec0::1", AddressClass::Public},
        {"fd00:ec2::254", AddressClass::LinkLocal},
        {"fd00:ec2::253", AddressClass::Private},
        {"ff02::1", AddressClass::Multicast},
        // mapped, compatible, SIIT
        {"::ffff:127.0.0.1", AddressClass::Loopback},
        {"::ffff:169.254.169.254", AddressClass::LinkLocal},
        {"::ffff:8.8.8.8", AddressClass::Public},
        {"::127.0.0.1", AddressClass::Loopback},
        {"::169.254.169.254", AddressClass::LinkLocal},
        {"::ffff:0:127.0.0.1", AddressClass::Loopback},
        // NAT64
        {"64:ff9b::127.0.0.1", AddressClass::Loopback},
        {"64:ff9b::a9fe:a9fe", AddressClass::LinkLocal},
        {"64:ff9b::8.8.8.8", AddressClass::Public},
        {"64:ff9b:1::7f00:1", AddressClass::Loopback},
        {"64:ff9b:1:abcd::a9fe:a9fe", AddressClass::LinkLocal},
        // 6to4
        {"2002:7f00:0001::", AddressClass::Loopback},
        {"2002:a9fe:a9fe::1", AddressClass::LinkLocal},
        {"2002:0808:0808::1", AddressClass::Public},
        {"2002:e000:0001::", AddressClass::Multicast},
        // Teredo: client = last 32 bits inverted; 127.0.0.1 -> 80ff:fffe
        {"2001:0:4136:e378:8000:63bf:80ff:fffe", AddressClass::Loopback},
        {"2001:0:4136:e378:8000:63bf:5601:5601", AddressClass::LinkLocal},
        {"2001:0:4136:e378:8000:63bf:f7f7:f7f7", AddressClass::Public},
        {"2001:db8::80ff:fffe", AddressClass::Public}, // not Teredo
    };
    for (const auto& c : cases) {
        INFO("address = " << c.address);
        CHECK(classify(boost::asio::ip::make_address(c.address)) == c.expected);
    }
}

TEST_CASE("address classes have the names the refusal reasons use", "[address]") {
    CHECK(to_string(AddressClass::Public) == "public");
    CHECK(to_string(AddressClass::Private) == "private");
    CHECK(to_string(AddressClass::Loopback) == "loopback");
    CHECK(to_string(AddressClass::LinkLocal) == "link-local");
    CHECK(to_string(AddressClass::Unspecified) == "unspecified");
    CHECK(to_string(AddressClass::Multicast) == "multicast");
}
