#include "kubernetes/register_commands.hpp"

#include "commands/backend_commands.hpp"
#include "commands/command_errors.hpp"
#include "kubernetes/kubernetes_backend.hpp"
#include "kubernetes/operations/doctor.hpp"

#include <memory>

namespace osf::kubernetes {

namespace {

constexpr const char* kFooter = R"(
Cluster: -n/--namespace, --context and --kubeconfig, as kubectl takes them, on every
  command. The namespace: -n, else OSF_SANDBOX_NAMESPACE, else the current context's,
  else default.
Variables: KUBECONFIG (kubectl's), OSF_SANDBOX_NAMESPACE,
  OSF_EGRESS_PROXY_IMAGE (default: ghcr.io/opensoftware/egress-proxy:0.1.0),
  OSF_SANDBOX_START_TIMEOUT (seconds, default 300), OSF_SANDBOX_SNAPSHOT_SIZE (default 1Gi),
  OSF_SANDBOX_SNAPSHOT_STORAGE_CLASS, OSF_UPSTREAM_CA_BUNDLE (the egress pod's only),
  OSF_SECRETS_DIR (default /run/secrets), OSF_SECRET_<NAME>, OSF_OPENBAO_ADDR,
  OSF_OPENBAO_TOKEN, OSF_OPENBAO_MOUNT, OSF_SANDBOX_HOST_ALIASES,
  OSF_SANDBOX_DEFAULT_IMAGE, OSF_SANDBOX_ALLOWED_IMAGES (patterns),
  OSF_SANDBOX_REQUIRE_ALLOWED_IMAGES, OSF_SANDBOX_IMAGE_PULL_POLICY, OSF_SANDBOX_POD_LABELS,
  OSF_SANDBOX_REQUIRED_TOOLS,
  OSF_SANDBOX_DEFAULT_LIFETIME (default 8h), OSF_SANDBOX_MAX_LIFETIME (default 7d),
  OSF_SANDBOX_EXTEND_WINDOW (default 1h), OSF_SANDBOX_EXEC_TIMEOUT (default 1h),
  OSF_SANDBOX_GC_GRACE (default 15m).
Exit codes: 0 ok; 1 failure (unknown ID, start failure, kubectl failure); 2 bad usage,
  ID, spec, secret, variable or duration (nothing started, nothing changed); 130/143
  create interrupted (cleaned up); exec: the command's own code, 137 at its timeout.)";

// The help texts that say where sandbox-kubernetes keeps sandboxes.
const commands::CommandTexts kTexts{
    .create_dry_run = "Print every object as one Kubernetes List (JSON) and touch no cluster",
    .snapshot = "Copy /workspace into a new PVC; prints a SandboxTemplate name that starts "
                "from it",
    .destroy_save_log = "First save the egress log to this new file (and its key to "
                        "FILE.pub), signed to its last line and verified against the "
                        "cluster's key; nothing is removed if that fails",
    .list = "List the sandbox IDs in the namespace, one per line (-o wide: a table)",
    .egress_log_follow = "Keep printing lines as they are written",
    .egress_log_verify = "Check the hash chain and signed checkpoints against the key the "
                         "cluster holds: exit 0, or 1 naming the first line that does not "
                         "hold",
    .gc = "Remove expired and failed sandboxes and parts left without a claim; one line "
          "each: ID and why",
    .suspend = "Stop a sandbox's pods and keep its persistent workspace (resume brings it "
               "back)",
};

} // namespace

void register_commands(CLI::App& app, OperationContext& context, kubectl::ClusterFlags* flags) {
    // The backend lives as long as the app: the doctor's callback holds it.
    auto backend = std::make_shared<KubernetesBackend>(context);
    context.backend = backend.get();
    context.texts = kTexts;
    app.footer(kFooter);
    if (flags) {
        // Subcommands made after this pass options they do not know to the app.
        app.fallthrough();
        auto set = [](std::optional<std::string>& field) {
            return [&field](const std::string& value) { field = value; };
        };
        app.add_option_function<std::string>("-n,--namespace", set(flags->ns),
                                             "The namespace (over OSF_SANDBOX_NAMESPACE)")
            ->type_name("NAMESPACE");
        app.add_option_function<std::string>("--context", set(flags->context),
                                             "The kubeconfig context to use")
            ->type_name("CONTEXT");
        app.add_option_function<std::string>("--kubeconfig", set(flags->kubeconfig),
                                             "The kubeconfig file (over KUBECONFIG)")
            ->type_name("FILE");
    }
    commands::register_backend_commands(app, context);
    commands::setup_policy_commands(app, context, *backend);
    CLI::App* doctor = app.add_subcommand(
        "doctor", "Check the cluster: kubectl, agent-sandbox, the namespace and its Pod Security "
                  "labels, every permission the commands use, a gc CronJob; one line each with "
                  "the fix, exit 1 when a required one fails");
    doctor->callback([backend, &context] {
        context.exit_code = commands::report_errors(context.err, context.program,
                                                    [&] { return run_doctor(context); });
    });
}

int run_cli(CLI::App& app, OperationContext& context, int argc, const char* const* argv) {
    if (const auto code =
            commands::parse_cli(app, context.out, context.err, commands::kErrorPrefix, argc, argv))
        return *code;
    return context.exit_code;
}

} // namespace osf::kubernetes
