// The spec's sections, each checked on its own: every problem is recorded
// with its JSONPath, and whatever is valid is copied into the Spec.
#pragma once

#include "osf/spec.hpp"

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace osf::spec_detail {

struct SpecCheck {
    const std::map<std::string, std::string>& numbers; // JSONPath -> number as written
    std::vector<SpecError>& errors;
    void fail(std::string path, std::string message) const {
        errors.push_back({std::move(path), std::move(message)});
    }
};

void check_template(const nlohmann::json& value, const SpecCheck& check, Spec& spec);
void check_cpu(const nlohmann::json& value, const SpecCheck& check, Spec& spec);
void check_memory(const nlohmann::json& value, const SpecCheck& check, Spec& spec);
void check_env(const nlohmann::json& value, const SpecCheck& check, Spec& spec);
void check_egress(const nlohmann::json& value, const SpecCheck& check, Spec& spec);
// `tcp`: "host:port" destinations for raw TCP tunnels (spec_tcp.cpp).
void check_tcp(const nlohmann::json& value, const SpecCheck& check, Spec& spec);
// One `tcp` entry's text: the destination it makes, or why not (completing a
// sentence about the entry).
std::variant<TcpDestination, std::string> check_tcp_entry(const std::string& text);
// One egress entry's host text ("host[:port]"): the rule it makes, or why not
// (completing a sentence about the entry). Also a bound secret's `hosts` entry.
std::variant<EgressRule, std::string> check_egress_host(const std::string& text);
// One egress entry written as an object {"host", "rules", "reason"} at `at`
// (spec_egress_rules.cpp): the rule it makes, or nullopt (the errors recorded).
// `mode`, the spec's or an entry's: "enforce" or "audit"; true for audit.
bool check_mode(const nlohmann::json& value, const std::string& at, const SpecCheck& check);
std::optional<EgressRule> check_egress_object(const nlohmann::json& entry, const std::string& at,
                                              const SpecCheck& check);
void check_secrets(const nlohmann::json& value, const SpecCheck& check, Spec& spec);
// One `secrets` member of kind "aws" at `at` (spec_aws_secret.cpp); reads spec.egress.
void check_aws_secret(const nlohmann::json& value, const std::string& at, const std::string& name,
                      const SpecCheck& check, Spec& spec);
void check_mcp(const nlohmann::json& value, const SpecCheck& check, Spec& spec);
// One server's `tools` at `at` (spec_mcp_tools.cpp): names and {"name", "arguments"} objects.
bool check_mcp_tools(const nlohmann::json& value, const std::string& at, const SpecCheck& check,
                     McpServer& server);
// The workload's hardening and storage (spec_hardening.cpp).
void check_storage(const nlohmann::json& value, const SpecCheck& check, Spec& spec);
void check_tmp_size(const nlohmann::json& value, const SpecCheck& check, Spec& spec);
void check_user(const nlohmann::json& value, const SpecCheck& check, Spec& spec);
void check_read_only_root(const nlohmann::json& value, const SpecCheck& check, Spec& spec);
void check_lifetime(const nlohmann::json& value, const SpecCheck& check, Spec& spec);

void check_persistence(const nlohmann::json& value, const SpecCheck& check, Spec& spec);
void check_cache(const nlohmann::json& value, const SpecCheck& check, Spec& spec);
// `labels`: the user's labels of every object of the sandbox (spec_labels.cpp).
void check_labels(const nlohmann::json& value, const SpecCheck& check, Spec& spec);

// The prologue of every list-like section: `value` must be a JSON array
// (Shape::array) or object ("must be <shape>; got <type>") holding at most
// `limit` members ("has N <noun>; at most <limit> are allowed"). Returns
// nullopt when it is not of that kind (nothing inside to check), else whether
// it is within the limit (checking goes on either way).
enum class Shape { array, object };
std::optional<bool> check_collection(const nlohmann::json& value, const SpecCheck& check,
                                     const std::string& path, Shape shape,
                                     std::string_view expected, std::size_t limit,
                                     std::string_view noun);

// A Kubernetes object name (DNS-1123 subdomain, at most 253 characters): a
// SandboxTemplate's, a StorageClass's.
bool is_dns_subdomain(std::string_view name);
// What such a name is, for messages: "lower-case letters, digits, '-' and '.', at most 253
// characters".
std::string dns_subdomain_rule();

// Each bound secret's `hosts` against `egress` and the MCP servers (both read).
void check_secret_hosts(const nlohmann::json& document, const SpecCheck& check, const Spec& spec);

// Rules across sections that the JSON Schema cannot state.
void check_cross_section(const nlohmann::json& document, const SpecCheck& check);
// The AWS secret's rules across `secrets` and `env` (spec_aws_secret.cpp).
void check_aws_cross_section(const nlohmann::json& document, const SpecCheck& check);

// Unknown members of `object` at `path`, with the closest known name suggested.
void check_known_fields(const nlohmann::json& object, const std::string& path,
                        const std::vector<std::string>& known, std::string_view what,
                        const SpecCheck& check);

} // namespace osf::spec_detail
