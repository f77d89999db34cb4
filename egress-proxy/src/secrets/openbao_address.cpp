#include "secrets/openbao_address.hpp"

#include "osf/host_port.hpp"
#include "text/ascii.hpp"

#include <arpa/inet.h>
#include <cctype>

namespace osf::secrets {
namespace {

bool all_digits(std::string_view text) {
    if (text.empty()) return false;
    for (char c : text)
        if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    return true;
}

ParsedOpenBaoAddress fail(std::string why) {
    return {std::nullopt, "OSF_OPENBAO_ADDR is not a usable address: " + std::move(why)};
}

} // namespace

std::string OpenBaoAddress::authority() const {
    return osf::host_port(host, port);
}

bool is_ip_literal(const std::string& host) {
    unsigned char buffer[16];
    return ::inet_pton(AF_INET, host.c_str(), buffer) == 1 ||
           ::inet_pton(AF_INET6, host.c_str(), buffer) == 1;
}

bool is_loopback_host(const std::string& host) {
    if (host == "localhost") return true;
    unsigned char v4[4];
    if (::inet_pton(AF_INET, host.c_str(), v4) == 1) return v4[0] == 127;
    unsigned char v6[16];
    if (::inet_pton(AF_INET6, host.c_str(), v6) == 1) {
        for (int i = 0; i < 15; ++i)
            if (v6[i] != 0) return false;
        return v6[15] == 1;
    }
    return false;
}

ParsedOpenBaoAddress parse_openbao_address(std::string_view text) {
    OpenBaoAddress address;
    if (text.starts_with("https://")) {
        text.remove_prefix(8);
    } else if (text.starts_with("http://")) {
        address.tls = false;
        text.remove_prefix(7);
    } else {
        return fail("it must start with https:// (or http:// for a loopback address)");
    }
    for (char c : text)
        if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f)
            return fail("it contains spaces or control characters");
    if (text.find_first_of("?#") != std::string_view::npos)
        return fail("it must not have a query or fragment");

    const auto slash = text.find('/');
    std::string_view authority = text.substr(0, slash);
    std::string_view path = slash == std::string_view::npos ? "" : text.substr(slash);
    if (authority.find('@') != std::string_view::npos)
        return fail("it must not contain user information (put the token in OSF_OPENBAO_TOKEN)");
    while (path.ends_with('/'))
        path.remove_suffix(1);
    address.base_path = std::string(path);

    std::string_view port;
    if (authority.starts_with('[')) {
        const auto close = authority.find(']');
        if (close == std::string_view::npos) return fail("an IPv6 address lacks its ']'");
        address.host = std::string(authority.substr(1, close - 1));
        std::string_view rest = authority.substr(close + 1);
        if (!rest.empty()) {
            if (!rest.starts_with(':')) return fail("unexpected text after the IPv6 address");
            port = rest.substr(1);
        }
        unsigned char v6[16];
        if (::inet_pton(AF_INET6, address.host.c_str(), v6) != 1)
            return fail("the text in [] is not an IPv6 address");
    } else {
        const auto colon = authority.rfind(':');
        address.host = std::string(authority.substr(0, colon));
        if (colon != std::string_view::npos) port = authority.substr(colon + 1);
    }
    if (address.host.empty()) return fail("it names no host");
    address.host = text::lower(address.host);
    if (port.empty()) {
        address.port = address.tls ? "443" : "80";
    } else {
        if (!all_digits(port) || port.size() > 5 || std::stoi(std::string(port)) == 0 ||
            std::stoi(std::string(port)) > 65535)
            return fail("the port is not a number from 1 to 65535");
        address.port = std::string(port);
    }
    address.host_is_ip = is_ip_literal(address.host);
    if (!address.tls && !is_loopback_host(address.host))
        return fail("plain http:// is allowed only to a loopback address (127.0.0.1, ::1, "
                    "localhost); use https:// so that the token is not sent in clear");
    return {std::move(address), {}};
}

} // namespace osf::secrets
