// The real KubectlRunner: starts the kubectl binary with posix_spawnp (never
// through a shell), feeds stdin, captures or passes through stdout and
// stderr, and returns each stage's exit code.
#pragma once

#include "kubernetes/kubectl/kubectl_runner.hpp"

#include <string>

namespace osf::kubernetes::kubectl {

class ProcessKubectlRunner : public KubectlRunner {
public:
    explicit ProcessKubectlRunner(std::string program = "kubectl") : program_(std::move(program)) {}

    std::vector<KubectlResult> run_pipeline(const std::vector<KubectlCall>& calls) override;

private:
    std::string program_;
};

} // namespace osf::kubernetes::kubectl
