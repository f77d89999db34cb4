#include "local/protocol/connect_request.hpp"

#include <charconv>

namespace osf::local {

std::optional<std::string> connect_target_problem(std::string_view host, std::string_view port) {
    if (host.empty()) return "the host is empty";
    for (const char c : host)
        if (static_cast<unsigned char>(c) <= ' ' || c == 0x7f || c == '/' || c == '@')
            return "the host has a character a host name cannot have";
    int number = 0;
    const auto [end, error] = std::from_chars(port.data(), port.data() + port.size(), number);
    if (port.empty() || error != std::errc() || end != port.data() + port.size() || number < 1 ||
        number > 65535 || port.front() == '+')
        return "the port is not a number from 1 to 65535";
    return std::nullopt;
}

std::string connect_request(std::string_view host, std::string_view port) {
    const bool ipv6 = host.find(':') != std::string_view::npos && host.front() != '[';
    std::string target = ipv6 ? "[" + std::string(host) + "]" : std::string(host);
    target += ":" + std::string(port);
    return "CONNECT " + target + " HTTP/1.1\r\nHost: " + target + "\r\n\r\n";
}

std::optional<ConnectAnswer> parse_connect_answer(std::string_view head) {
    if (head.find("\r\n\r\n") == std::string_view::npos) return std::nullopt;
    const std::string_view line = head.substr(0, head.find("\r\n"));
    ConnectAnswer answer;
    // "HTTP/1.x NNN reason"
    if (!line.starts_with("HTTP/1.") || line.size() < 12 || line[8] != ' ') {
        answer.reason = std::string(line.substr(0, 80));
        return answer;
    }
    int status = 0;
    const auto [end, error] = std::from_chars(line.data() + 9, line.data() + 12, status);
    if (error != std::errc() || end != line.data() + 12 || (line.size() > 12 && line[12] != ' ')) {
        answer.reason = std::string(line.substr(0, 80));
        return answer;
    }
    answer.status = status;
    answer.reason = std::string(line.substr(9, 80));
    return answer;
}

} // namespace osf::local
