#include "kubernetes/kubectl/kubectl.hpp"

#include "kubernetes/kubectl/kubectl_error.hpp"

namespace osf::kubernetes::kubectl {

KubectlResult Kubectl::run_checked(const KubectlCall& call) {
    KubectlResult result = runner_.run(call);
    check(call.args, result);
    return result;
}

std::optional<nlohmann::json> Kubectl::get(const std::string& resource, const std::string& name) {
    KubectlCall call;
    call.args = {"get", resource, name, "--namespace", ns_, "--ignore-not-found", "-o", "json"};
    const KubectlResult result = run_checked(call);
    if (result.out.find_first_not_of(" \t\r\n") == std::string::npos) return std::nullopt;
    try {
        return nlohmann::json::parse(result.out);
    } catch (const nlohmann::json::exception&) {
        throw KubectlError("kubectl get failed: output is not JSON");
    }
}

bool Kubectl::exists(const std::string& resource, const std::string& name) {
    KubectlCall call;
    call.args = {"get", resource, name, "--namespace", ns_, "--ignore-not-found", "-o", "name"};
    return run_checked(call).out.find_first_not_of(" \t\r\n") != std::string::npos;
}

nlohmann::json Kubectl::list(const std::string& resources, const std::string& selector) {
    KubectlCall call;
    call.args = {"get", resources, "--namespace", ns_, "-l", selector, "-o", "json"};
    const KubectlResult result = run_checked(call);
    try {
        const auto list = nlohmann::json::parse(result.out);
        return list.value("items", nlohmann::json::array());
    } catch (const nlohmann::json::exception&) {
        throw KubectlError("kubectl get failed: output is not JSON");
    }
}

std::string Kubectl::list_fields(const std::string& resources, const std::string& selector,
                                 const std::string& jsonpath) {
    KubectlCall call;
    call.args = {"get", resources, "--namespace", ns_,
                 "-l",  selector,  "-o",          "jsonpath=" + jsonpath};
    return run_checked(call).out;
}

void Kubectl::create(const nlohmann::json& objects) {
    KubectlCall call;
    call.args = {"create", "--namespace", ns_, "-f", "-"};
    call.input = objects.dump();
    run_checked(call);
}

void Kubectl::delete_by_label(const std::string& resources, const std::string& selector) {
    KubectlCall call;
    call.args = {"delete", resources, "--namespace", ns_, "-l", selector, "--ignore-not-found"};
    run_checked(call);
}

void Kubectl::delete_named(const std::string& resource, const std::string& name) {
    KubectlCall call;
    call.args = {"delete", resource, name, "--namespace", ns_, "--ignore-not-found"};
    run_checked(call);
}

void Kubectl::delete_all_named(const std::vector<std::string>& objects) {
    KubectlCall call;
    call.args = {"delete"};
    call.args.insert(call.args.end(), objects.begin(), objects.end());
    call.args.insert(call.args.end(), {"--namespace", ns_, "--ignore-not-found"});
    run_checked(call);
}

void Kubectl::delete_with_dependents(const std::string& resource, const std::string& name) {
    KubectlCall call;
    call.args = {
        "delete", resource, name, "--namespace", ns_, "--ignore-not-found", "--cascade=foreground"};
    run_checked(call);
}

void Kubectl::delete_without_waiting(const std::string& resource, const std::string& name) {
    KubectlCall call;
    call.args = {"delete",      resource, name, "--namespace", ns_, "--ignore-not-found",
                 "--wait=false"};
    run_checked(call);
}

std::string Kubectl::exec_output(const std::string& pod, const std::string& container,
                                 const std::vector<std::string>& command) {
    KubectlCall call;
    call.args = {"exec", pod, "--namespace", ns_, "-c", container, "--"};
    call.args.insert(call.args.end(), command.begin(), command.end());
    return run_checked(call).out;
}

} // namespace osf::kubernetes::kubectl
