// The sandbox spec's limits and reserved names, as contracts/README.md and
// contracts/sandbox-spec.schema.json state them.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

namespace osf::spec_limits {

inline constexpr std::size_t max_spec_bytes = 1024 * 1024; // a ConfigMap holds 1 MiB
inline constexpr std::size_t max_template_length = 1024;
inline constexpr std::size_t max_template_name_length = 253; // a Kubernetes object name
inline constexpr std::size_t max_env_vars = 256;
inline constexpr std::size_t max_env_name_length = 128;
inline constexpr std::size_t max_env_value_length = 32768;
inline constexpr std::size_t max_egress_entries = 256;
inline constexpr std::size_t max_egress_entry_length = 260; // 253 + "." + ":65535"
// An egress entry's `rules` (egress entries written as objects).
inline constexpr std::size_t max_egress_rules = 256;
inline constexpr std::size_t max_rule_methods = 16;
inline constexpr std::size_t max_rule_paths = 64;
inline constexpr std::size_t max_rule_path_length = 1024;
inline constexpr std::size_t max_rule_query_parameters = 8;
inline constexpr std::size_t max_rule_query_length = 256; // a parameter's name or value
inline constexpr std::size_t max_rule_name_length = 63;
inline constexpr std::size_t max_reason_length = 512;
inline constexpr std::size_t max_secrets = 64;
inline constexpr std::size_t max_secret_name_length = 128;
inline constexpr std::size_t max_secret_hosts = 64; // a bound secret's `hosts`
inline constexpr std::size_t max_mcp_servers = 32;
inline constexpr std::size_t max_mcp_name_length = 63;
inline constexpr std::size_t max_mcp_tools = 256;
inline constexpr std::size_t max_mcp_tool_length = 128;
// A tool's `arguments` rules: how many, and the size of what they compare.
inline constexpr std::size_t max_tool_arguments = 32;
inline constexpr std::size_t max_tool_argument_name_length = 128;
inline constexpr std::size_t max_tool_argument_values = 256;        // `in`
inline constexpr std::size_t max_tool_argument_value_length = 1024; // a value, prefix or pattern
// RE2's memory for one compiled `matches` pattern (its default is 8 MiB): a
// pattern that needs more is refused when the spec is read.
inline constexpr std::size_t max_tool_pattern_memory = 1024 * 1024;
// A sandbox's labels: as many as an object carries comfortably beside the adapter's own.
inline constexpr std::size_t max_labels = 64;
// Kubernetes' range for runAsUser, runAsGroup and fsGroup.
inline constexpr long long max_user_id = 2147483647;

// Variables sandbox-kubernetes sets in the sandbox so that it reaches the
// egress proxy and trusts its CA. Neither `env` nor `secrets` may name them.
inline constexpr std::array<std::string_view, 11> reserved_env_names = {
    "HTTP_PROXY",         "HTTPS_PROXY",    "NO_PROXY",      "http_proxy",
    "https_proxy",        "no_proxy",       "SSL_CERT_FILE", "NODE_EXTRA_CA_CERTS",
    "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "GIT_SSL_CAINFO"};

inline constexpr bool is_reserved_env_name(std::string_view name) {
    for (const auto reserved : reserved_env_names)
        if (reserved == name) return true;
    return false;
}

} // namespace osf::spec_limits
