// The MCP server the filter tests declare: "wiki", whose allowed tools are
// search and fetch_page.
#pragma once

#include "mcp/mcp_filter.hpp"

#include <cstddef>

namespace mcp_test {

inline osf::mcp::ServerPolicy wiki_policy(std::size_t max_message_bytes = 64 * 1024) {
    osf::mcp::ServerPolicy policy;
    policy.name = "wiki";
    policy.tools = {"search", "fetch_page"};
    policy.max_message_bytes = max_message_bytes;
    return policy;
}

} // namespace mcp_test
