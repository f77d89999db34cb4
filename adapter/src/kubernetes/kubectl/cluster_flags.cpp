#include "kubernetes/kubectl/cluster_flags.hpp"

#include <memory>

namespace osf::kubernetes::kubectl {

std::vector<KubectlResult> ClusterFlagsRunner::run_pipeline(const std::vector<KubectlCall>& calls) {
    if (!flags_.kubeconfig && !flags_.context) return inner_.run_pipeline(calls);
    std::vector<KubectlCall> flagged = calls;
    for (auto& call : flagged) {
        std::vector<std::string> first;
        if (flags_.kubeconfig) first.push_back("--kubeconfig=" + *flags_.kubeconfig);
        if (flags_.context) first.push_back("--context=" + *flags_.context);
        call.args.insert(call.args.begin(), first.begin(), first.end());
    }
    return inner_.run_pipeline(flagged);
}

std::optional<std::string> context_namespace(KubectlRunner& runner) {
    KubectlCall call;
    call.args = {"config", "view", "--minify", "-o", "jsonpath={.contexts[0].context.namespace}"};
    const KubectlResult result = runner.run(call);
    if (!result.ok()) return std::nullopt;
    std::string ns = result.out;
    while (!ns.empty() && (ns.back() == '\n' || ns.back() == ' '))
        ns.pop_back();
    if (ns.empty()) return std::nullopt;
    return ns;
}

std::function<std::optional<std::string>(const std::string&)>
namespaced_getenv(const ClusterFlags& flags,
                  std::function<std::optional<std::string>(const std::string&)> base,
                  std::function<std::optional<std::string>()> fallback_namespace) {
    auto asked = std::make_shared<std::optional<std::optional<std::string>>>();
    return [&flags, base = std::move(base), fallback = std::move(fallback_namespace),
            asked](const std::string& name) -> std::optional<std::string> {
        if (name != "OSF_SANDBOX_NAMESPACE") return base(name);
        if (flags.ns) return flags.ns;
        if (auto value = base(name); value && !value->empty()) return value;
        if (!*asked) *asked = fallback();
        return **asked;
    };
}

} // namespace osf::kubernetes::kubectl
