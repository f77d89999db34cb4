// The request headers of MCP's Streamable HTTP transport that mirror the
// JSON-RPC body (SEP-2243, revision 2026-07-28): `Mcp-Method` (the method) and
// `Mcp-Name` (`params.name` of tools/call and prompts/get, `params.uri` of
// resources/*), plus the draft's spellings a gateway may still route on
// (`Mcp-Tool-Name`, `Mcp-Prompt-Name`, `Mcp-Resource`). A server or gateway
// may route on the headers instead of the body, so the proxy holds them to
// the body it checked: any disagreement is refused before anything is sent.
// Pure.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace osf::mcp {

inline constexpr int kHeaderMismatch = -32020; // the specification's HeaderMismatch

// Every field of each header, as the request carries them.
struct RoutingHeaders {
    std::vector<std::string_view> method;      // Mcp-Method
    std::vector<std::string_view> name;        // Mcp-Name
    std::vector<std::string_view> tool_name;   // Mcp-Tool-Name (draft)
    std::vector<std::string_view> prompt_name; // Mcp-Prompt-Name (draft)
    std::vector<std::string_view> resource;    // Mcp-Resource (draft)

    bool any() const {
        return !method.empty() || !name.empty() || !tool_name.empty() || !prompt_name.empty() ||
               !resource.empty();
    }
};

// A header value as the specification encodes it: plain printable ASCII, or
// "=?base64?<standard base64>?=" for anything else. nullopt when it is
// neither (a malformed sentinel, bad base64, a control character).
std::optional<std::string> decode_routing_value(std::string_view value);

// What the body says, for the one message the headers describe.
struct RoutedMessage {
    std::optional<std::string> method;
    std::optional<std::string> name; // params.name, when a string
    std::optional<std::string> uri;  // params.uri, when a string
};

// Why the headers disagree with the body, or empty when they agree (or are
// absent). `messages` holds every message of the body (a batch has several:
// headers describe one message, so a batch with any of them disagrees).
std::string routing_mismatch(const RoutingHeaders& headers,
                             const std::vector<RoutedMessage>& messages);

} // namespace osf::mcp
