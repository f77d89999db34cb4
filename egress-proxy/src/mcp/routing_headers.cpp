#include "mcp/routing_headers.hpp"

namespace osf::mcp {

namespace {

int base64_value(char c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

std::optional<std::string> base64_decode(std::string_view text) {
    while (!text.empty() && text.back() == '=')
        text.remove_suffix(1);
    if (text.size() % 4 == 1) return std::nullopt;
    std::string out;
    unsigned bits = 0;
    int count = 0;
    for (const char c : text) {
        const int v = base64_value(c);
        if (v < 0) return std::nullopt;
        bits = (bits << 6) | static_cast<unsigned>(v);
        count += 6;
        if (count >= 8) {
            count -= 8;
            out.push_back(static_cast<char>((bits >> count) & 0xff));
        }
    }
    return out;
}

bool printable(std::string_view s) {
    for (const char c : s)
        if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f)
            return false;
    return true;
}

// One field of the header, decoded; the reason otherwise.
std::string read_one(const std::vector<std::string_view>& fields, std::string_view header,
                     std::optional<std::string>& value) {
    if (fields.empty()) return {};
    if (fields.size() > 1) return "more than one " + std::string(header) + " field";
    value = decode_routing_value(fields.front());
    if (!value) return "an " + std::string(header) + " value that cannot be decoded";
    return {};
}

} // namespace

std::optional<std::string> decode_routing_value(std::string_view value) {
    constexpr std::string_view open = "=?base64?", close = "?=";
    if (value.starts_with("=?") || value.ends_with("?=")) {
        // Only the exact sentinel: a spelling one reader decodes and another
        // reads literally would name two things.
        if (!value.starts_with(open) || !value.ends_with(close) ||
            value.size() < open.size() + close.size())
            return std::nullopt;
        auto decoded =
            base64_decode(value.substr(open.size(), value.size() - open.size() - close.size()));
        if (!decoded) return std::nullopt;
        return decoded;
    }
    if (!printable(value)) return std::nullopt;
    return std::string(value);
}

std::string routing_mismatch(const RoutingHeaders& headers,
                             const std::vector<RoutedMessage>& messages) {
    if (!headers.any()) return {};
    if (messages.size() != 1) return "routing headers on a batch";
    const RoutedMessage& m = messages.front();
    std::optional<std::string> method, name, tool_name, prompt_name, resource;
    for (auto why :
         {read_one(headers.method, "Mcp-Method", method), read_one(headers.name, "Mcp-Name", name),
          read_one(headers.tool_name, "Mcp-Tool-Name", tool_name),
          read_one(headers.prompt_name, "Mcp-Prompt-Name", prompt_name),
          read_one(headers.resource, "Mcp-Resource", resource)})
        if (!why.empty()) return why;
    if (method && method != m.method) return "Mcp-Method differs from the body's method";
    if (name) {
        // The field the method names; a method the proxy does not know: either.
        const bool by_name = m.method == "tools/call" || m.method == "prompts/get";
        const bool by_uri = m.method && m.method->starts_with("resources/");
        const bool agrees = by_name  ? name == m.name
                            : by_uri ? name == m.uri
                                     : (name == m.name || name == m.uri);
        if (!agrees) return "Mcp-Name differs from the body's name";
    }
    if (tool_name && (m.method != "tools/call" || tool_name != m.name))
        return "Mcp-Tool-Name differs from the body's tool";
    if (prompt_name && (m.method != "prompts/get" || prompt_name != m.name))
        return "Mcp-Prompt-Name differs from the body's prompt";
    if (resource && resource != m.uri) return "Mcp-Resource differs from the body's uri";
    return {};
}

} // namespace osf::mcp
