// The tightest spec that would have let through what a log shows the sandbox
// did: the hosts it reached, and on each, rules by method and path,
// generalised where a segment varies; the MCP tools it called. For a person to
// review, not to apply blindly: the log holds neither queries (a git rule's
// `service=` is for the reviewer to add) nor MCP arguments (argument rules
// neither), and a path seen once is allowed exactly. Pure: fed one log line
// at a time, for `egress-log --suggest` and `egress-proxy log suggest`.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace osf::egress_log {

class SpecSuggestion {
public:
    // Reads one line of the log. Counted: request lines let through (allowed,
    // or an error after the policy allowed them), and in audit mode those the
    // policy would have refused; raw TCP tunnels, and SOCKS5 tunnels refused
    // for want of a `tcp` entry (a `tcp` entry each: no rule narrows a raw
    // tunnel, and the refusal names exactly the host and port asked for).
    // Other refusals, start, checkpoint and policy lines are not what the
    // sandbox did.
    void add(std::string_view line);

    // {"egress": [...], "tcp": [...], "mcp": [...]}, in a spec's grammar; hosts
    // sorted; "tcp" only when a tunnel was seen.
    nlohmann::ordered_json spec() const;

    // Generalises a set of paths into patterns (pure, for tests): a segment
    // that takes three or more values, or two that both hold a digit (ids), at
    // one place among paths otherwise equal becomes '*'; a segment the spec's
    // pattern grammar cannot hold ('%', a space...) becomes '*' too; past
    // `max_patterns`, paths are cut to shorter prefixes ("/a/b/*"). A last
    // segment that varied becomes a last "/*", which the grammar reads as
    // every path below: the nearest pattern, one level wider.
    static std::vector<std::string> generalise(const std::set<std::string>& paths,
                                               std::size_t max_patterns = 64);

private:
    struct Destination {
        std::map<std::string, std::set<std::string>> paths_by_method;
        bool only_tunnels = true; // CONNECT lines only: the host, no rules to learn
    };
    struct Server {
        std::string url;
        std::set<std::string> tools;
    };
    std::map<std::string, Destination> hosts_; // "host" or "host:port"
    std::map<std::string, Server> servers_;    // by name
    std::set<std::string> tcp_;                // "host:port"
};

} // namespace osf::egress_log
