// What an operator can act on among a log's refusals: for each request the
// policy refused, the egress entry or MCP tool that would have let it
// through, once each, spelled as `allow` takes it ("registry.npmjs.org",
// "git.example.com:8443", "tcp:git.example.com:22", "--mcp wiki:delete"). A refusal by a
// host's rules gives, on a line starting with "# " (advice for a person, not an argument of
// `allow`), the rule that would allow it and where it goes ("# api.example.com: add
// {"methods":["POST"],"paths":["/a"],"allow":true} to its rules ..."); one by
// a tool's argument rules, the rule to widen. Other refusals (malformed
// requests, secrets in the clear, limits) are not a matter of policy and are
// left out. Pure: fed one log line at a time, for `egress-log --refused`.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace osf::egress_log {

class RefusedEntries {
public:
    // The entry `line` (one JSON line of the log) needed, when it is a policy
    // refusal not seen before; nullopt otherwise.
    std::optional<std::string> add(std::string_view line);

private:
    std::set<std::string> seen_;
};

} // namespace osf::egress_log
