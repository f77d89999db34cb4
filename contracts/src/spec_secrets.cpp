#include "json_path.hpp"
#include "osf/spec_limits.hpp"
#include "secret_ref.hpp"
#include "spec_sections.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace osf::spec_detail {

namespace {

constexpr std::string_view value_forms =
    "must be a string \"ref:env/<NAME>\", \"ref:file/<name>\" or \"ref:openbao/<path>\", or an "
    "object {\"ref\": \"ref:...\", \"hosts\": [\"api.example.com\"]}, or an AWS secret "
    "{\"kind\": \"aws\", ...}";

constexpr std::array<std::pair<std::string_view, SecretPlace>, 5> place_names = {{
    {"header", SecretPlace::header},
    {"basic", SecretPlace::basic},
    {"query", SecretPlace::query},
    {"path", SecretPlace::path},
    {"body", SecretPlace::body},
}};

// `ref` of either form; records its problem at `at`.
std::optional<SecretRef> checked_ref(const nlohmann::json& ref, const std::string& at,
                                     const SpecCheck& check) {
    if (!ref.is_string()) {
        check.fail(at, std::string(value_forms) + "; got " + describe_type(ref));
        return std::nullopt;
    }
    auto checked = check_secret_ref(ref.get_ref<const std::string&>());
    if (auto* problem = std::get_if<std::string>(&checked)) {
        check.fail(at, "the value " + *problem);
        return std::nullopt;
    }
    return std::move(std::get<SecretRef>(checked));
}

bool check_hosts(const nlohmann::json& hosts, const std::string& at, const SpecCheck& check,
                 SecretBinding& binding) {
    if (!hosts.is_array() || hosts.empty()) {
        check.fail(at, "must be a non-empty array of hosts the secret is for, as "
                       "[\"api.github.com\"]; got " +
                           describe_type(hosts));
        return false;
    }
    if (hosts.size() > spec_limits::max_secret_hosts) {
        check.fail(at, "has " + std::to_string(hosts.size()) + " hosts; at most " +
                           std::to_string(spec_limits::max_secret_hosts) + " are allowed");
        return false;
    }
    bool good = true;
    for (std::size_t i = 0; i < hosts.size(); ++i) {
        const std::string entry_at = index_path(at, i);
        if (!hosts[i].is_string()) {
            check.fail(entry_at, "must be a string, a host as \"api.example.com\"; got " +
                                     describe_type(hosts[i]));
            good = false;
            continue;
        }
        auto entry = check_egress_host(hosts[i].get<std::string>());
        if (auto* problem = std::get_if<std::string>(&entry)) {
            check.fail(entry_at, *problem);
            good = false;
            continue;
        }
        auto& rule = std::get<EgressRule>(entry);
        const bool twice =
            std::any_of(binding.hosts.begin(), binding.hosts.end(), [&](const EgressRule& seen) {
                return seen.host == rule.host && seen.port == rule.port;
            });
        if (twice) {
            check.fail(entry_at, json_quoted(hosts[i].get<std::string>()) + " is listed twice");
            good = false;
            continue;
        }
        binding.hosts.push_back(std::move(rule));
    }
    return good;
}

bool check_places(const nlohmann::json& in, const std::string& at, const SpecCheck& check,
                  SecretBinding& binding) {
    constexpr std::string_view names = "\"header\", \"basic\", \"query\", \"path\" or \"body\"";
    if (!in.is_array() || in.empty()) {
        check.fail(at, "must be a non-empty array of places, each " + std::string(names) +
                           "; got " + describe_type(in));
        return false;
    }
    binding.in = 0;
    bool good = true;
    for (std::size_t i = 0; i < in.size(); ++i) {
        const std::string entry_at = index_path(at, i);
        const auto found = !in[i].is_string()
                               ? place_names.end()
                               : std::find_if(place_names.begin(), place_names.end(),
                                              [&](const auto& p) { return p.first == in[i]; });
        if (found == place_names.end()) {
            check.fail(entry_at, "must be " + std::string(names) + "; got " +
                                     (in[i].is_string() ? json_quoted(in[i].get<std::string>())
                                                        : describe_type(in[i])));
            good = false;
            continue;
        }
        if (binding.allows(found->second)) {
            check.fail(entry_at, json_quoted(found->first) + " is listed twice");
            good = false;
            continue;
        }
        binding.in |= secret_places(found->second);
    }
    return good;
}

// The object form of a reference bound to hosts: it has no `kind` (an object
// with a kind and no ref is an AWS secret, spec_aws_secret.cpp).
std::optional<std::pair<SecretRef, SecretBinding>>
checked_binding(const nlohmann::json& value, const std::string& at, const SpecCheck& check) {
    check_known_fields(value, at, {"ref", "hosts", "in", "require", "kind"},
                       "a bound secret's fields are ref, hosts, in and require", check);
    bool good = true;
    if (const auto kind = value.find("kind"); kind != value.end()) {
        check.fail(
            member_path(at, "kind"),
            "a bound secret has no kind" +
                (kind->is_string() ? " (got " + json_quoted(kind->get<std::string>()) + ")"
                                   : std::string()) +
                ": leave \"kind\" out for a reference bound to hosts; an AWS secret is "
                "{\"kind\": \"aws\", \"accessKeyId\", \"secretAccessKey\", ...} without \"ref\"");
        good = false;
    }
    std::optional<SecretRef> ref;
    if (const auto it = value.find("ref"); it == value.end()) {
        check.fail(at, "has no \"ref\": name where the secret is, as \"ref:env/GITHUB_TOKEN\"");
        good = false;
    } else if (ref = checked_ref(*it, member_path(at, "ref"), check); !ref) {
        good = false;
    }
    SecretBinding binding;
    binding.in = secret_places(SecretPlace::header);
    if (const auto it = value.find("hosts"); it == value.end()) {
        check.fail(at, "has no \"hosts\": name the hosts the secret is for, as "
                       "[\"api.github.com\"] (or write the reference alone to send it to every "
                       "egress host)");
        good = false;
    } else {
        good = check_hosts(*it, member_path(at, "hosts"), check, binding) && good;
    }
    if (const auto it = value.find("in"); it != value.end())
        good = check_places(*it, member_path(at, "in"), check, binding) && good;
    if (const auto it = value.find("require"); it != value.end()) {
        if (!it->is_boolean()) {
            check.fail(member_path(at, "require"),
                       "must be true or false; got " + describe_type(*it));
            good = false;
        } else {
            binding.require = it->get<bool>();
        }
    }
    if (!good || !ref) return std::nullopt;
    return std::make_pair(std::move(*ref), std::move(binding));
}

// A bound host is covered when the sandbox may reach it: an egress entry
// matches it (a wildcard covers a narrower wildcard), or it is an MCP
// server's host. Ports: either side may leave it open.
bool covered(const EgressRule& bound, const Spec& spec) {
    auto ports_meet = [&](std::optional<std::uint16_t> port) {
        return !bound.port || !port || *bound.port == *port;
    };
    for (const auto& rule : spec.egress) {
        if (!ports_meet(rule.port)) continue;
        if (rule.host == bound.host) return true;
        if (!rule.wildcard()) continue;
        const std::string_view suffix = std::string_view(rule.host).substr(1); // ".example.com"
        const std::string_view named =
            bound.wildcard() ? std::string_view(bound.host).substr(1) : bound.host;
        if (named.size() > suffix.size() && named.ends_with(suffix)) return true;
    }
    return std::any_of(spec.mcp.begin(), spec.mcp.end(), [&](const McpServer& server) {
        return !bound.wildcard() && server.host == bound.host && ports_meet(server.port);
    });
}

} // namespace

void check_secrets(const nlohmann::json& value, const SpecCheck& check, Spec& spec) {
    const std::string path = "$.secrets";
    if (!check_collection(value, check, path, Shape::object,
                          "an object of NAME -> reference, as {\"NPM_TOKEN\": "
                          "\"ref:env/NPM_TOKEN\"}",
                          spec_limits::max_secrets, "secrets"))
        return;
    for (const auto& [name, entry] : value.items()) {
        const std::string at = member_path(path, name);
        bool good = true;
        if (!is_secret_name(name) || name.size() > spec_limits::max_secret_name_length) {
            check.fail(at, json_quoted(name) +
                               " is not a secret name: use upper-case letters, digits and '_', not "
                               "starting with a digit, at most " +
                               std::to_string(spec_limits::max_secret_name_length) +
                               " characters, as " + json_quoted(suggest_secret_name(name)));
            good = false;
        } else if (spec_limits::is_reserved_env_name(name)) {
            check.fail(at, "is a variable sandbox-kubernetes sets so that the sandbox reaches the "
                           "egress proxy; choose another name");
            good = false;
        }
        // An object with a kind and no ref is a secret of that kind (AWS); one
        // with a ref is a bound secret, whose checker refuses a kind.
        if (entry.is_object() && entry.contains("kind") && !entry.contains("ref")) {
            if (good) check_aws_secret(entry, at, name, check, spec);
            continue;
        }
        if (entry.is_object()) {
            auto bound = checked_binding(entry, at, check);
            if (good && bound) {
                spec.secrets.emplace(name, std::move(bound->first));
                spec.secret_bindings.emplace(name, std::move(bound->second));
            }
            continue;
        }
        auto ref = checked_ref(entry, at, check);
        if (good && ref) {
            spec.secrets.emplace(name, std::move(*ref));
            spec.secret_bindings.emplace(name, SecretBinding{});
        }
    }
}

void check_secret_hosts(const nlohmann::json& document, const SpecCheck& check, const Spec& spec) {
    for (const auto& [name, binding] : spec.secret_bindings) {
        // Only a secret read whole has its hosts here, in the order written.
        const auto& written = document.at("secrets").at(name);
        for (std::size_t i = 0; i < binding.hosts.size(); ++i) {
            if (covered(binding.hosts[i], spec)) continue;
            check.fail(index_path(member_path(member_path("$.secrets", name), "hosts"), i),
                       json_quoted(written["hosts"][i].get<std::string>()) +
                           " is neither allowed by egress nor an MCP server's host: add it to "
                           "egress, or bind the secret to hosts the sandbox may reach");
        }
    }
}

} // namespace osf::spec_detail

namespace osf {

std::vector<std::string> spec_warnings(const Spec& spec) {
    std::vector<std::string> lines;
    for (const auto& [name, binding] : spec.secret_bindings)
        if (!binding.bound())
            lines.push_back("warning: secret " + name +
                            " goes to every egress host; bind it to the hosts it is for: "
                            "{\"ref\": \"...\", \"hosts\": [\"api.example.com\"]}");
    return lines;
}

} // namespace osf
