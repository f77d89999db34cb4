#include "kubernetes/operations/create.hpp"

#include "commands/command_errors.hpp"
#include "kubernetes/claim_creation.hpp"
#include "kubernetes/kubectl/kubectl.hpp"
#include "kubernetes/kubectl/kubectl_error.hpp"
#include "kubernetes/manifests/create_objects.hpp"
#include "kubernetes/manifests/egress_objects.hpp"
#include "kubernetes/manifests/names.hpp"
#include "kubernetes/manifests/owner_references.hpp"
#include "kubernetes/manifests/pod_security_refusal.hpp"
#include "kubernetes/manifests/resources.hpp"
#include "kubernetes/manifests/sandbox_objects.hpp"
#include "kubernetes/manifests/template_hardening.hpp"
#include "kubernetes/proxy_ca.hpp"
#include "kubernetes/sandbox_lookup.hpp"
#include "kubernetes/secret_creation.hpp"
#include "kubernetes/start_waiter.hpp"
#include "kubernetes/tool_check.hpp"
#include "sandbox/image_policy.hpp"

namespace osf::kubernetes {

using nlohmann::json;

namespace {

// A Service's ClusterIP, which the API server assigns when it creates it.
std::string read_service_ip(kubectl::Kubectl& kube, const std::string& name) {
    const auto service = kube.get("services", name);
    const std::string ip =
        service ? service->value("spec", json::object()).value("clusterIP", "") : "";
    if (ip.empty() || ip == "None")
        throw commands::CommandFailed("the egress Service " + name + " has no ClusterIP");
    return ip;
}

// The claim first, then everything else born owned by it: a create killed at
// any step leaves nothing that outlives the claim (owner_references.hpp). Any
// exception leaves cleanup to the caller.
// `made` turns true once the claim, the sandbox's first object, exists: before
// that a failure leaves nothing to remove.
void start(OperationContext& context, kubectl::Kubectl& kube,
           const sandbox::SandboxRequest& request, const json& base_pod_template, bool& made) {
    const std::string& id = request.id;
    StartWaiter waiter(context, kube, std::chrono::seconds(request.settings.start_timeout_seconds));
    waiter.set_spec_has_user(request.spec.user.has_value());
    const json claim = create_claim(kube, request, base_pod_template);
    made = true;
    if (!request.secrets.empty()) create_egress_secret(kube, request, context.getenv, claim);
    check_interrupted(context);
    kube.create(manifests::kube_list(
        manifests::owned_by(manifests::egress_side_objects(request, context.wall_clock()), claim)));
    waiter.wait_pod_ready(manifests::egress_name(id), "egress proxy", manifests::sandbox_name(id));
    const std::string pem = read_proxy_ca(kube, id);
    // The sandbox reaches its proxy by the Service's ClusterIP (no DNS inside).
    sandbox::SandboxRequest sandbox_request = request;
    sandbox_request.egress_service_ip = read_service_ip(kube, manifests::egress_name(id));
    check_interrupted(context);
    kube.create(manifests::kube_list(
        manifests::owned_by(manifests::sandbox_side_objects(sandbox_request, base_pod_template, pem,
                                                            context.wall_clock()),
                            claim)));
    const std::string pod =
        waiter.wait_claim_ready(manifests::sandbox_name(id), manifests::egress_name(id));
    waiter.wait_network_policy(manifests::sandbox_name(id));
    check_sandbox_tools(context, kube, pod, request.settings.required_tools);
}

// Asks the API server to admit the sandbox's pod without making it
// (dryRun=All): a namespace whose Pod Security level refuses it fails here,
// before anything starts, instead of leaving the claim waiting. Any other
// refusal of the dry run (an admission webhook without dry-run support, say)
// is left for the real create to meet.
void check_pod_admission(kubectl::Kubectl& kube, const sandbox::SandboxRequest& request,
                         const json& base_pod_template) {
    kubectl::KubectlCall call;
    call.args = {"create", "--namespace", kube.ns(), "--dry-run=server", "-o", "name", "-f", "-"};
    call.input = manifests::sandbox_pod_probe(request, base_pod_template).dump();
    const kubectl::KubectlResult result = kube.runner().run(call);
    if (!result.ok() && result.err.find("violates PodSecurity") != std::string::npos)
        throw commands::CommandFailed(
            "the namespace refuses the sandbox's pod: " +
            manifests::pod_security_refusal(commands::one_line(result.err),
                                            request.spec.user.has_value()));
}

// OSF_SANDBOX_ALLOWED_IMAGES: every image of the pod template (exit 2); with
// OSF_SANDBOX_REQUIRE_ALLOWED_IMAGES=true, no allowlist is itself a refusal.
void check_images(const sandbox::SandboxRequest& request, const json& base_pod_template) {
    if (request.settings.require_allowed_images && request.settings.allowed_images.empty())
        throw commands::UsageError(
            "OSF_SANDBOX_REQUIRE_ALLOWED_IMAGES is true but OSF_SANDBOX_ALLOWED_IMAGES "
            "is not set: name the images sandboxes may run");
    if (const auto image =
            sandbox::refused_image(base_pod_template, request.settings.allowed_images)) {
        std::string patterns;
        for (const auto& pattern : request.settings.allowed_images)
            patterns += (patterns.empty() ? "" : ", ") + pattern;
        throw commands::UsageError(
            "image '" + *image + "' is not allowed: OSF_SANDBOX_ALLOWED_IMAGES allows " + patterns);
    }
}

// A named template's volumes and limits (template_hardening.hpp): exit 2.
void check_template(const sandbox::SandboxRequest& request, const json& base_pod_template) {
    if (const auto refusal = manifests::template_refusal(base_pod_template, request.spec))
        throw commands::UsageError(*refusal);
}

// A cluster that lacks agent-sandbox, a namespace or a permission: doctor
// checks each of them at once.
std::string with_doctor_hint(const std::string& message) {
    for (const char* sign : {"forbidden", "doesn't have a resource type", "no matches for kind",
                             "the server could not find the requested resource", "namespaces \""})
        if (message.find(sign) != std::string::npos)
            return message + " (sandbox-kubernetes doctor checks the cluster)";
    return message;
}

} // namespace

json dry_run_objects(OperationContext& context, const sandbox::SandboxRequest& request) {
    const std::string& template_name = request.spec.template_name;
    json base = manifests::image_pod_template(template_name);
    if (!request.spec.template_is_image()) {
        // --dry-run touches no cluster, so the named template is not read.
        base = {{"metadata", json::object()},
                {"spec", {{"containers", json::array({json{{"name", "sandbox"}}})}}}};
        context.err << "note: create copies the pod template of SandboxTemplate " << template_name
                    << "; --dry-run does not read it\n";
    }
    context.err << "note: create maps " << manifests::egress_name(request.id)
                << " to its Service's ClusterIP in the sandbox pod's hostAliases once the "
                   "Service exists; --dry-run leaves them out\n";
    check_images(request, base);
    check_template(request, base);
    return manifests::dry_run_list(request, base);
}

void create_sandbox(OperationContext& context, const sandbox::SandboxRequest& request,
                    std::ostream& progress) {
    const std::string& template_name = request.spec.template_name;
    kubectl::Kubectl kube(context.runner, request.settings.ns);
    json base = manifests::image_pod_template(template_name);
    if (!request.spec.template_is_image()) {
        const auto found = kube.get(manifests::kSandboxTemplates, template_name);
        if (!found)
            throw commands::CommandFailed("no SandboxTemplate " + template_name + " in namespace " +
                                          request.settings.ns);
        base = found->value("spec", json::object()).value("podTemplate", json::object());
    }
    check_images(request, base);
    check_template(request, base);
    check_pod_admission(kube, request, base);
    check_interrupted(context);

    progress << "creating sandbox " << request.id << " in namespace " << request.settings.ns
             << "\n";
    bool made = false;
    auto clean_up = [&] {
        // Before the claim is known to exist (a namespace the user may not
        // write to refuses it) there is nothing to report: what the claim's
        // create may have left is still removed, quietly, and a removal the
        // same namespace refuses is not a second failure.
        if (!made) {
            try {
                remove_sandbox(kube, request.id);
            } catch (const std::exception&) {
            }
            return;
        }
        progress << "removing sandbox " << request.id << "\n";
        try {
            remove_sandbox(kube, request.id);
        } catch (const std::exception& e) {
            progress << "sandbox-kubernetes: cleanup failed: " << e.what() << "\n";
        }
    };
    try {
        start(context, kube, request, base, made);
    } catch (const kubectl::KubectlError& e) {
        clean_up();
        throw kubectl::KubectlError(with_doctor_hint(e.what()));
    } catch (...) {
        clean_up();
        throw;
    }
}

} // namespace osf::kubernetes
