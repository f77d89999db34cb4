#include "kubernetes/secret_creation.hpp"

#include "kubernetes/kubectl/kubectl_error.hpp"
#include "kubernetes/manifests/egress_objects.hpp"
#include "kubernetes/manifests/names.hpp"
#include "kubernetes/manifests/owner_references.hpp"
#include "kubernetes/manifests/user_labels.hpp"

namespace osf::kubernetes {

using kubectl::KubectlCall;

std::vector<KubectlCall> secret_creation_calls(const sandbox::SandboxRequest& request,
                                               const sandbox::EnvLookup& getenv,
                                               const nlohmann::json& owner) {
    const std::string& ns = request.settings.ns;
    KubectlCall make;
    make.args = {"create",      "secret", "generic",          manifests::secret_name(request.id),
                 "--namespace", ns,       "--dry-run=client", "-o",
                 "json"};
    auto add_value = [&](const std::string& key, const std::string& variable) {
        const int fd = 3 + static_cast<int>(make.extra_inputs.size());
        make.args.push_back("--from-file=" + key + "=/dev/fd/" + std::to_string(fd));
        make.extra_inputs.push_back(getenv(variable).value_or(""));
    };
    for (const auto& name : request.secrets.env_names)
        add_value(sandbox::kEnvKeyPrefix + name, "OSF_SECRET_" + name);
    if (request.secrets.openbao) add_value(sandbox::kOpenBaoTokenKey, "OSF_OPENBAO_TOKEN");
    for (const auto& name : request.secrets.file_names)
        make.args.push_back("--from-file=" + std::string(sandbox::kFileKeyPrefix) + name + "=" +
                            request.settings.secrets_dir + "/" + name);

    KubectlCall patch;
    patch.args = {"patch",
                  "--local",
                  "-f",
                  "-",
                  "--type",
                  "merge",
                  "-p",
                  manifests::with_user_labels(manifests::secret_metadata_patch(request.id, owner),
                                              request.spec.labels)
                      .dump(),
                  "-o",
                  "json"};
    KubectlCall create;
    create.args = {"create", "--namespace", ns, "-f", "-"};
    return {make, patch, create};
}

void create_egress_secret(kubectl::Kubectl& kube, const sandbox::SandboxRequest& request,
                          const sandbox::EnvLookup& getenv, const nlohmann::json& owner) {
    const auto calls = secret_creation_calls(request, getenv, owner);
    const auto results = kube.runner().run_pipeline(calls);
    for (std::size_t i = 0; i < calls.size(); ++i)
        kubectl::check(calls[i].args, results[i]);
}

} // namespace osf::kubernetes
