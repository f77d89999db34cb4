// SOCKS5 (RFC 1928) as the proxy reads and answers it: the client's method
// greeting, its request, and the replies. Only the "no authentication" method
// and the CONNECT command are served. Pure: the I/O code hands in the bytes
// read so far and is told whether they hold a whole message, need more, or
// can never be one.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace osf::admission::socks5 {

inline constexpr std::uint8_t version = 5;
inline constexpr std::uint8_t no_authentication = 0x00;
inline constexpr std::uint8_t no_acceptable_method = 0xFF;

// The longest messages: a greeting with 255 methods, a request naming a 255-byte domain.
inline constexpr std::size_t max_greeting_bytes = 2 + 255;
inline constexpr std::size_t max_request_bytes = 4 + 1 + 255 + 2;

enum class Reply : std::uint8_t {
    succeeded = 0x00,
    general_failure = 0x01,
    not_allowed = 0x02, // "connection not allowed by ruleset"
    network_unreachable = 0x03,
    host_unreachable = 0x04,
    connection_refused = 0x05,
    ttl_expired = 0x06, // what clients read as a timeout
    command_not_supported = 0x07,
    address_type_not_supported = 0x08,
};

enum class Command : std::uint8_t { connect = 1, bind = 2, udp_associate = 3 };

enum class AddressType : std::uint8_t { ipv4 = 1, domain = 3, ipv6 = 4 };

enum class State {
    complete,   // `size` bytes make the message
    incomplete, // at least `size` bytes are needed
    malformed,  // never a message: `reply` (for a request) and `problem` say why
};

struct Greeting {
    State state = State::incomplete;
    std::size_t size = 2;
    bool offers_no_authentication = false;
    std::string problem;
};
Greeting read_greeting(std::span<const std::uint8_t> bytes);

struct Request {
    State state = State::incomplete;
    std::size_t size = 4;
    std::uint8_t command = 0; // as sent: Command's values, or another the reply refuses
    AddressType address_type = AddressType::domain;
    std::string host; // the domain as sent, or the address's text (IPv6 without brackets)
    std::uint16_t port = 0;
    Reply reply = Reply::general_failure; // malformed: the reply that says so
    std::string problem;                  // malformed: for the log and the proxy's own diagnostics
};
Request read_request(std::span<const std::uint8_t> bytes);

// The answer to a greeting: the method chosen, or none acceptable.
std::array<std::uint8_t, 2> method_choice(bool no_authentication_offered);

// A reply to a request. The bound address is 0.0.0.0:0: the proxy's own
// address toward the destination is none of the sandbox's business.
std::array<std::uint8_t, 10> reply(Reply code);

} // namespace osf::admission::socks5
