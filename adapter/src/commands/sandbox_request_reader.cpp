#include "commands/sandbox_request_reader.hpp"

#include "commands/command_errors.hpp"
#include "osf/whole_file.hpp"
#include "sandbox/lifetime.hpp"
#include "sandbox/sandbox_id.hpp"

#include <cerrno>
#include <cstring>

namespace osf::commands {

namespace {

std::string read_spec_file(const std::string& path) {
    auto text = osf::read_whole_file(path);
    if (!text) throw UsageError("cannot read spec " + path + ": " + std::strerror(errno));
    return std::move(*text);
}

} // namespace

sandbox::SandboxRequest read_sandbox_request(const std::string& spec_path,
                                             const sandbox::EnvLookup& getenv,
                                             const sandbox::FileExists& file_exists,
                                             const RandomBytes& random_bytes,
                                             std::chrono::system_clock::time_point now) {
    sandbox::SandboxRequest request;
    request.spec_text = read_spec_file(spec_path);
    const osf::SpecResult parsed = osf::parse_spec(request.spec_text);
    if (!parsed.ok()) {
        // One line per error, each printed with the program's prefix.
        std::string message;
        for (const auto& error : parsed.errors)
            message += (message.empty() ? "" : "\n") + std::string("invalid spec ") + spec_path +
                       ": " + error.to_string();
        throw UsageError(message);
    }
    request.spec = *parsed.spec;
    try {
        request.settings = sandbox::read_settings(getenv);
    } catch (const sandbox::SettingsError& e) {
        throw UsageError(e.what());
    }
    auto secrets = sandbox::plan_secrets(request.spec, request.settings, getenv, file_exists);
    if (!secrets.errors.empty()) {
        std::string message;
        for (const auto& error : secrets.errors)
            message += (message.empty() ? "" : "\n") + std::string("cannot resolve ") + error;
        throw UsageError(message);
    }
    request.secrets = secrets.plan;
    try {
        request.lifetime = sandbox::sandbox_lifetime(request.spec.lifetime, request.settings, now);
    } catch (const sandbox::LifetimeError& e) {
        throw UsageError("invalid spec " + spec_path + ": $.lifetime: " + e.what());
    }
    request.id = sandbox::sandbox_id_from_bytes(random_bytes());
    return request;
}

} // namespace osf::commands
