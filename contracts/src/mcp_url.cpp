#include "mcp_url.hpp"

#include "host_syntax.hpp"
#include "json_path.hpp"

namespace osf::spec_detail {

namespace {

bool is_hex(char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// RFC 3986 pchar without percent-encoding, plus '/' ('?' too in a query).
bool is_path_char(char c, bool in_query) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
    if (std::string_view("-._~!$&'()*+,;=:@/").find(c) != std::string_view::npos) return true;
    return in_query && c == '?';
}

std::optional<std::string> path_problem(std::string_view text, bool in_query) {
    const std::string_view part = in_query ? "query" : "path";
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '%') {
            if (i + 2 >= text.size() || !is_hex(text[i + 1]) || !is_hex(text[i + 2]))
                return "has a '%' in its " + std::string(part) +
                       " that is not followed by two hex digits";
            i += 2;
            continue;
        }
        if (!is_path_char(c, in_query)) {
            const std::string shown = c == ' ' ? "a space"
                                      : (static_cast<unsigned char>(c) < 0x20 || c == 0x7f ||
                                         static_cast<unsigned char>(c) >= 0x80)
                                          ? "a control or non-ASCII character"
                                          : std::string("'") + c + "'";
            return "has " + shown + " in its " + std::string(part) + ": percent-encode it";
        }
    }
    return std::nullopt;
}

} // namespace

std::variant<McpEndpoint, std::string> check_mcp_url(std::string_view url) {
    if (url.size() > max_url_length) return "is longer than 2048 characters";
    const auto separator = url.find("://");
    if (separator == std::string_view::npos)
        return "is not an absolute URL: write \"https://host/path\"";
    const auto scheme = url.substr(0, separator);
    if (scheme != "http" && scheme != "https")
        return "has scheme " + json_quoted(scheme, 16) +
               ": an MCP server is reached over \"https://\" or \"http://\" (lower case)";
    if (url.find('#') != std::string_view::npos)
        return "has a fragment ('#'), which never reaches a server: remove it";

    auto rest = url.substr(separator + 3);
    const auto authority_end = rest.find_first_of("/?");
    const auto authority = rest.substr(0, authority_end);
    if (authority.find('@') != std::string_view::npos)
        return "holds user info before '@': credentials belong in `secrets`, not in the URL";
    if (authority.starts_with('['))
        return "has an IPv6 address, which the spec does not support: name the host";

    const auto colon = authority.find(':');
    const auto host_text = authority.substr(0, colon);
    McpEndpoint endpoint{
        std::string(scheme), {}, static_cast<std::uint16_t>(scheme == "https" ? 443 : 80), "/"};
    if (host_text.empty()) return "has no host: write \"https://host/path\"";
    auto host = check_host(host_text, false);
    if (auto* problem = std::get_if<HostProblem>(&host))
        return "has host " + json_quoted(host_text) + ": it " + problem->message;
    endpoint.host = std::get<std::string>(host);
    if (colon != std::string_view::npos) {
        auto port = check_port(authority.substr(colon + 1));
        if (auto* problem = std::get_if<HostProblem>(&port)) return problem->message;
        endpoint.port = std::get<std::uint16_t>(port);
    }

    rest =
        authority_end == std::string_view::npos ? std::string_view() : rest.substr(authority_end);
    const auto query_start = rest.find('?');
    const auto path = rest.substr(0, query_start);
    if (auto problem = path_problem(path, false)) return *problem;
    if (query_start != std::string_view::npos)
        if (auto problem = path_problem(rest.substr(query_start + 1), true)) return *problem;
    if (!path.empty()) endpoint.path = std::string(path);
    return endpoint;
}

} // namespace osf::spec_detail
