#include "backends/kubernetes/extend_command.hpp"

#include "backends/kubernetes/sandbox_lookup.hpp"
#include "commands/command_errors.hpp"
#include "manifests/labels.hpp"
#include "manifests/lifetime.hpp"
#include "manifests/resources.hpp"
#include "manifests/settings.hpp"
#include "osf/duration.hpp"

#include <ostream>

namespace osf::commands {

int run_extend(CommandContext& context, const ExtendOptions& options) {
    const std::string id = parse_sandbox_id(options.id);
    const auto parsed = osf::parse_duration(options.duration);
    if (const auto* problem = std::get_if<std::string>(&parsed))
        throw UsageError("extend: '" + options.duration + "' " + *problem);
    const auto settings = manifests::read_settings(context.getenv);
    kubectl::Kubectl kube(context.runner, settings.ns);
    const auto claim =
        first_or_no_sandbox(kube.list(manifests::kSandboxClaims, manifests::id_selector(id)), id);

    manifests::WallTime expires;
    try {
        expires = manifests::extended_expiry(claim, std::get<std::chrono::seconds>(parsed),
                                             settings.max_lifetime, context.wall_clock());
    } catch (const manifests::LifetimeError& e) {
        throw UsageError(e.what());
    }
    kubectl::KubectlCall call;
    call.args = {"patch",
                 manifests::kSandboxClaims,
                 claim["metadata"]["name"].get<std::string>(),
                 "--namespace",
                 settings.ns,
                 "--type",
                 "merge",
                 "-p",
                 manifests::expiry_patch(expires).dump()};
    kube.run_checked(call);
    context.out << manifests::rfc3339(expires) << "\n";
    return 0;
}

void setup_extend(CLI::App& app, CommandContext& context) {
    auto options = std::make_shared<ExtendOptions>();
    CLI::App* sub = app.add_subcommand(
        "extend", "Move a sandbox's expiry later by a duration (\"30m\", \"2h\"); prints the new "
                  "expiry");
    sub->add_option("id", options->id, "The sandbox ID (12 hex digits)")->required();
    sub->add_option("duration", options->duration, "How much later: 90m, 8h, 1h30m, 2d")
        ->required();
    sub->callback([&context, options] {
        context.exit_code = run_guarded(context, [&] { return run_extend(context, *options); });
    });
}

} // namespace osf::commands
