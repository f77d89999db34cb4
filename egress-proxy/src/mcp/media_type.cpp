#include "mcp/media_type.hpp"

#include "text/ascii.hpp"

#include <string>

namespace osf::mcp {

namespace {

using text::lower;
using text::trim;

std::string_view unquote(std::string_view s) {
    if (s.size() >= 2 && s.front() == '"' && s.back() == '"') return s.substr(1, s.size() - 2);
    return s;
}

// Every parameter must be `name=value`; a charset must be UTF-8.
bool parameters_acceptable(std::string_view params) {
    while (!params.empty()) {
        std::size_t end = params.find(';');
        std::string_view param = trim(params.substr(0, end));
        params = end == std::string_view::npos ? std::string_view{} : params.substr(end + 1);
        if (param.empty()) continue;
        std::size_t eq = param.find('=');
        if (eq == std::string_view::npos || eq == 0) return false;
        std::string name = lower(trim(param.substr(0, eq)));
        if (name == "charset") {
            std::string value = lower(unquote(trim(param.substr(eq + 1))));
            if (value != "utf-8" && value != "utf8") return false;
        }
    }
    return true;
}

} // namespace

MediaType classify_media_type(std::string_view content_type) {
    std::size_t semicolon = content_type.find(';');
    std::string essence = lower(trim(content_type.substr(0, semicolon)));
    if (semicolon != std::string_view::npos &&
        !parameters_acceptable(content_type.substr(semicolon + 1))) {
        return MediaType::Other;
    }
    if (essence == "application/json") return MediaType::Json;
    if (essence == "text/event-stream") return MediaType::EventStream;
    return MediaType::Other;
}

bool is_identity_encoding(std::string_view content_encoding) {
    std::string value = lower(trim(content_encoding));
    return value.empty() || value == "identity";
}

} // namespace osf::mcp
