#include "mcp/tools_pruner.hpp"

namespace osf::mcp {

namespace {

bool is_allowed_tool(const Json& tool, const std::set<std::string>& allowed) {
    if (!tool.is_object()) return false;
    auto name = tool.find("name");
    return name != tool.end() && name->is_string() &&
           allowed.contains(name->get_ref<const std::string&>());
}

std::optional<std::size_t> prune_response(Json& response, const std::set<std::string>& allowed,
                                          const ToolsListIdMatcher& is_tools_list_answer) {
    if (!response.is_object()) return 0;
    auto result = response.find("result");
    if (result == response.end()) return 0;
    bool expected =
        is_tools_list_answer && response.contains("id") && is_tools_list_answer(response.at("id"));
    auto tools = result->is_object() ? result->find("tools") : result->end();
    if (!result->is_object() || tools == result->end() || !tools->is_array()) {
        if (expected) return std::nullopt;
        return 0;
    }
    Json kept = Json::array();
    std::size_t removed = 0;
    for (auto& tool : *tools) {
        if (is_allowed_tool(tool, allowed)) {
            kept.push_back(std::move(tool));
        } else {
            ++removed;
        }
    }
    *tools = std::move(kept);
    return removed;
}

} // namespace

std::optional<std::size_t> prune_tools(Json& message, const std::set<std::string>& allowed,
                                       const ToolsListIdMatcher& is_tools_list_answer) {
    if (!message.is_array()) return prune_response(message, allowed, is_tools_list_answer);
    std::size_t removed = 0;
    for (auto& element : message) {
        auto count = prune_response(element, allowed, is_tools_list_answer);
        if (!count) return std::nullopt;
        removed += *count;
    }
    return removed;
}

} // namespace osf::mcp
