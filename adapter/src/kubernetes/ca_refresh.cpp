#include "kubernetes/ca_refresh.hpp"

#include "commands/command_errors.hpp"
#include "kubernetes/sandbox_lookup.hpp"
#include "sandbox/sandbox_paths.hpp"

#include <ostream>
#include <set>
#include <string_view>

namespace osf::kubernetes {

namespace {

std::set<std::string> certificates_in(const std::string& bundle) {
    static constexpr std::string_view begin = "-----BEGIN CERTIFICATE-----";
    static constexpr std::string_view end = "-----END CERTIFICATE-----";
    std::set<std::string> found;
    for (auto at = bundle.find(begin); at != std::string::npos; at = bundle.find(begin, at)) {
        const auto stop = bundle.find(end, at);
        if (stop == std::string::npos) break;
        found.insert(bundle.substr(at, stop + end.size() - at));
        at = stop + end.size();
    }
    return found;
}

} // namespace

bool adds_certificate(const std::string& before, const std::string& after) {
    const auto old = certificates_in(before);
    for (const auto& certificate : certificates_in(after))
        if (!old.count(certificate)) return true;
    return false;
}

void wait_until_sandbox_trusts(OperationContext& context, kubectl::Kubectl& kube,
                               const std::string& id, const std::string& certificate,
                               std::chrono::seconds timeout) {
    const std::string pod = find_sandbox_pod(kube, id);
    kubectl::KubectlCall read;
    read.args = {"exec", pod, "--namespace", kube.ns(), "--", "cat", sandbox::kCaPath};
    const auto deadline = context.now() + timeout;
    bool said = false;
    for (;;) {
        // A failed read (the pod restarting, a slow API server) is one more try.
        const auto seen = kube.runner().run(read);
        if (seen.ok() && seen.out == certificate) return;
        if (context.now() >= deadline)
            throw commands::CommandFailed(
                "sandbox " + id + ": the change is in force in its egress proxy and stored, but " +
                sandbox::kCaPath + " in the sandbox still lacks the new CA certificate after " +
                std::to_string(timeout.count()) +
                " s (the kubelet refreshes ConfigMap volumes): HTTPS to a newly allowed host "
                "fails until it does");
        if (!said) {
            context.err << "waiting for the sandbox to see its egress proxy's new CA certificate "
                           "(the kubelet refreshes the mounted ConfigMap, usually within a "
                           "minute)\n"
                        << std::flush;
            said = true;
        }
        check_interrupted(context);
        context.sleep(context.poll_interval);
        check_interrupted(context);
    }
}

} // namespace osf::kubernetes
