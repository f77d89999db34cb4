// Removing undeclared tools from tools/list answers. Applied to every
// JSON-RPC response whose result holds a "tools" array, whatever its id: the
// proxy cannot always tell which request an answer belongs to, and pruning a
// list that was not a tools/list answer costs nothing (fail closed).
#pragma once

#include "mcp/json_reader.hpp"

#include <cstddef>
#include <functional>
#include <optional>
#include <set>
#include <string>

namespace osf::mcp {

// Says whether a response id is known to answer a tools/list request.
using ToolsListIdMatcher = std::function<bool(const Json& id)>;

// Prunes `message` (a response object or a batch array) in place, keeping
// every other field and the order of the kept tools. A tool is kept only when
// it is an object whose "name" is a declared string. Returns how many tools
// were removed, or nullopt when a response that `is_tools_list_answer` claims
// has a result without a "tools" array (unreadable: fail closed).
std::optional<std::size_t> prune_tools(Json& message, const std::set<std::string>& allowed,
                                       const ToolsListIdMatcher& is_tools_list_answer = {});

} // namespace osf::mcp
