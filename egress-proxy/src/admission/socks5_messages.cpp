#include "admission/socks5_messages.hpp"

#include <algorithm>
#include <boost/asio/ip/address_v4.hpp>
#include <boost/asio/ip/address_v6.hpp>

namespace osf::admission::socks5 {

Greeting read_greeting(std::span<const std::uint8_t> bytes) {
    Greeting g;
    if (bytes.size() < 2) return g;
    if (bytes[0] != version) {
        g.state = State::malformed;
        g.problem = "not SOCKS version 5";
        return g;
    }
    g.size = 2 + bytes[1];
    if (bytes[1] == 0) {
        g.state = State::malformed;
        g.problem = "a SOCKS5 greeting offering no method";
        return g;
    }
    if (bytes.size() < g.size) return g;
    g.state = State::complete;
    for (std::size_t i = 2; i < g.size; ++i)
        if (bytes[i] == no_authentication) g.offers_no_authentication = true;
    return g;
}

Request read_request(std::span<const std::uint8_t> bytes) {
    Request r;
    const auto malformed = [&r](Reply reply, std::string problem) {
        r.state = State::malformed;
        r.reply = reply;
        r.problem = std::move(problem);
        return r;
    };
    if (bytes.size() < 4) return r;
    if (bytes[0] != version) return malformed(Reply::general_failure, "not SOCKS version 5");
    r.command = bytes[1];
    std::size_t address_size = 0;
    std::size_t address_at = 4;
    switch (bytes[3]) {
    case static_cast<std::uint8_t>(AddressType::ipv4):
        r.address_type = AddressType::ipv4;
        address_size = 4;
        break;
    case static_cast<std::uint8_t>(AddressType::ipv6):
        r.address_type = AddressType::ipv6;
        address_size = 16;
        break;
    case static_cast<std::uint8_t>(AddressType::domain):
        r.address_type = AddressType::domain;
        r.size = 5;
        if (bytes.size() < 5) return r;
        address_size = bytes[4];
        address_at = 5;
        if (address_size == 0)
            return malformed(Reply::general_failure, "a SOCKS5 request naming an empty domain");
        break;
    default:
        return malformed(Reply::address_type_not_supported, "SOCKS5 address type " +
                                                                std::to_string(bytes[3]) +
                                                                " is not one of 1, 3, 4");
    }
    r.size = address_at + address_size + 2;
    if (bytes.size() < r.size) return r;
    const auto address = bytes.subspan(address_at, address_size);
    if (r.address_type == AddressType::ipv4) {
        boost::asio::ip::address_v4::bytes_type b;
        std::copy(address.begin(), address.end(), b.begin());
        r.host = boost::asio::ip::address_v4(b).to_string();
    } else if (r.address_type == AddressType::ipv6) {
        boost::asio::ip::address_v6::bytes_type b;
        std::copy(address.begin(), address.end(), b.begin());
        r.host = boost::asio::ip::address_v6(b).to_string();
    } else {
        r.host.assign(address.begin(), address.end());
    }
    r.port = static_cast<std::uint16_t>((bytes[address_at + address_size] << 8) |
                                        bytes[address_at + address_size + 1]);
    r.state = State::complete;
    return r;
}

std::array<std::uint8_t, 2> method_choice(bool no_authentication_offered) {
    return {version, no_authentication_offered ? no_authentication : no_acceptable_method};
}

std::array<std::uint8_t, 10> reply(Reply code) {
    return {version, static_cast<std::uint8_t>(code),
            0,       static_cast<std::uint8_t>(AddressType::ipv4),
            0,       0,
            0,       0,
            0,       0};
}

} // namespace osf::admission::socks5
