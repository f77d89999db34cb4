#include "kubernetes/operations/snapshot.hpp"

#include "commands/command_errors.hpp"
#include "kubernetes/kubectl/kubectl_error.hpp"
#include "kubernetes/manifests/names.hpp"
#include "kubernetes/manifests/owner_references.hpp"
#include "kubernetes/manifests/resources.hpp"
#include "kubernetes/manifests/sandbox_objects.hpp"
#include "kubernetes/manifests/snapshot_objects.hpp"
#include "kubernetes/sandbox_lookup.hpp"
#include "kubernetes/start_waiter.hpp"
#include "sandbox/labels.hpp"
#include "sandbox/settings.hpp"

#include <ctime>
#include <ostream>

namespace osf::kubernetes {

using nlohmann::json;

namespace {

// Streams /workspace out of the sandbox into the copy pod's /data.
void copy_workspace(kubectl::Kubectl& kube, const std::string& sandbox_pod,
                    const std::string& copy_pod) {
    kubectl::KubectlCall pack;
    pack.args = {"exec", sandbox_pod, "--namespace", kube.ns(), "--"};
    for (auto& arg : manifests::snapshot_pack_command())
        pack.args.push_back(std::move(arg));
    kubectl::KubectlCall unpack;
    unpack.args = {"exec", "-i", copy_pod, "--namespace", kube.ns(), "--"};
    for (auto& arg : manifests::snapshot_unpack_command())
        unpack.args.push_back(std::move(arg));
    const auto results = kube.runner().run_pipeline({pack, unpack});
    kubectl::check(pack.args, results[0]);
    kubectl::check(unpack.args, results[1]);
}

} // namespace

std::string take_snapshot(OperationContext& context, const std::string& id,
                          const std::string& stamp) {
    const auto settings = sandbox::read_settings(context.getenv);
    kubectl::Kubectl kube(context.runner, settings.ns);
    const std::string pod = find_sandbox_pod(kube, id);
    // The sandbox's own template; snapshot templates carry osf.snapshot.of instead.
    const auto source = named_or_no_sandbox(kube, manifests::kSandboxTemplates, id);

    manifests::SnapshotRequest request{id, settings.ns, stamp, settings.snapshot_size, ""};
    manifests::take_sandbox_pod_settings(source, request);
    request.image_pull_policy = settings.image_pull_policy;
    request.storage_class = settings.snapshot_storage_class;
    if (request.image.empty())
        throw commands::CommandFailed("the sandbox's template names no image");
    const std::string name = manifests::snapshot_name(id, request.stamp);
    const std::string copy_pod = manifests::snapshot_copy_pod_name(id, request.stamp);
    bool pvc_made = false;
    bool template_made = false;
    try {
        kube.create(manifests::snapshot_pvc(request));
        pvc_made = true;
        // Owned by the claim: a copy pod an interrupted snapshot leaves goes
        // with the sandbox, though destroy does not know its name.
        const auto claim = named_or_no_sandbox(kube, manifests::kSandboxClaims, id);
        kube.create(manifests::owned_by(json::array({manifests::snapshot_copy_pod(request)}),
                                        manifests::claim_owner_reference(claim))[0]);
        StartWaiter waiter(context, kube, std::chrono::seconds(settings.start_timeout_seconds));
        waiter.wait_pod_ready(copy_pod, "snapshot copy");
        check_interrupted(context);
        copy_workspace(kube, pod, copy_pod);
        kube.delete_named(manifests::kPods, copy_pod);
        check_interrupted(context);
        kube.create(manifests::snapshot_template(source, request));
        template_made = true;
    } catch (...) {
        // Before the PVC exists (a Role that may not create it) nothing was
        // made: there is nothing to report, and a delete the same Role refuses
        // is not a second failure. What the PVC's create may have left is
        // still removed, quietly.
        if (!pvc_made) {
            try {
                kube.delete_named("persistentvolumeclaims", name);
            } catch (const std::exception&) {
            }
            throw;
        }
        // A half-made snapshot is removed whole; the sandbox is untouched.
        context.err << "removing snapshot " << name << "\n";
        try {
            kube.delete_named(manifests::kPods, copy_pod);
            if (!template_made) kube.delete_named("persistentvolumeclaims", name);
        } catch (const std::exception& e) {
            context.err << "sandbox-kubernetes: cleanup failed: " << e.what() << "\n";
        }
        throw;
    }
    return name;
}

} // namespace osf::kubernetes
