// OSF_OPENBAO_ADDR ("https://openbao.example:8200", like BAO_ADDR) split into
// what a client needs. Pure.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace osf::secrets {

struct OpenBaoAddress {
    bool tls = true;
    std::string host;      // without brackets for IPv6
    std::string port;      // explicit, or 443 / 80 from the scheme
    std::string base_path; // "" or a prefix without trailing '/' ("/bao")
    bool host_is_ip = false;
    std::string authority() const; // host:port, IPv6 in brackets, for Host and messages
};

struct ParsedOpenBaoAddress {
    std::optional<OpenBaoAddress> address;
    std::string error; // set when address is not; never echoes user info
};

// Accepts http:// only for loopback hosts (127.0.0.0/8, ::1, localhost): an
// OpenBao agent beside the proxy listens there without TLS, while anywhere
// else the token would cross the network in clear.
ParsedOpenBaoAddress parse_openbao_address(std::string_view text);

bool is_ip_literal(const std::string& host);
bool is_loopback_host(const std::string& host);

} // namespace osf::secrets
