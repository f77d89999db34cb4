#include "kubernetes/manifests/create_objects.hpp"

#include "kubernetes/manifests/claim_lifetime.hpp"
#include "kubernetes/manifests/egress_objects.hpp"
#include "kubernetes/manifests/names.hpp"
#include "kubernetes/manifests/package_cache.hpp"
#include "kubernetes/manifests/persistence.hpp"
#include "kubernetes/manifests/sandbox_objects.hpp"
#include "kubernetes/manifests/snapshot_objects.hpp"
#include "kubernetes/manifests/user_labels.hpp"
#include "sandbox/lifetime.hpp"

namespace osf::kubernetes::manifests {

using nlohmann::json;

json kube_list(const json& items) {
    return {{"apiVersion", "v1"}, {"kind", "List"}, {"metadata", json::object()}, {"items", items}};
}

json sandbox_claim_object(const sandbox::SandboxRequest& request, const json& base_pod_template) {
    return with_user_labels(
        with_lifetime(sandbox_claim(request, first_container_image(base_pod_template)),
                      request.lifetime),
        request.spec.labels);
}

json egress_side_objects(const sandbox::SandboxRequest& request, sandbox::WallTime now) {
    json pod = egress_pod(request);
    pod["spec"] = with_pod_deadline(pod["spec"], request.lifetime.pods_end, now);
    json objects = json::array({spec_config_map(request)});
    if (!request.upstream_ca_pem.empty()) objects.push_back(upstream_ca_config_map(request));
    for (auto& object : {pod, egress_service(request), egress_network_policy(request)})
        objects.push_back(object);
    return with_user_labels_each(std::move(objects), request.spec.labels);
}

json sandbox_side_objects(const sandbox::SandboxRequest& request, const json& base_pod_template,
                          const std::string& ca_pem, sandbox::WallTime now) {
    json pod_template = with_package_cache(
        with_workspace_volume(sandbox_pod_template(base_pod_template, request)), request);
    pod_template["spec"] = with_pod_deadline(pod_template["spec"], request.lifetime.pods_end, now);
    return with_user_labels_each(
        json::array({ca_config_map(request, ca_pem),
                     with_restore_as_sandbox(
                         with_persistence(sandbox_template(request, pod_template), request)),
                     sandbox_warm_pool(request)}),
        request.spec.labels);
}

json sandbox_pod_probe(const sandbox::SandboxRequest& request, const json& base_pod_template) {
    const json pod_template = sandbox_pod_template(base_pod_template, request);
    json metadata = pod_template.value("metadata", json::object());
    metadata["name"] = sandbox_name(request.id);
    metadata["namespace"] = request.settings.ns;
    return {{"apiVersion", "v1"},
            {"kind", "Pod"},
            {"metadata", metadata},
            {"spec", pod_template.value("spec", json::object())}};
}

json dry_run_list(const sandbox::SandboxRequest& request, const json& base_pod_template) {
    json items = json::array();
    const sandbox::WallTime now = request.lifetime.created;
    items.push_back(sandbox_claim_object(request, base_pod_template));
    if (!request.secrets.empty())
        items.push_back(with_user_labels(egress_secret_preview(request), request.spec.labels));
    for (auto& item : egress_side_objects(request, now))
        items.push_back(item);
    for (auto& item : sandbox_side_objects(request, base_pod_template, "", now))
        items.push_back(item);
    return kube_list(items);
}

} // namespace osf::kubernetes::manifests
