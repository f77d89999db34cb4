#include "secrets/openbao_reply.hpp"

#include <nlohmann/json.hpp>

namespace osf::secrets {
namespace {

using nlohmann::json;

bool unreserved(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '.' || c == '_' || c == '~';
}

void append_encoded_path(std::string& out, std::string_view path) {
    constexpr char hex[] = "0123456789ABCDEF";
    for (char c : path) {
        if (unreserved(c) || c == '/') {
            out += c;
        } else {
            const auto byte = static_cast<unsigned char>(c);
            out += '%';
            out += hex[byte >> 4];
            out += hex[byte & 15];
        }
    }
}

std::string json_kind(const json& value) {
    switch (value.type()) {
    case json::value_t::null:
        return "null";
    case json::value_t::boolean:
        return "a boolean";
    case json::value_t::object:
        return "an object";
    case json::value_t::array:
        return "an array";
    case json::value_t::string:
        return "a string";
    default:
        return "a number";
    }
}

std::string printable(std::string_view text) {
    std::string out;
    for (char c : text)
        out += static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? ' ' : c;
    return out;
}

// OpenBao's `errors` strings, joined, printable and short: they describe the
// request (never a secret value), and help with unusual statuses.
std::string error_summary(const json& document) {
    std::string out;
    if (!document.is_object() || !document.contains("errors") || !document["errors"].is_array())
        return out;
    for (const auto& error : document["errors"]) {
        if (!error.is_string()) continue;
        if (!out.empty()) out += "; ";
        out += printable(error.get<std::string>());
    }
    if (out.size() > 300) out = out.substr(0, 300) + "...";
    return out;
}

bool deleted_version(const json& document) {
    const auto data = document.find("data");
    if (data == document.end() || !data->is_object()) return false;
    const auto metadata = data->find("metadata");
    if (metadata == data->end() || !metadata->is_object()) return false;
    const auto deletion = metadata->find("deletion_time");
    const auto destroyed = metadata->find("destroyed");
    return (deletion != metadata->end() && deletion->is_string() &&
            !deletion->get<std::string>().empty()) ||
           (destroyed != metadata->end() && destroyed->is_boolean() && destroyed->get<bool>());
}

} // namespace

std::optional<std::string> openbao_path_problem(std::string_view path) {
    if (path.empty()) return "it is empty";
    if (path.starts_with('/') || path.ends_with('/')) return "it must not start or end with '/'";
    for (char c : path)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
            return "it contains control characters";
    std::size_t start = 0;
    while (start <= path.size()) {
        auto end = path.find('/', start);
        if (end == std::string_view::npos) end = path.size();
        const auto segment = path.substr(start, end - start);
        if (segment.empty()) return "it contains an empty segment ('//')";
        if (segment == "." || segment == "..") return "it contains a '.' or '..' segment";
        start = end + 1;
    }
    return std::nullopt;
}

std::string openbao_target(std::string_view base_path, std::string_view mount,
                           std::string_view path) {
    std::string target(base_path);
    target += "/v1/";
    append_encoded_path(target, mount);
    target += "/data/";
    append_encoded_path(target, path);
    return target;
}

SourceResult interpret_openbao_reply(int status, std::string_view body, std::string_view location) {
    const json document = json::parse(body, nullptr, false);
    const std::string where(location);
    if (status == 403)
        return SourceResult::failure(
            "OpenBao denied reading " + where +
            " (403 permission denied): OSF_OPENBAO_TOKEN is invalid or expired, or its policy "
            "does not allow read on this path");
    if (status == 404) {
        if (!document.is_discarded() && deleted_version(document))
            return SourceResult::failure("the latest version of " + where +
                                         " is deleted in OpenBao (404)");
        return SourceResult::failure("OpenBao has no secret " + where +
                                     " (404): check the path and OSF_OPENBAO_MOUNT, which must "
                                     "name a KV version 2 mount");
    }
    if (status != 200) {
        std::string message = "OpenBao answered HTTP " + std::to_string(status) + " for " + where;
        if (!document.is_discarded()) {
            const auto errors = error_summary(document);
            if (!errors.empty()) message += ": " + errors;
        }
        return SourceResult::failure(message);
    }
    if (document.is_discarded() || !document.is_object())
        return SourceResult::failure("OpenBao's answer for " + where + " is not a JSON object");
    const auto data = document.find("data");
    if (data == document.end() || !data->is_object())
        return SourceResult::failure("OpenBao's answer for " + where + " has no \"data\" object");
    const auto inner = data->find("data");
    if (inner == data->end() || !inner->is_object()) {
        std::string message = "OpenBao's answer for " + where +
                              " has no \"data.data\" object, so it is not a KV version 2 secret";
        if (data->contains(openbao_value_field))
            message += " (the mount looks like KV version 1, which is not supported)";
        return SourceResult::failure(message);
    }
    const auto value = inner->find(openbao_value_field);
    if (value == inner->end()) {
        std::string fields;
        for (const auto& item : inner->items())
            fields += (fields.empty() ? "" : ", ") + printable(item.key());
        return SourceResult::failure(
            "the secret " + where + " in OpenBao has no field \"" +
            std::string(openbao_value_field) + "\"" +
            (fields.empty() ? " (it has no fields)" : " (its fields: " + fields + ")"));
    }
    if (!value->is_string())
        return SourceResult::failure("the field \"" + std::string(openbao_value_field) + "\" of " +
                                     where + " in OpenBao is " + json_kind(*value) +
                                     ", not a string");
    return SourceResult::success(value->get<std::string>());
}

} // namespace osf::secrets
