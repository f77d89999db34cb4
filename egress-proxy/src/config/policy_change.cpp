#include "config/policy_change.hpp"

#include "osf/strict_json.hpp"

#include <nlohmann/json.hpp>

namespace osf::config {

PolicyChange plan_policy_change(const EgressRules& current, std::string_view body,
                                const Limits& limits) {
    PolicyChange out;
    if (body.size() > max_policy_request_bytes) {
        out.message = "the request is over " + std::to_string(max_policy_request_bytes) + " bytes";
        return out;
    }
    const auto read = strict_json::read<nlohmann::json>(body, {.max_depth = 8});
    if (!read.ok() || !read.document.is_object() || !read.document.contains("spec") ||
        !read.document["spec"].is_string() ||
        (read.document.contains("by") && !read.document["by"].is_string())) {
        out.message = "the body must be JSON {\"spec\": \"<the new spec>\", \"by\": \"<who "
                      "asks>\"}";
        return out;
    }
    const std::string& spec_text = read.document["spec"].get_ref<const std::string&>();
    out.by = read.document.value("by", std::string());
    if (out.by.size() > max_by_bytes) out.by.resize(max_by_bytes);
    auto parsed = osf::parse_running_spec(spec_text);
    if (!parsed.ok()) {
        out.message = "the new spec is not valid: " + parsed.errors.front().to_string();
        return out;
    }
    out.difference = osf::policy_edit::difference(current.spec_text, spec_text);
    if (!out.difference.other.empty()) {
        out.status = 409;
        out.message = "only egress and the MCP servers' tools change while a sandbox runs; " +
                      out.difference.other +
                      " differs (secrets, MCP servers and the rest need a new sandbox)";
        return out;
    }
    out.status = 200;
    if (out.difference.empty()) return out;
    out.rules = make_egress_rules(spec_text, std::move(*parsed.spec), current.aliases, limits,
                                  current.generation + 1);
    return out;
}

std::string policy_answer(const PolicyChange& change, std::uint64_t generation) {
    const auto& d = change.difference;
    return nlohmann::json{{"generation", generation},
                          {"allowed", d.allowed_hosts},
                          {"revoked", d.revoked_hosts},
                          {"toolsAllowed", d.allowed_tools},
                          {"toolsRevoked", d.revoked_tools}}
               .dump() +
           "\n";
}

} // namespace osf::config
