#include "host_syntax.hpp"

#include "ascii.hpp"
#include "json_path.hpp"

#include <algorithm>
#include <vector>

namespace osf::spec_detail {

namespace {

std::vector<std::string_view> split_labels(std::string_view host) {
    std::vector<std::string_view> labels;
    std::size_t start = 0;
    while (true) {
        const auto dot = host.find('.', start);
        labels.push_back(host.substr(start, dot == std::string_view::npos ? dot : dot - start));
        if (dot == std::string_view::npos) return labels;
        start = dot + 1;
    }
}

std::string describe_char(char c) {
    if (c == ' ') return "a space";
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return "a control character";
    if (static_cast<unsigned char>(c) >= 0x80)
        return "a non-ASCII character (write the punycode form, \"xn--...\")";
    return std::string("'") + c + "'";
}

std::optional<HostProblem> check_label(std::string_view label) {
    if (label.empty())
        return HostProblem{"has an empty label (two dots in a row, or a leading dot)"};
    for (const char c : label) {
        if (!(is_letter(c) || is_digit(c) || c == '-'))
            return HostProblem{"holds " + describe_char(c) +
                               ", which a host name cannot (letters, digits, '-' and '.')"};
    }
    if (label.size() > max_label_length)
        return HostProblem{"has a label longer than 63 characters"};
    if (label.front() == '-' || label.back() == '-')
        return HostProblem{"has a label that starts or ends with '-'"};
    return std::nullopt;
}

std::optional<HostProblem> check_ipv4(const std::vector<std::string_view>& labels) {
    const HostProblem not_ipv4{"ends in a number but is not an IPv4 address (four numbers 0-255, "
                               "as \"192.0.2.10\"); a host name's last label holds a letter"};
    if (labels.size() != 4) return not_ipv4;
    for (const auto part : labels) {
        if (!all_digits(part)) return not_ipv4;
        if (part.size() > 1 && part.front() == '0')
            return HostProblem{
                "is an IPv4 address with a leading zero; write each part without one"};
        if (part.size() > 3 || std::stoi(std::string(part)) > 255)
            return HostProblem{"is not an IPv4 address: each part is a number from 0 to 255"};
    }
    return std::nullopt;
}

std::string lower(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(), [](char c) {
        return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    });
    return out;
}

} // namespace

std::variant<std::string, HostProblem> check_host(std::string_view text, bool allow_wildcard) {
    if (text.empty()) return HostProblem{"has no host"};
    std::string_view host = text;
    const bool trailing_dot = host.size() > 1 && host.back() == '.';
    if (trailing_dot) host.remove_suffix(1);
    if (host.size() > max_host_length)
        return HostProblem{"is longer than " + std::to_string(max_host_length) + " characters"};

    if (!allow_wildcard && host.find('*') != std::string_view::npos)
        return HostProblem{"holds '*': a URL names one host, only egress entries have wildcards"};
    const bool wildcard = host.starts_with("*.");
    std::string_view name = wildcard ? host.substr(2) : host;
    if (host == "*")
        return HostProblem{"would allow every host: list the hosts, or \"*.example.com\" for every "
                           "subdomain of example.com"};
    if (name.find('*') != std::string_view::npos)
        return HostProblem{"has a '*' that is not the whole first label: a wildcard is written "
                           "\"*.example.com\""};

    const auto labels = split_labels(name);
    for (const auto label : labels)
        if (auto problem = check_label(label)) return *problem;

    if (all_digits(labels.back())) {
        if (wildcard)
            return HostProblem{"has a wildcard over a number: wildcards cover domain names"};
        if (auto problem = check_ipv4(labels)) return *problem;
        if (trailing_dot) return HostProblem{"is an IPv4 address, which takes no trailing dot"};
        return std::string(host);
    }
    if (wildcard && labels.size() < 2)
        return HostProblem{"would allow every host in a top-level domain: name a domain, as "
                           "\"*.example.com\""};
    return lower(host);
}

std::variant<std::uint16_t, HostProblem> check_port(std::string_view text) {
    if (text.empty())
        return HostProblem{"has an empty port after ':'; name one (\":8443\") or leave it out"};
    if (!all_digits(text))
        return HostProblem{"has a port that is not a number (" + json_quoted(text, 16) +
                           "); a port is a number from 1 to 65535"};
    if (text.size() > 1 && text.front() == '0')
        return HostProblem{"has a port with a leading zero; write it without one"};
    if (text.size() > 5 || std::stoul(std::string(text)) > 65535 || text == "0")
        return HostProblem{"has port " + json_quoted(text, 16) + ", outside 1-65535"};
    return static_cast<std::uint16_t>(std::stoul(std::string(text)));
}

} // namespace osf::spec_detail
