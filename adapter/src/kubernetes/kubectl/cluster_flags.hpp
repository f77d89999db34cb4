// kubectl's own flags for which cluster and namespace to use, as
// sandbox-kubernetes takes them on every command (-n/--namespace, --context,
// --kubeconfig): set while the command line is parsed, read when the command
// runs.
#pragma once

#include "kubernetes/kubectl/kubectl_runner.hpp"

#include <functional>
#include <optional>
#include <string>

namespace osf::kubernetes::kubectl {

struct ClusterFlags {
    std::optional<std::string> ns;
    std::optional<std::string> context;
    std::optional<std::string> kubeconfig;
};

// A KubectlRunner that puts --kubeconfig and --context first on every call
// (kubectl reads its global flags anywhere before `--`).
class ClusterFlagsRunner : public KubectlRunner {
public:
    ClusterFlagsRunner(KubectlRunner& inner, const ClusterFlags& flags)
        : inner_(inner), flags_(flags) {}

    std::vector<KubectlResult> run_pipeline(const std::vector<KubectlCall>& calls) override;

private:
    KubectlRunner& inner_;
    const ClusterFlags& flags_;
};

// The namespace of the kubeconfig's current context (`kubectl config view
// --minify`, no cluster contact); nullopt when it names none or kubectl fails.
std::optional<std::string> context_namespace(KubectlRunner& runner);

// The variables with the flags over them: OSF_SANDBOX_NAMESPACE is -n when
// given, else the variable, else `fallback_namespace()` (asked at most once).
std::function<std::optional<std::string>(const std::string&)>
namespaced_getenv(const ClusterFlags& flags,
                  std::function<std::optional<std::string>(const std::string&)> base,
                  std::function<std::optional<std::string>()> fallback_namespace);

} // namespace osf::kubernetes::kubectl
