#include "host_syntax.hpp"
#include "json_path.hpp"
#include "osf/spec_limits.hpp"
#include "spec_sections.hpp"

#include <map>

namespace osf::spec_detail {

std::variant<TcpDestination, std::string> check_tcp_entry(const std::string& text) {
    const std::string shown = json_quoted(text);
    if (text.empty()) return "is empty: write a host and a port, as \"github.com:22\"";
    if (text.find("://") != std::string::npos)
        return shown + " is not host:port: write the host and port alone, as \"github.com:22\"";
    if (text.size() > spec_limits::max_egress_entry_length)
        return shown + " is longer than 260 characters";
    if (text.starts_with('['))
        return shown + " is an IPv6 address, which tcp does not support: name the host";
    if (text.find_first_of("@/?#") != std::string::npos)
        return shown + " is not host:port: write the host and port alone, as \"github.com:22\"";
    const auto colon = text.find(':');
    // Without a port a TCP entry would open every port of the host: it is required.
    if (colon == std::string::npos)
        return shown + " has no port: a tcp entry names one, as " + json_quoted(text + ":22");
    if (colon + 1 == text.size())
        return shown + " has an empty port after ':'; a tcp entry names one, as " +
               json_quoted(text + "22");
    if (text.find(':', colon + 1) != std::string::npos)
        return shown + " has more than one ':'; write \"host:port\"";
    auto host = check_host(std::string_view(text).substr(0, colon), true);
    if (auto* problem = std::get_if<HostProblem>(&host)) return shown + " " + problem->message;
    auto port = check_port(std::string_view(text).substr(colon + 1));
    if (auto* problem = std::get_if<HostProblem>(&port)) return shown + " " + problem->message;
    return TcpDestination{std::get<std::string>(host), std::get<std::uint16_t>(port)};
}

void check_tcp(const nlohmann::json& value, const SpecCheck& check, Spec& spec) {
    const std::string path = "$.tcp";
    if (!check_collection(value, check, path, Shape::array,
                          "an array of \"host:port\" destinations, as [\"github.com:22\"]",
                          spec_limits::max_egress_entries, "entries"))
        return;
    std::map<std::pair<std::string, std::uint16_t>, std::size_t> first_seen;
    for (std::size_t i = 0; i < value.size(); ++i) {
        const std::string at = index_path(path, i);
        if (!value[i].is_string()) {
            check.fail(at, "must be a string \"host:port\", as \"github.com:22\"; got " +
                               describe_type(value[i]));
            continue;
        }
        auto entry = check_tcp_entry(value[i].get_ref<const std::string&>());
        if (auto* problem = std::get_if<std::string>(&entry)) {
            check.fail(at, *problem);
            continue;
        }
        auto& destination = std::get<TcpDestination>(entry);
        const auto [seen, fresh] =
            first_seen.emplace(std::pair{destination.host, destination.port}, i);
        if (!fresh) {
            check.fail(at, json_quoted(value[i].get<std::string>()) +
                               " is listed twice (first at " + index_path(path, seen->second) +
                               ")");
            continue;
        }
        spec.tcp.push_back(std::move(destination));
    }
}

} // namespace osf::spec_detail
