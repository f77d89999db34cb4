#include "mcp/tools_pruner.hpp"

#include "mcp/json_tape.hpp"
#include "mcp/jsonrpc.hpp"

#include <vector>

namespace osf::mcp {

namespace {

using Kind = JsonTape::Kind;

struct Rewrite {
    std::uint32_t array;             // the tools array entry
    std::vector<std::uint32_t> kept; // its elements that stay
};

bool is_allowed_tool(const JsonTape& tape, std::uint32_t tool,
                     const std::set<std::string>& allowed) {
    if (tape.at(tool).kind != Kind::Object) return false;
    auto name = tape.member(tool, "name");
    return name && tape.at(*name).kind == Kind::String &&
           allowed.contains(tape.string_value(*name));
}

// False when the response is unreadable for the filter.
bool plan_response(const JsonTape& tape, std::uint32_t response,
                   const std::set<std::string>& allowed,
                   const ToolsListIdMatcher& is_tools_list_answer, std::vector<Rewrite>& rewrites,
                   std::size_t& removed) {
    // A batch holds response objects; anything else cannot be read: fail closed.
    if (tape.at(response).kind != Kind::Object) return false;
    auto result = tape.member(response, "result");
    if (!result) return true;
    bool expected = false;
    if (is_tools_list_answer) {
        auto id = tape.member(response, "id");
        expected = id && is_tools_list_answer(canonical_json(tape.span(*id)));
    }
    auto tools = tape.member(*result, "tools"); // nullopt unless result is an object
    if (!tools || tape.at(*tools).kind != Kind::Array) return !expected;
    Rewrite rewrite{*tools, {}};
    auto elements = tape.elements(*tools);
    for (auto element : elements) {
        if (is_allowed_tool(tape, element, allowed)) rewrite.kept.push_back(element);
    }
    if (rewrite.kept.size() != elements.size()) {
        removed += elements.size() - rewrite.kept.size();
        rewrites.push_back(std::move(rewrite));
    }
    return true;
}

} // namespace

std::optional<std::size_t> prune_tools_into(std::string_view text,
                                            const std::set<std::string>& allowed,
                                            const ToolsListIdMatcher& is_tools_list_answer,
                                            JsonTape& tape, std::string& pruned) {
    // Most messages of a stream (notifications, other answers) are objects
    // without a result: nothing in them is pruned, so they are only checked.
    switch (tape.classify(text)) {
    case JsonTape::Shape::invalid:
        return std::nullopt;
    case JsonTape::Shape::object_without_result:
        return 0;
    case JsonTape::Shape::other:
        break;
    }
    if (!tape.parse(text)) return std::nullopt;
    const auto root = JsonTape::root();
    std::vector<Rewrite> rewrites;
    std::size_t removed = 0;
    if (tape.at(root).kind == Kind::Object) {
        if (!plan_response(tape, root, allowed, is_tools_list_answer, rewrites, removed))
            return std::nullopt;
    } else if (tape.at(root).kind == Kind::Array) {
        for (auto element : tape.elements(root)) {
            if (!plan_response(tape, element, allowed, is_tools_list_answer, rewrites, removed))
                return std::nullopt;
        }
    } else {
        return std::nullopt;
    }
    if (rewrites.empty()) return 0;

    // Rewrites are in document order and never nested (one per response).
    pruned.clear();
    pruned.reserve(text.size());
    std::size_t copied = 0;
    for (const auto& rewrite : rewrites) {
        const auto& array = tape.at(rewrite.array);
        pruned.append(text.substr(copied, array.begin - copied));
        pruned.push_back('[');
        for (std::size_t i = 0; i < rewrite.kept.size(); ++i) {
            if (i) pruned.push_back(',');
            pruned.append(tape.span(rewrite.kept[i]));
        }
        pruned.push_back(']');
        copied = array.end;
    }
    pruned.append(text.substr(copied));
    return removed;
}

std::optional<PrunedText> prune_tools(std::string_view text, const std::set<std::string>& allowed,
                                      const ToolsListIdMatcher& is_tools_list_answer) {
    JsonTape tape;
    PrunedText out;
    auto removed = prune_tools_into(text, allowed, is_tools_list_answer, tape, out.text);
    if (!removed) return std::nullopt;
    out.removed = *removed;
    if (*removed == 0) out.text.assign(text);
    return out;
}

} // namespace osf::mcp
