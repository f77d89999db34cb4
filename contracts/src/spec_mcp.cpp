#include "json_path.hpp"
#include "mcp_url.hpp"
#include "osf/spec_limits.hpp"
#include "spec_sections.hpp"

#include <map>

namespace osf::spec_detail {

namespace {

bool is_server_name(std::string_view name) {
    if (name.empty() || name.size() > spec_limits::max_mcp_name_length) return false;
    if (name.front() == '-' || name.back() == '-') return false;
    for (const char c : name)
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
    return true;
}

// Names and URLs seen so far, for "listed twice" messages that point at the first.
struct SeenServers {
    std::map<std::string, std::string> names; // name -> its path
    std::map<std::string, std::string> urls;  // url as written -> its path
};

bool check_name(const nlohmann::json& value, const std::string& at, SeenServers& seen,
                const SpecCheck& check, McpServer& server) {
    if (!value.is_string()) {
        check.fail(at, "must be a string, as \"wiki\"; got " + describe_type(value));
        return false;
    }
    const auto& name = value.get_ref<const std::string&>();
    if (!is_server_name(name)) {
        check.fail(at, json_quoted(name) +
                           " is not a server name: use lower-case letters, digits and "
                           "inner '-', at most " +
                           std::to_string(spec_limits::max_mcp_name_length) +
                           " characters, as \"wiki\"");
        return false;
    }
    if (const auto [first, fresh] = seen.names.emplace(name, at.substr(0, at.rfind('.'))); !fresh) {
        check.fail(at, json_quoted(name) + " is already the name of " + first->second);
        return false;
    }
    server.name = name;
    return true;
}

bool check_url(const nlohmann::json& value, const std::string& at, SeenServers& seen,
               const SpecCheck& check, McpServer& server) {
    if (!value.is_string()) {
        check.fail(at, "must be a string, as \"https://wiki.example.com/mcp\"; got " +
                           describe_type(value));
        return false;
    }
    const auto& url = value.get_ref<const std::string&>();
    auto endpoint = check_mcp_url(url);
    if (auto* problem = std::get_if<std::string>(&endpoint)) {
        check.fail(at, json_quoted(url) + " " + *problem);
        return false;
    }
    if (const auto [first, fresh] = seen.urls.emplace(url, at.substr(0, at.rfind('.'))); !fresh) {
        check.fail(at, json_quoted(url) + " is already the URL of " + first->second);
        return false;
    }
    auto& parts = std::get<McpEndpoint>(endpoint);
    server.url = url;
    server.scheme = std::move(parts.scheme);
    server.host = std::move(parts.host);
    server.port = parts.port;
    server.path = std::move(parts.path);
    return true;
}

} // namespace

void check_mcp(const nlohmann::json& value, const SpecCheck& check, Spec& spec) {
    const std::string path = "$.mcp";
    if (!check_collection(value, check, path, Shape::array,
                          "an array of servers, as [{\"name\": \"wiki\", \"url\": "
                          "\"https://wiki.example.com/mcp\", \"tools\": [\"search\"]}]",
                          spec_limits::max_mcp_servers, "servers"))
        return;
    SeenServers seen;
    for (std::size_t i = 0; i < value.size(); ++i) {
        const std::string at = index_path(path, i);
        const auto& entry = value[i];
        if (!entry.is_object()) {
            check.fail(at, "must be an object {\"name\", \"url\", \"tools\"}; got " +
                               describe_type(entry));
            continue;
        }
        check_known_fields(entry, at, {"name", "url", "tools"},
                           "an MCP server has name, url and tools", check);
        McpServer server;
        bool good = true;
        for (const char* field : {"name", "url", "tools"}) {
            if (!entry.contains(field)) {
                check.fail(at, json_quoted(field) + " is missing");
                good = false;
            }
        }
        if (entry.contains("name"))
            good = check_name(entry["name"], at + ".name", seen, check, server) && good;
        if (entry.contains("url"))
            good = check_url(entry["url"], at + ".url", seen, check, server) && good;
        if (entry.contains("tools"))
            good = check_mcp_tools(entry["tools"], at + ".tools", check, server) && good;
        if (good) spec.mcp.push_back(std::move(server));
    }
}

} // namespace osf::spec_detail
