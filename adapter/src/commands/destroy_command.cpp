#include "commands/destroy_command.hpp"

#include "commands/command_errors.hpp"
#include "commands/egress_log_source.hpp"
#include "commands/sandbox_lookup.hpp"
#include "egress_log/log_verifier.hpp"
#include "manifests/labels.hpp"
#include "manifests/resources.hpp"
#include "manifests/settings.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <ostream>
#include <unistd.h>

namespace osf::commands {

namespace {

// Writes `text` to a new file (never over an existing one: it may be evidence).
void write_new_file(const std::string& path, const std::string& text) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0640);
    if (fd < 0) throw CommandFailed("cannot create " + path + ": " + std::strerror(errno));
    std::size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            const std::string why = std::strerror(errno);
            ::close(fd);
            throw CommandFailed("cannot write " + path + ": " + why);
        }
        done += static_cast<std::size_t>(n);
    }
    if (::fsync(fd) != 0 || ::close(fd) != 0)
        throw CommandFailed("cannot write " + path + ": " + std::strerror(errno));
}

// Copies the egress log to `path`; throws (and so removes nothing) unless the
// copy is whole and verifies against the cluster's key.
void save_log(CommandContext& context, kubectl::Kubectl& kube, const std::string& id,
              const std::string& path) {
    const std::string pod = find_egress_pod(kube, id);
    const auto key = cluster_log_key(kube, id);
    try {
        request_checkpoint(kube, pod); // so that the copy is signed to its last line
    } catch (const std::exception& e) {
        context.err << "sandbox-kubernetes: the proxy wrote no checkpoint (" << e.what()
                    << "); lines after its last one are unsigned\n";
    }
    const std::string text = fetch_egress_log(kube, pod);
    const auto report = egress_log::verify_log(text, key.raw);
    write_new_file(path, text);
    write_new_file(path + ".pub", key.pem); // the ConfigMap goes with the sandbox
    if (!report.ok)
        throw CommandFailed(
            "saved the egress log to " + path + " but it does not verify (" +
            (report.bad_line ? "line " + std::to_string(report.bad_line) + ": " : std::string()) +
            report.problem + "); sandbox " + id +
            " not removed: destroy it without --save-log to remove it anyway");
    context.err << egress_log::describe(report, path);
}

} // namespace

int run_destroy(CommandContext& context, const DestroyOptions& options) {
    const std::string id = parse_sandbox_id(options.id);
    for (const auto& file : {options.save_log, options.save_log + ".pub"})
        if (!options.save_log.empty() && ::access(file.c_str(), F_OK) == 0)
            throw UsageError("--save-log: " + file + " already exists");
    const auto settings = manifests::read_settings(context.getenv);
    kubectl::Kubectl kube(context.runner, settings.ns);
    const auto objects = kube.list(manifests::kSandboxResources, manifests::id_selector(id));
    if (objects.empty()) throw CommandFailed("no sandbox " + id);
    if (!options.save_log.empty()) save_log(context, kube, id, options.save_log);
    remove_sandbox(kube, id);
    context.err << "removed sandbox " << id << "\n";
    return 0;
}

void setup_destroy(CLI::App& app, CommandContext& context) {
    auto options = std::make_shared<DestroyOptions>();
    CLI::App* sub = app.add_subcommand(
        "destroy", "Remove a sandbox and everything made for it (not its snapshots)");
    sub->add_option("id", options->id, "The sandbox ID (12 hex digits)")->required();
    sub->add_option("--save-log", options->save_log,
                    "First save the egress log to this new file (and its key to FILE.pub), "
                    "signed to its last line and verified against the cluster's key; nothing "
                    "is removed if that fails");
    sub->callback([&context, options] {
        context.exit_code = run_guarded(context, [&] { return run_destroy(context, *options); });
    });
}

} // namespace osf::commands
