// filter_json_response: an application/json answer from an MCP server.
#include "mcp/json_reader.hpp"
#include "mcp/mcp_filter.hpp"
#include "mcp/tools_pruner.hpp"

#include <algorithm>

namespace osf::mcp {

namespace {

std::optional<FilteredBody> filter(const ServerPolicy& policy, std::string_view body,
                                   const ToolsListIdMatcher& is_tools_list_answer) {
    if (body.size() > policy.max_message_bytes) return std::nullopt;
    JsonReadResult read = read_strict_json(body);
    if (!read.value || !(read.value->is_object() || read.value->is_array())) return std::nullopt;
    auto removed = prune_tools(*read.value, policy.tools, is_tools_list_answer);
    if (!removed) return std::nullopt;
    return FilteredBody{write_json(*read.value), *removed};
}

} // namespace

std::optional<FilteredBody> filter_json_response(const ServerPolicy& policy,
                                                 std::string_view body) {
    return filter(policy, body, {});
}

std::optional<FilteredBody> filter_json_response(const ServerPolicy& policy, std::string_view body,
                                                 const std::vector<std::string>& tools_list_ids) {
    return filter(policy, body, [&tools_list_ids](const Json& id) {
        return std::find(tools_list_ids.begin(), tools_list_ids.end(), write_json(id)) !=
               tools_list_ids.end();
    });
}

} // namespace osf::mcp
