// Host canonicalisation. Every decision the proxy makes about a destination
// compares canonical strings, so two spellings of one host must end up equal
// here, and anything ambiguous is refused rather than guessed.
#include "hosts/host.hpp"

#include <array>
#include <boost/asio/ip/address_v6.hpp>
#include <cstdint>

namespace osf::hosts {
namespace {

constexpr std::size_t max_label_length = 63;
constexpr std::size_t max_name_length = 253;

bool is_digit(char c) {
    return c >= '0' && c <= '9';
}
bool is_hex_digit(char c) {
    return is_digit(c) || (c >= 'a' && c <= 'f');
}

// One part of an inet_aton address: decimal, octal (leading 0) or hex (0x).
// "0x" without digits is refused, as glibc's inet_aton does.
std::optional<std::uint64_t> parse_inet_aton_part(std::string_view part) {
    if (part.empty()) return std::nullopt;
    int base = 10;
    if (part.size() >= 2 && part[0] == '0' && part[1] == 'x') {
        base = 16;
        part.remove_prefix(2);
        if (part.empty()) return std::nullopt;
    } else if (part.size() >= 2 && part[0] == '0') {
        base = 8;
        part.remove_prefix(1);
    }
    // Bounded so that the value cannot overflow: 12 hex digits is far above 2^32.
    if (part.size() > 12) return std::nullopt;
    std::uint64_t value = 0;
    for (char c : part) {
        int digit = -1;
        if (is_digit(c))
            digit = c - '0';
        else if (c >= 'a' && c <= 'f')
            digit = c - 'a' + 10;
        if (digit < 0 || digit >= base) return std::nullopt;
        value = value * static_cast<std::uint64_t>(base) + static_cast<std::uint64_t>(digit);
    }
    return value;
}

// inet_aton's grammar: 1 to 4 parts; the last part fills the remaining bytes.
std::optional<boost::asio::ip::address_v4> parse_inet_aton(std::string_view text) {
    std::array<std::uint64_t, 4> parts{};
    std::size_t count = 0;
    while (true) {
        if (count == parts.size()) return std::nullopt;
        std::size_t dot = text.find('.');
        auto value = parse_inet_aton_part(text.substr(0, dot));
        if (!value) return std::nullopt;
        parts[count++] = *value;
        if (dot == std::string_view::npos) break;
        text.remove_prefix(dot + 1);
    }
    std::uint64_t result = 0;
    for (std::size_t i = 0; i + 1 < count; ++i) {
        if (parts[i] > 0xff) return std::nullopt;
        result |= parts[i] << (8 * (3 - i));
    }
    std::uint64_t last_max = 0xffffffffULL >> (8 * (count - 1));
    if (parts[count - 1] > last_max) return std::nullopt;
    result |= parts[count - 1];
    return boost::asio::ip::address_v4(static_cast<std::uint32_t>(result));
}

// The WHATWG URL rule: a name whose last label is a number is an IPv4 address
// or nothing. No real TLD is numeric, and treating "1.2.3.4.5" as a DNS name
// would let odd spellings of addresses slip past literal checks.
bool last_label_is_numeric(std::string_view name) {
    std::size_t dot = name.rfind('.');
    std::string_view last = dot == std::string_view::npos ? name : name.substr(dot + 1);
    if (last.empty()) return false;
    if (last.starts_with("0x")) {
        for (char c : last.substr(2))
            if (!is_hex_digit(c)) return false;
        return true;
    }
    for (char c : last)
        if (!is_digit(c)) return false;
    return true;
}

// Labels of [a-z0-9-], 1 to 63 characters. '_' is refused: it is not valid
// in a host name (RFC 952/1123), and no HTTPS certificate may carry it.
bool is_dns_name(std::string_view name) {
    if (name.empty() || name.size() > max_name_length) return false;
    std::size_t label_length = 0;
    for (char c : name) {
        if (c == '.') {
            if (label_length == 0) return false;
            label_length = 0;
            continue;
        }
        if (!(is_digit(c) || (c >= 'a' && c <= 'z') || c == '-')) return false;
        if (++label_length > max_label_length) return false;
    }
    return label_length > 0;
}

std::optional<std::string> canonical_ipv6(std::string_view text) {
    // Zone ids ("fe80::1%eth0") name an interface of the proxy's host: never a destination.
    if (text.find('%') != std::string_view::npos) return std::nullopt;
    boost::system::error_code error;
    auto address = boost::asio::ip::make_address_v6(std::string(text), error);
    if (error) return std::nullopt;
    return address.to_string();
}

} // namespace

std::optional<std::string> canonical_host(std::string_view raw) {
    if (raw.empty()) return std::nullopt;
    // Printable ASCII only: no spaces, controls or UTF-8 (IDNs arrive as punycode).
    for (char c : raw) {
        auto byte = static_cast<unsigned char>(c);
        if (byte <= 0x20 || byte >= 0x7f) return std::nullopt;
    }
    if (raw.front() == '[') {
        if (raw.size() < 3 || raw.back() != ']') return std::nullopt;
        return canonical_ipv6(raw.substr(1, raw.size() - 2));
    }
    if (raw.find(':') != std::string_view::npos) return canonical_ipv6(raw);

    std::string name;
    name.reserve(raw.size());
    for (char c : raw)
        name.push_back((c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c);
    if (name.back() == '.') name.pop_back();
    if (name.empty()) return std::nullopt;

    if (last_label_is_numeric(name)) {
        auto v4 = parse_inet_aton(name);
        if (!v4) return std::nullopt;
        return v4->to_string();
    }
    if (!is_dns_name(name)) return std::nullopt;
    return name;
}

std::optional<boost::asio::ip::address> host_as_address(std::string_view canonical) {
    if (canonical.find('%') != std::string_view::npos) return std::nullopt;
    boost::system::error_code error;
    auto address = boost::asio::ip::make_address(std::string(canonical), error);
    if (error) return std::nullopt;
    return address;
}

std::optional<HostPort> split_host_port(std::string_view authority, std::uint16_t default_port) {
    std::string_view host = authority;
    std::string_view port_text;
    bool has_port = false;
    if (authority.starts_with('[')) {
        std::size_t close = authority.find(']');
        if (close == std::string_view::npos || close == 1) return std::nullopt;
        host = authority.substr(0, close + 1);
        std::string_view rest = authority.substr(close + 1);
        if (!rest.empty()) {
            if (rest.front() != ':') return std::nullopt;
            port_text = rest.substr(1);
            has_port = true;
        }
    } else {
        std::size_t colon = authority.rfind(':');
        if (colon != std::string_view::npos) {
            host = authority.substr(0, colon);
            // An unbracketed IPv6 address is ambiguous ("::1:443"): refuse it.
            if (host.find(':') != std::string_view::npos) return std::nullopt;
            port_text = authority.substr(colon + 1);
            has_port = true;
        }
    }
    if (host.empty()) return std::nullopt;
    std::uint16_t port = default_port;
    if (has_port) {
        if (port_text.empty() || port_text.size() > 5) return std::nullopt;
        unsigned value = 0;
        for (char c : port_text) {
            if (!is_digit(c)) return std::nullopt;
            value = value * 10 + static_cast<unsigned>(c - '0');
        }
        if (value == 0 || value > 65535) return std::nullopt;
        port = static_cast<std::uint16_t>(value);
    }
    return HostPort{std::string(host), port};
}

} // namespace osf::hosts
