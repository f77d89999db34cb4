#include "local/operations/policy.hpp"

#include "commands/command_errors.hpp"
#include "local/host/bound_file.hpp"
#include "local/protocol/admin_client.hpp"
#include "local/state/sandbox_store.hpp"
#include "osf/atomic_file.hpp"
#include "osf/whole_file.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace osf::local::operations {

using commands::CommandFailed;
using commands::UsageError;

namespace {

std::string read_required(const std::string& path) {
    auto text = osf::read_whole_file(path);
    if (!text) throw CommandFailed("cannot read " + path);
    return std::move(*text);
}

} // namespace

sandbox::PolicyChangeResult change_policy(OperationContext& context, const std::string& id,
                                          const osf::policy_edit::Edit& edit,
                                          const std::string& by) {
    const SandboxPaths paths = context.existing(id);
    const std::string before = read_required(paths.spec);
    struct stat info {};
    const mode_t mode = ::stat(paths.spec.c_str(), &info) == 0 ? (info.st_mode & 07777) : 0644;
    const auto edited = osf::policy_edit::apply(before, edit);
    if (!edited.ok()) {
        std::string message = edited.errors.front();
        if (edited.errors.size() > 1)
            message += " (and " + std::to_string(edited.errors.size() - 1) + " more)";
        throw UsageError(message);
    }
    sandbox::PolicyChangeResult result{edited.changed, edited.unchanged, 0, false};
    if (edited.changed.empty()) return result;
    // Stored first: a restarted proxy (resume) starts from it. Restored when the
    // running proxy refuses the change.
    osf::write_file_atomically(paths.spec, edited.spec_text, mode);
    if (!supervisor_running(paths)) return result;
    AdminAnswer answer;
    try {
        answer = post_policy(paths, nlohmann::json{{"spec", edited.spec_text}, {"by", by}}.dump());
    } catch (const std::exception& e) {
        osf::write_file_atomically(paths.spec, before, mode);
        throw CommandFailed("sandbox " + id + ": its egress proxy cannot be reached (" + e.what() +
                            "); nothing changed");
    }
    if (answer.status != 200) {
        osf::write_file_atomically(paths.spec, before, mode);
        std::string why = answer.body;
        while (!why.empty() && why.back() == '\n')
            why.pop_back();
        throw CommandFailed("sandbox " + id + ": its egress proxy refused the change (" +
                            std::to_string(answer.status) + " " + why + "); nothing changed");
    }
    const auto parsed = nlohmann::json::parse(answer.body, nullptr, false);
    if (parsed.is_object() && parsed.contains("generation") &&
        parsed["generation"].is_number_unsigned())
        result.generation = parsed["generation"].get<std::uint64_t>();
    result.live = true;
    // Processes started from now on trust the proxy's new CA too.
    try {
        rewrite_bound_file(paths.sandbox_ca, read_required(paths.ca()));
    } catch (const std::runtime_error& e) {
        throw CommandFailed(e.what());
    }
    return result;
}

} // namespace osf::local::operations
