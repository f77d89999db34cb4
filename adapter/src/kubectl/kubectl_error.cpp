#include "kubectl/kubectl_error.hpp"

namespace osf::kubectl {

namespace {

std::string trim(const std::string& text) {
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first == std::string::npos) return {};
    const auto last = text.find_last_not_of(" \t\r\n");
    return text.substr(first, last - first + 1);
}

} // namespace

std::string describe_failure(const std::vector<std::string>& args, const KubectlResult& result) {
    const std::string command = args.empty() ? std::string("(none)") : args.front();
    std::string message = trim(result.err);
    if (message.empty()) message = "exit code " + std::to_string(result.exit_code);
    return "kubectl " + command + " failed: " + message;
}

void check(const std::vector<std::string>& args, const KubectlResult& result) {
    if (!result.ok()) throw KubectlError(describe_failure(args, result));
}

} // namespace osf::kubectl
