// filter_json_response: an application/json answer from an MCP server.
#include "mcp/mcp_filter.hpp"
#include "mcp/tools_pruner.hpp"

#include <algorithm>

namespace osf::mcp {

namespace {

std::optional<FilteredBody> filter(const ServerPolicy& policy, std::string_view body,
                                   const ToolsListIdMatcher& is_tools_list_answer) {
    if (body.size() > policy.max_message_bytes) return std::nullopt;
    auto pruned = prune_tools(body, policy.tools, is_tools_list_answer);
    if (!pruned) return std::nullopt;
    return FilteredBody{std::move(pruned->text), pruned->removed};
}

} // namespace

std::optional<FilteredBody> filter_json_response(const ServerPolicy& policy,
                                                 std::string_view body) {
    return filter(policy, body, {});
}

std::optional<FilteredBody> filter_json_response(const ServerPolicy& policy, std::string_view body,
                                                 const std::vector<std::string>& tools_list_ids) {
    return filter(policy, body, [&tools_list_ids](std::string_view id) {
        return std::find(tools_list_ids.begin(), tools_list_ids.end(), id) != tools_list_ids.end();
    });
}

} // namespace osf::mcp
