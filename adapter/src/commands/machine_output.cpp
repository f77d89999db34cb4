#include "commands/machine_output.hpp"

#include "commands/command_errors.hpp"

namespace osf::commands {

using nlohmann::json;

json created_json(const sandbox::SandboxRequest& request, const json& names) {
    return {{"id", request.id},
            {"template", request.spec.template_name},
            {"created", sandbox::rfc3339(request.lifetime.created)},
            {"expires", sandbox::rfc3339(request.lifetime.expires)},
            {"labels", request.spec.labels},
            {"names", names.is_object() ? names : json::object()}};
}

json snapshot_json(const std::string& id, const std::string& template_name) {
    return {{"id", id}, {"template", template_name}};
}

json removal_json(const std::string& id, const std::string& reason) {
    return {{"id", id}, {"reason", reason}};
}

std::string progress_line(std::string_view message) {
    // Bytes that are not UTF-8 become U+FFFD rather than failing the command.
    return json{{"type", "progress"}, {"message", std::string(message)}}.dump(
        -1, ' ', false, json::error_handler_t::replace);
}

bool wants_json(const std::string& output_option, const std::string& command) {
    if (output_option.empty() || output_option == "id") return false;
    if (output_option == "json") return true;
    throw UsageError(command + ": -o takes json or id; got '" + output_option + "'");
}

bool wants_json_progress(const std::string& progress_option) {
    if (progress_option.empty() || progress_option == "text") return false;
    if (progress_option == "json") return true;
    throw UsageError("--progress takes text or json; got '" + progress_option + "'");
}

} // namespace osf::commands
