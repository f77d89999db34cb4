// Changing what a running sandbox may reach: an `allow` or `revoke` of egress
// entries and MCP tools applied to its spec's text, giving a new spec that the
// same validator checks; and the difference between two specs, which is what
// the proxy applies and logs. Only `egress` and the declared servers' `tools`
// change while a sandbox runs: everything else (secrets included) needs a new
// sandbox. Pure; shared by both CLIs and the proxy.
#pragma once

#include "osf/spec.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace osf::policy_edit {

enum class Direction { allow, revoke };

struct Edit {
    Direction direction = Direction::allow;
    // Egress entries as the spec writes them: "host[:port]", or an entry with
    // rules as JSON text ({"host", "rules"}). Allowing an entry with rules sets
    // that host's rules (replacing those it had, or narrowing a host allowed
    // whole); allowing a plain host that has rules allows it whole; a revoke
    // removes the host, rules and all. An entry written "tcp:host:port" is a
    // `tcp` destination (tcp_prefix): allowed or revoked in the spec's `tcp`.
    std::vector<std::string> hosts;
    // "server:tool", a declared MCP server's tool, or "server:{"name", "arguments"}"
    // (a tool with argument rules, as the spec writes it): allowing it sets that
    // tool's rules (replacing those it had, or narrowing a tool allowed whole);
    // allowing a plain name allows the tool whole; a revoke removes it, rules and all.
    std::vector<std::string> tools;
};

struct EditResult {
    std::string spec_text;              // the new spec (the old one when nothing changed)
    std::vector<std::string> errors;    // one line each, naming the entry and the fix
    std::vector<std::string> changed;   // entries and "server:tool"s the edit changed
    std::vector<std::string> unchanged; // already allowed (allow) or absent (never: an error)
    bool ok() const { return errors.empty(); }
};

// Applies `edit` to a valid spec's text. Allowing an entry already there
// changes nothing (`unchanged`); revoking one that is not there is an error.
EditResult apply(std::string_view spec_text, const Edit& edit);

// An egress entry as the policy compares them: "host" or "host:port", the host
// canonical (lower case, no trailing dot).
std::string entry_name(const EgressRule& rule);

// A `tcp` destination as allow, revoke and the policy lines name it: "tcp:host:port".
inline constexpr std::string_view tcp_prefix = "tcp:";
std::string entry_name(const TcpDestination& destination);

struct Difference {
    // entry_name()s (`tcp` destinations too); a host whose rules changed is among allowed_hosts.
    std::vector<std::string> allowed_hosts, revoked_hosts;
    // "server:tool"; a tool whose argument rules changed is among allowed_tools.
    std::vector<std::string> allowed_tools, revoked_tools;
    // A field other than `egress` and the servers' `tools` that differs, by
    // JSONPath ("$.secrets"); empty when none does.
    std::string other;
    bool empty() const {
        return allowed_hosts.empty() && revoked_hosts.empty() && allowed_tools.empty() &&
               revoked_tools.empty();
    }
};

// What changes from `before` to `after`, two valid specs' texts.
Difference difference(std::string_view before, std::string_view after);

} // namespace osf::policy_edit
