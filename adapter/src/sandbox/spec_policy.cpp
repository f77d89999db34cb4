#include "sandbox/spec_policy.hpp"

namespace osf::sandbox {

using nlohmann::json;

json spec_policy(std::string_view spec_text) {
    const json spec = json::parse(spec_text, nullptr, false);
    if (!spec.is_object()) return nullptr;
    json egress = json::array();
    if (const auto it = spec.find("egress"); it != spec.end() && it->is_array())
        for (const auto& entry : *it)
            if (entry.is_string() || entry.is_object()) egress.push_back(entry); // with its rules
    json mcp = json::object();
    if (const auto it = spec.find("mcp"); it != spec.end() && it->is_array())
        for (const auto& server : *it) {
            if (!server.is_object() || !server.contains("name") || !server["name"].is_string())
                continue;
            json tools = json::array();
            if (const auto listed = server.find("tools");
                listed != server.end() && listed->is_array())
                for (const auto& tool : *listed)
                    if (tool.is_string() || tool.is_object())
                        tools.push_back(tool); // with its argument rules
            mcp[server["name"].get<std::string>()] = tools;
        }
    json policy = {{"egress", egress}, {"mcp", mcp}};
    // Only when there are some: the shape of every other sandbox's policy stays.
    if (const auto it = spec.find("tcp"); it != spec.end() && it->is_array() && !it->empty()) {
        json tcp = json::array();
        for (const auto& entry : *it)
            if (entry.is_string()) tcp.push_back(entry);
        policy["tcp"] = tcp;
    }
    return policy;
}

} // namespace osf::sandbox
