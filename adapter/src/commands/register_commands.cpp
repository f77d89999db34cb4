#include "commands/register_commands.hpp"

#include "commands/command_errors.hpp"
#include "commands/copy_command.hpp"
#include "commands/create_command.hpp"
#include "commands/destroy_command.hpp"
#include "commands/egress_log_command.hpp"
#include "commands/exec_command.hpp"
#include "commands/extend_command.hpp"
#include "commands/gc_command.hpp"
#include "commands/list_command.hpp"
#include "commands/resume_command.hpp"
#include "commands/snapshot_command.hpp"
#include "commands/suspend_command.hpp"

#include <algorithm>
#include <optional>
#include <ostream>

namespace osf::commands {

namespace {

constexpr const char* kFooter = R"(
Variables: KUBECONFIG (kubectl's), OSF_SANDBOX_NAMESPACE (default: default),
  OSF_EGRESS_PROXY_IMAGE (default: ghcr.io/opensoftware/egress-proxy:0.1.0),
  OSF_SANDBOX_START_TIMEOUT (seconds, default 300), OSF_SANDBOX_SNAPSHOT_SIZE (default 1Gi),
  OSF_SECRETS_DIR (default /run/secrets), OSF_SECRET_<NAME>, OSF_OPENBAO_ADDR,
  OSF_OPENBAO_TOKEN, OSF_OPENBAO_MOUNT, OSF_SANDBOX_HOST_ALIASES,
  OSF_SANDBOX_ALLOWED_IMAGES (patterns), OSF_SANDBOX_IMAGE_PULL_POLICY,
  OSF_SANDBOX_DEFAULT_LIFETIME (default 8h), OSF_SANDBOX_MAX_LIFETIME (default 7d),
  OSF_SANDBOX_EXEC_TIMEOUT (default 1h), OSF_SANDBOX_GC_GRACE (default 15m).
Exit codes: 0 ok; 1 failure (unknown ID, start failure, kubectl failure); 2 bad usage,
  ID, spec, secret, variable or duration (nothing started, nothing changed); 130/143
  create interrupted (cleaned up); exec: the command's own code, 137 at its timeout.)";

#ifndef OSF_VERSION
#define OSF_VERSION "dev"
#endif

// The names of the registered subcommands, in order.
std::vector<std::string> command_names(CLI::App& app) {
    std::vector<std::string> names;
    for (const auto* sub : app.get_subcommands([](CLI::App*) { return true; }))
        names.push_back(sub->get_name());
    return names;
}

std::string joined(const std::vector<std::string>& names) {
    std::string text;
    for (const auto& name : names)
        text += (text.empty() ? "" : ", ") + name;
    return text;
}

} // namespace

void register_commands(CLI::App& app, CommandContext& context) {
    app.require_subcommand(1);
    app.set_version_flag("--version", std::string("sandbox-kubernetes ") + OSF_VERSION);
    app.footer(kFooter);
    setup_create(app, context);
    setup_exec(app, context);
    setup_copy(app, context);
    setup_snapshot(app, context);
    setup_destroy(app, context);
    setup_list(app, context);
    setup_egress_log(app, context);
    setup_extend(app, context);
    setup_gc(app, context);
    setup_suspend(app, context);
    setup_resume(app, context);
}

std::optional<int> parse_cli(CLI::App& app, std::ostream& out, std::ostream& err,
                             const std::string& prefix, int argc, const char* const* argv) {
    // The first word that is not an option must name a command; CLI11 would
    // call it an unexpected argument.
    const auto names = command_names(app);
    if (argc > 1 && argv[1][0] != '-' &&
        std::find(names.begin(), names.end(), argv[1]) == names.end()) {
        print_error(err,
                    std::string("unknown command '") + argv[1] + "'; the commands are " +
                        joined(names) + " (run with --help)",
                    prefix);
        return kExitUsage;
    }
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        // --help and --version print to stdout and exit 0.
        if (e.get_exit_code() == 0) return app.exit(e, out, err);
        // Every usage error is one line with our prefix, and exit 2.
        std::string message = one_line(e.what());
        if (dynamic_cast<const CLI::RequiredError*>(&e) && argc <= 1)
            message = "no command given; the commands are " + joined(names);
        print_error(err, message + " (run with --help)", prefix);
        return kExitUsage;
    }
    return std::nullopt;
}

int run_cli(CLI::App& app, CommandContext& context, int argc, const char* const* argv) {
    if (const auto code = parse_cli(app, context.out, context.err, kErrorPrefix, argc, argv))
        return *code;
    return context.exit_code;
}

} // namespace osf::commands
