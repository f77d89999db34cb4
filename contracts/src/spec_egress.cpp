#include "host_syntax.hpp"
#include "json_path.hpp"
#include "osf/spec_limits.hpp"
#include "spec_sections.hpp"

#include <map>

namespace osf::spec_detail {

namespace {

// What a URL-shaped entry should have been: "https://user@x.com:8443/a" -> "x.com:8443".
std::string host_of_url(std::string_view text) {
    auto rest = text.substr(text.find("://") + 3);
    rest = rest.substr(0, rest.find_first_of("/?#"));
    if (const auto at = rest.rfind('@'); at != std::string_view::npos) rest.remove_prefix(at + 1);
    return std::string(rest);
}

} // namespace

// The problem with one entry's host text, or the rule it makes.
std::variant<EgressRule, std::string> check_egress_host(const std::string& text) {
    const std::string shown = json_quoted(text);
    if (text.empty()) return "is empty: write a host name, as \"api.example.com\"";
    if (text.find("://") != std::string::npos) {
        const std::string host = host_of_url(text);
        return shown + " is not a host name: write the host alone" +
               (host.empty() ? std::string() : ", as " + json_quoted(host));
    }
    if (text.size() > spec_limits::max_egress_entry_length)
        return shown + " is longer than 260 characters";
    if (text.starts_with('['))
        return shown + " is an IPv6 address, which egress does not support: name the host";
    if (const auto at = text.find('@'); at != std::string::npos)
        return shown + " holds user info before '@': write the host alone, as " +
               json_quoted(
                   text.substr(at + 1).substr(0, text.find_first_of("/?#", at + 1) - at - 1));
    if (const auto slash = text.find_first_of("/?#"); slash != std::string::npos)
        return shown + " is not a host name: egress allows whole hosts, not paths; write " +
               json_quoted(text.substr(0, slash));

    const auto colon = text.find(':');
    if (colon != std::string::npos && text.find(':', colon + 1) != std::string::npos)
        return shown + " has more than one ':'; write \"host\" or \"host:port\"";
    auto host = check_host(std::string_view(text).substr(0, colon), true);
    if (auto* problem = std::get_if<HostProblem>(&host)) return shown + " " + problem->message;
    EgressRule rule;
    rule.host = std::get<std::string>(host);
    if (colon != std::string::npos) {
        auto port = check_port(std::string_view(text).substr(colon + 1));
        if (auto* problem = std::get_if<HostProblem>(&port)) return shown + " " + problem->message;
        rule.port = std::get<std::uint16_t>(port);
    }
    return rule;
}

void check_egress(const nlohmann::json& value, const SpecCheck& check, Spec& spec) {
    const std::string path = "$.egress";
    if (!check_collection(value, check, path, Shape::array,
                          "an array of host names, as [\"api.example.com\", "
                          "\"*.githubusercontent.com\"]",
                          spec_limits::max_egress_entries, "entries"))
        return;
    std::map<std::string, std::size_t> first_seen;
    // Where each host[:port] was first listed, and whether that entry has rules:
    // one host cannot be allowed whole and by rules at once.
    std::map<std::pair<std::string, std::optional<std::uint16_t>>, std::pair<std::size_t, bool>>
        hosts;
    for (std::size_t i = 0; i < value.size(); ++i) {
        const std::string at = index_path(path, i);
        std::optional<EgressRule> checked;
        if (value[i].is_object()) {
            checked = check_egress_object(value[i], at, check);
            if (!checked) continue;
        } else if (!value[i].is_string()) {
            check.fail(at, "must be a string, a host name as \"api.example.com\", or an object "
                           "{\"host\", \"rules\"}; got " +
                               describe_type(value[i]));
            continue;
        } else {
            const auto& text = value[i].get_ref<const std::string&>();
            if (const auto [seen, fresh] = first_seen.emplace(text, i); !fresh) {
                check.fail(at, json_quoted(text) + " is listed twice (first at " +
                                   index_path(path, seen->second) + ")");
                continue;
            }
            auto entry = check_egress_host(text);
            if (auto* problem = std::get_if<std::string>(&entry)) {
                check.fail(at, *problem);
                continue;
            }
            checked = std::move(std::get<EgressRule>(entry));
        }
        auto& rule = *checked;
        const auto [seen, fresh] =
            hosts.emplace(std::pair{rule.host, rule.port}, std::pair{i, rule.has_rules});
        if (!fresh && (rule.has_rules || seen->second.second)) {
            check.fail(
                at,
                json_quoted(rule.port ? rule.host + ":" + std::to_string(*rule.port) : rule.host) +
                    " is listed twice (first at " + index_path(path, seen->second.first) +
                    "): write one entry for a host, its rules in one list");
            continue;
        }
        // "Example.com" and "example.com." are the rule "example.com" already has.
        if (fresh) spec.egress.push_back(std::move(rule));
    }
}

} // namespace osf::spec_detail
