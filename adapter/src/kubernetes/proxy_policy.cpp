#include "kubernetes/proxy_policy.hpp"

#include "kubernetes/exec_stderr_filter.hpp"
#include "kubernetes/kubectl/kubectl_error.hpp"
#include "kubernetes/manifests/egress_objects.hpp"

#include <nlohmann/json.hpp>

namespace osf::kubernetes {

namespace {

constexpr std::string_view kProxyPrefix = "egress-proxy: ";

// The command's stderr as one line, the proxy's own "egress-proxy: " left out
// (the adapter's message names the proxy already).
std::string reason_of(const std::string& text) {
    std::string line = kubectl::condensed_message(text);
    if (line.rfind(kProxyPrefix, 0) == 0) line.erase(0, kProxyPrefix.size());
    return line;
}

} // namespace

std::vector<std::string> proxy_policy_command(const std::string& by) {
    return {manifests::kProxyBinary,   "policy", "--state-dir",
            manifests::kProxyStateDir, "--by",   by};
}

ProxyPolicyAnswer read_proxy_policy_answer(const kubectl::KubectlResult& result) {
    std::string command_err;
    ExecStderrFilter filter([&command_err](std::string_view text) { command_err.append(text); });
    filter.feed(result.err);
    const auto ending = filter.finish(result.exit_code);
    ProxyPolicyAnswer answer;
    if (!ending.command_exit_code) {
        answer.reason =
            ending.kubectl_error.empty() ? reason_of(result.err) : reason_of(ending.kubectl_error);
        if (answer.reason.empty())
            answer.reason = "kubectl exec exited " + std::to_string(result.exit_code);
        return answer;
    }
    const int code = *ending.command_exit_code;
    if (code == 0) {
        const auto body = nlohmann::json::parse(result.out, nullptr, false);
        if (!body.is_object() || !body.contains("generation") ||
            !body["generation"].is_number_unsigned()) {
            answer.reason = "the proxy's answer is not its policy JSON";
            return answer;
        }
        answer.outcome = ProxyPolicyAnswer::Outcome::applied;
        answer.generation = body["generation"].get<std::uint64_t>();
        return answer;
    }
    answer.outcome =
        code == 2 ? ProxyPolicyAnswer::Outcome::refused : ProxyPolicyAnswer::Outcome::unreachable;
    answer.reason = reason_of(command_err);
    if (answer.reason.empty()) answer.reason = "egress-proxy policy exited " + std::to_string(code);
    return answer;
}

} // namespace osf::kubernetes
