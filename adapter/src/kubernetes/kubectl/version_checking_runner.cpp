#include "kubernetes/kubectl/version_checking_runner.hpp"

#include "kubernetes/kubectl/kubectl_error.hpp"
#include "kubernetes/kubectl/kubectl_version.hpp"

namespace osf::kubernetes::kubectl {

void VersionCheckingRunner::check_once() {
    if (!checked_) {
        checked_ = true;
        KubectlCall call;
        call.args = {"version", "--client", "-o", "json"};
        const KubectlResult result = inner_.run(call);
        if (!result.ok()) {
            refusal_ = describe_failure(call.args, result);
        } else if (const auto version = parse_client_version(result.out); !version) {
            refusal_ = "kubectl version --client -o json named no version; sandbox-kubernetes "
                       "needs kubectl " +
                       std::to_string(kMinimumKubectlMajor) + "." +
                       std::to_string(kMinimumKubectlMinor) + " or newer on PATH";
        } else if (!is_supported(*version)) {
            refusal_ = too_old_message(*version);
        }
    }
    if (refusal_) throw KubectlError(*refusal_);
}

std::vector<KubectlResult>
VersionCheckingRunner::run_pipeline(const std::vector<KubectlCall>& calls) {
    check_once();
    return inner_.run_pipeline(calls);
}

} // namespace osf::kubernetes::kubectl
