#include "mcp/jsonrpc.hpp"

#include "mcp/json_reader.hpp"

namespace osf::mcp {

std::string error_answer(std::string_view id_json, int code, std::string_view message) {
    std::string out = R"({"jsonrpc":"2.0","id":)";
    out.append(id_json);
    out.append(R"(,"error":{"code":)");
    out.append(std::to_string(code));
    out.append(R"(,"message":)");
    out.append(write_json(Json(std::string(message))));
    out.append("}}");
    return out;
}

std::string canonical_json(std::string_view json_text) {
    // An object or array is no JSON-RPC id: kept as sent rather than read into
    // a document, whose nodes would cost many times the text.
    const auto first = json_text.find_first_not_of(" \t\r\n");
    if (first != std::string_view::npos && (json_text[first] == '{' || json_text[first] == '['))
        return std::string(json_text);
    auto read = read_strict_json(json_text);
    return read.value ? write_json(*read.value) : std::string(json_text);
}

} // namespace osf::mcp
