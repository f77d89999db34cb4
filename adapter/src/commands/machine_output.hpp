// What create, snapshot and gc and the progress of create print for programs
// (-o json, --progress json): the field names are a contract
// (contracts/cli-output.schema.json), never changed, only added to.
#pragma once

#include "sandbox/sandbox_request.hpp"

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace osf::commands {

// create -o json: {id, template, created, expires, labels, names}; `names` are
// the backend's names of the sandbox's parts (Backend::names).
nlohmann::json created_json(const sandbox::SandboxRequest& request, const nlohmann::json& names);

// snapshot -o json: {id, template}, the sandbox and the template a spec can start from.
nlohmann::json snapshot_json(const std::string& id, const std::string& template_name);

// One line of gc -o json: {id, reason}.
nlohmann::json removal_json(const std::string& id, const std::string& reason);

// One line of --progress json: {"type":"progress","message":...} without '\n'.
std::string progress_line(std::string_view message);

// `-o` and `--progress` values, or UsageError.
bool wants_json(const std::string& output_option, const std::string& command);
bool wants_json_progress(const std::string& progress_option);

} // namespace osf::commands
