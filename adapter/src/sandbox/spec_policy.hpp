// The policy a sandbox's stored spec puts in force (what allow and revoke
// rewrite), as `list -o json` shows it: {"egress": [entries as the spec
// writes them, one with rules as its object], "mcp": {"<server>": [its allowed tools, one with
// argument rules as its object]}, and "tcp": ["host:port", ...] when the spec lists raw TCP
// destinations}. Pure.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

namespace osf::sandbox {

// `spec_text`'s egress entries and, per declared MCP server, its tools, in the
// spec's order; fields it lacks are empty. null when the text is not a JSON
// object (a spec that could not be read shows as unknown, not as "nothing").
nlohmann::json spec_policy(std::string_view spec_text);

} // namespace osf::sandbox
