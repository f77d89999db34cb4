// What the MCP fuzz targets hold the filter to, written against the reference
// JSON reader (mcp/json_reader.hpp) rather than the JsonTape the filter uses,
// so a disagreement between the two readers shows up too.
#pragma once

#include "fuzz_check.hpp"
#include "mcp/json_reader.hpp"
#include "mcp/mcp_filter.hpp"

#include <nlohmann/json.hpp>

namespace osf::fuzz {

// True when nlohmann refuses `text` only because a number is out of double
// range ("1e400"): valid JSON that JsonTape (rightly) accepts and the
// reference reader cannot read, so the reference cannot judge that text.
inline bool reference_cannot_read_numbers(std::string_view text) {
    try {
        (void)nlohmann::json::parse(text);
    } catch (const nlohmann::json::out_of_range& e) {
        return e.id == 406;
    } catch (const nlohmann::json::exception&) {
    }
    return false;
}

// A fixed policy: two declared tools, a small message limit so that the
// over-the-limit paths are reached with small inputs.
inline const mcp::ServerPolicy& mcp_policy() {
    static const mcp::ServerPolicy policy{"files", {"read_file", "search"}, 8 * 1024};
    return policy;
}

inline bool declared_tool(const mcp::Json& tool) {
    if (!tool.is_object()) return false;
    auto name = tool.find("name");
    return name != tool.end() && name->is_string() &&
           mcp_policy().tools.contains(name->get<std::string>());
}

// No response in `message` (an object or a batch) shows an undeclared tool.
inline bool shows_only_declared_tools(const mcp::Json& message) {
    auto one = [](const mcp::Json& m) {
        if (!m.is_object()) return true;
        auto result = m.find("result");
        if (result == m.end() || !result->is_object()) return true;
        auto tools = result->find("tools");
        if (tools == result->end() || !tools->is_array()) return true;
        for (const auto& tool : *tools)
            if (!declared_tool(tool)) return false;
        return true;
    };
    if (!message.is_array()) return one(message);
    for (const auto& m : message)
        if (!one(m)) return false;
    return true;
}

// Every tools/call in `message` names a declared tool.
inline bool calls_only_declared_tools(const mcp::Json& message) {
    auto one = [](const mcp::Json& m) {
        if (!m.is_object()) return true;
        auto method = m.find("method");
        if (method == m.end() || !method->is_string() || *method != "tools/call") return true;
        auto params = m.find("params");
        if (params == m.end() || !params->is_object()) return false;
        auto name = params->find("name");
        return name != params->end() && name->is_string() &&
               mcp_policy().tools.contains(name->get<std::string>());
    };
    if (!message.is_array()) return one(message);
    for (const auto& m : message)
        if (!one(m)) return false;
    return true;
}

} // namespace osf::fuzz
