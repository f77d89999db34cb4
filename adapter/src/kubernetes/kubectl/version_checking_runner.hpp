// A KubectlRunner that, before the first call it passes on, asks the kubectl
// binary its version once (`kubectl version --client -o json`, no cluster
// contact) and refuses with one clear KubectlError when it is older than the
// adapter supports, instead of the confusing error an old kubectl gives later.
// Commands that never reach kubectl never pay for the check.
#pragma once

#include "kubernetes/kubectl/kubectl_runner.hpp"

#include <optional>
#include <string>

namespace osf::kubernetes::kubectl {

class VersionCheckingRunner : public KubectlRunner {
public:
    explicit VersionCheckingRunner(KubectlRunner& inner) : inner_(inner) {}

    std::vector<KubectlResult> run_pipeline(const std::vector<KubectlCall>& calls) override;

private:
    void check_once();

    KubectlRunner& inner_;
    bool checked_ = false;
    std::optional<std::string> refusal_; // kept: later calls (clean-up) fail the same way
};

} // namespace osf::kubernetes::kubectl
