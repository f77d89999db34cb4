#include "backends/kubernetes/register_commands.hpp"

#include "backends/kubernetes/copy_command.hpp"
#include "backends/kubernetes/create_command.hpp"
#include "backends/kubernetes/destroy_command.hpp"
#include "backends/kubernetes/egress_log_command.hpp"
#include "backends/kubernetes/exec_command.hpp"
#include "backends/kubernetes/extend_command.hpp"
#include "backends/kubernetes/gc_command.hpp"
#include "backends/kubernetes/list_command.hpp"
#include "backends/kubernetes/resume_command.hpp"
#include "backends/kubernetes/snapshot_command.hpp"
#include "backends/kubernetes/suspend_command.hpp"
#include "commands/command_errors.hpp"

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

int run_cli(CLI::App& app, CommandContext& context, int argc, const char* const* argv) {
    if (const auto code = parse_cli(app, context.out, context.err, kErrorPrefix, argc, argv))
        return *code;
    return context.exit_code;
}

} // namespace osf::commands
