#include "mcp/jsonrpc.hpp"

namespace osf::mcp {

bool has_method(const Json& message) {
    return message.is_object() && message.contains("method");
}

bool is_method(const Json& message, std::string_view method) {
    if (!message.is_object()) return false;
    auto it = message.find("method");
    return it != message.end() && it->is_string() && it->get_ref<const std::string&>() == method;
}

bool expects_answer(const Json& message) {
    return message.is_object() && message.contains("id");
}

Json make_error(const Json& id, int code, std::string message) {
    Json error = Json::object();
    error["jsonrpc"] = "2.0";
    error["id"] = id;
    error["error"] = Json::object();
    error["error"]["code"] = code;
    error["error"]["message"] = std::move(message);
    return error;
}

} // namespace osf::mcp
