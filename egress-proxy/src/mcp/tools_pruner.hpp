// Removing undeclared tools from tools/list answers. Applied to every
// JSON-RPC response whose result holds a "tools" array, whatever its id: the
// proxy cannot always tell which request an answer belongs to, and pruning a
// list that was not a tools/list answer costs nothing (fail closed).
#pragma once

#include "mcp/json_tape.hpp"

#include <cstddef>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace osf::mcp {

// Says whether a response id (in canonical_json's spelling, e.g. `1` or
// `"a"`, as in RequestVerdict::tools_list_ids) is known to answer a tools/list request.
using ToolsListIdMatcher = std::function<bool(std::string_view id)>;

struct PrunedText {
    std::string text;        // the message without the removed tools
    std::size_t removed = 0; // how many tools were removed
};

// Reads `text` as strict JSON (a response object or a batch array) and removes
// every tool that is not an object whose "name" is a declared string. Every
// other byte is kept as the server sent it, except the whitespace inside a
// "tools" array that lost an element. Returns nullopt when the text is not
// strict JSON, is not an object or array, or when a response that
// `is_tools_list_answer` claims has a result without a "tools" array.
std::optional<PrunedText> prune_tools(std::string_view text, const std::set<std::string>& allowed,
                                      const ToolsListIdMatcher& is_tools_list_answer = {});

// The same for a stream of many small messages, without allocating per message:
// reads `text` into `tape` (reusing its storage) and, only when tools were
// removed, writes the pruned text to `pruned` (replacing its content). Returns
// how many tools were removed (0: `text` stays as it is), nullopt as above.
std::optional<std::size_t> prune_tools_into(std::string_view text,
                                            const std::set<std::string>& allowed,
                                            const ToolsListIdMatcher& is_tools_list_answer,
                                            JsonTape& tape, std::string& pruned);

} // namespace osf::mcp
