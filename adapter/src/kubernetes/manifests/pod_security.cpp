#include "kubernetes/manifests/pod_security.hpp"

#include <algorithm>
#include <set>
#include <string>

namespace osf::kubernetes::manifests {

using nlohmann::json;

namespace {

// "CAP_SYS_ADMIN", "sys_admin" and "SYS_ADMIN" name the same capability.
std::string capability_name(std::string name) {
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    if (name.rfind("CAP_", 0) == 0) name.erase(0, 4);
    return name;
}

std::set<std::string> capability_set(const json& capabilities, const char* field) {
    std::set<std::string> names;
    if (!capabilities.is_object() || !capabilities.contains(field)) return names;
    for (const auto& name : capabilities[field])
        if (name.is_string()) names.insert(capability_name(name.get<std::string>()));
    return names;
}

bool runs_as_non_root(const json& security) {
    if (!security.is_object()) return false;
    if (security.value("runAsNonRoot", false) == true) return true;
    const auto user = security.find("runAsUser");
    return user != security.end() && user->is_number_integer() && user->get<std::int64_t>() > 0;
}

bool is_localhost(const json& profile) {
    return profile.is_object() && profile.value("type", "") == "Localhost" &&
           profile.contains("localhostProfile");
}

// A seccomp profile the overlay keeps: the runtime's default or the node's own
// (Localhost) profile; Unconfined and anything unknown become RuntimeDefault.
json tightened_seccomp(const json& profile) {
    if (is_localhost(profile)) return profile;
    return {{"type", "RuntimeDefault"}};
}

// The capabilities a container ends with: what the mode allows and the
// template did not take away. Without `drop: [ALL]` the template allowed the
// runtime's defaults minus what it dropped.
json tightened_capabilities(const json& capabilities, bool non_root, bool spec_user) {
    const std::set<std::string> dropped = capability_set(capabilities, "drop");
    const std::set<std::string> added = capability_set(capabilities, "add");
    const bool dropped_all = dropped.count("ALL") > 0;
    auto template_allows = [&](const std::string& name) {
        return dropped_all ? added.count(name) > 0 : dropped.count(name) == 0;
    };
    json add = json::array();
    if (!non_root) {
        for (const char* name : kRootModeCapabilities)
            if (template_allows(name)) add.push_back(name);
    } else if (!spec_user && added.count(kNonRootCapability) &&
               template_allows(kNonRootCapability)) {
        add.push_back(kNonRootCapability);
    }
    json result = {{"drop", json::array({"ALL"})}};
    if (!add.empty()) result["add"] = add;
    return result;
}

void set_user_ids(json& security, const osf::SandboxUser& user) {
    security["runAsNonRoot"] = true;
    security["runAsUser"] = user.uid;
    security["runAsGroup"] = user.gid;
}

} // namespace

PodHardening pod_hardening(const osf::Spec& spec, const json& pod_spec) {
    PodHardening hardening;
    hardening.user = spec.user;
    hardening.read_only_root = spec.read_only_root;
    const json security =
        pod_spec.is_object() ? pod_spec.value("securityContext", json::object()) : json::object();
    hardening.non_root = spec.user.has_value() || runs_as_non_root(security);
    return hardening;
}

json tighten_pod_security(json security, const PodHardening& hardening) {
    if (!security.is_object()) security = json::object();
    security["seccompProfile"] = tightened_seccomp(security.value("seccompProfile", json()));
    if (security.contains("appArmorProfile") &&
        security["appArmorProfile"].value("type", "") == "Unconfined")
        security["appArmorProfile"] = {{"type", "RuntimeDefault"}};
    if (security.contains("windowsOptions") && security["windowsOptions"].is_object())
        security["windowsOptions"].erase("hostProcess");
    if (hardening.user) {
        set_user_ids(security, *hardening.user);
        security["fsGroup"] = hardening.user->gid;
    } else if (hardening.non_root) {
        security["runAsNonRoot"] = true;
    }
    return security;
}

json tighten_container_security(json security, const PodHardening& hardening) {
    if (!security.is_object()) security = json::object();
    const bool non_root = hardening.non_root || runs_as_non_root(security);
    security["privileged"] = false;
    security["allowPrivilegeEscalation"] = false;
    security["capabilities"] = tightened_capabilities(security.value("capabilities", json()),
                                                      non_root, hardening.user.has_value());
    security["seccompProfile"] = tightened_seccomp(security.value("seccompProfile", json()));
    if (security.contains("appArmorProfile") &&
        security["appArmorProfile"].value("type", "") == "Unconfined")
        security["appArmorProfile"] = {{"type", "RuntimeDefault"}};
    if (security.contains("procMount")) security["procMount"] = "Default";
    if (security.contains("windowsOptions") && security["windowsOptions"].is_object())
        security["windowsOptions"].erase("hostProcess");
    if (hardening.user) {
        set_user_ids(security, *hardening.user);
    } else if (non_root) {
        security["runAsNonRoot"] = true;
        // runAsUser 0 beside runAsNonRoot would never start: the kubelet refuses it.
        if (security.contains("runAsUser") && security["runAsUser"] == 0)
            security.erase("runAsUser");
    }
    if (hardening.read_only_root) security["readOnlyRootFilesystem"] = true;
    return security;
}

void tighten_pod(json& pod_metadata, json& pod_spec, const PodHardening& hardening) {
    // Host namespaces and host ports would put the sandbox beside its proxy
    // instead of behind it.
    for (const char* field : {"hostNetwork", "hostPID", "hostIPC"})
        pod_spec.erase(field);
    pod_spec["securityContext"] =
        tighten_pod_security(pod_spec.value("securityContext", json::object()), hardening);
    for (const char* list : {"initContainers", "containers"}) {
        if (!pod_spec.contains(list) || !pod_spec[list].is_array()) continue;
        for (auto& container : pod_spec[list]) {
            if (!container.is_object()) continue;
            const json own = container.value("securityContext", json::object());
            container["securityContext"] = tighten_container_security(own, hardening);
            // A container without a Localhost profile of its own runs under the
            // pod's (RuntimeDefault would override the template's own profile).
            if (is_localhost(pod_spec["securityContext"]["seccompProfile"]) &&
                !(own.is_object() && is_localhost(own.value("seccompProfile", json()))))
                container["securityContext"]["seccompProfile"] =
                    pod_spec["securityContext"]["seccompProfile"];
            if (container.contains("ports") && container["ports"].is_array())
                for (auto& port : container["ports"])
                    if (port.is_object()) port.erase("hostPort");
        }
    }
    // The annotation form of AppArmor (before Kubernetes 1.30).
    if (pod_metadata.is_object() && pod_metadata.contains("annotations") &&
        pod_metadata["annotations"].is_object())
        for (auto& [key, value] : pod_metadata["annotations"].items())
            if (key.rfind("container.apparmor.security.beta.kubernetes.io/", 0) == 0 &&
                value == "unconfined")
                value = "runtime/default";
}

} // namespace osf::kubernetes::manifests
