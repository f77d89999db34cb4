// The Pod Security Standards (kubernetes.io/docs/concepts/security/pod-security-standards/),
// each control as the documentation lists it, as a pure check of a pod spec: the
// adapter's pods are held to them row by row. Each check returns what violates
// the control, empty when the pod passes it.
#pragma once

#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

namespace osf::testing::pss {

using nlohmann::json;

enum class Level { Baseline, Restricted };

struct Control {
    const char* name;
    Level level; // Baseline controls apply to restricted too
    std::vector<std::string> (*check)(const json& metadata, const json& spec);
};

// Every container, init container and ephemeral container.
inline std::vector<json> all_containers(const json& spec) {
    std::vector<json> out;
    for (const char* list : {"initContainers", "containers", "ephemeralContainers"})
        if (spec.contains(list) && spec[list].is_array())
            for (const auto& c : spec[list])
                out.push_back(c);
    return out;
}

inline json at(const json& object, std::initializer_list<const char*> path) {
    const json* node = &object;
    for (const char* key : path) {
        if (!node->is_object() || !node->contains(key)) return nullptr;
        node = &(*node)[key];
    }
    return *node;
}

inline std::string where(const json& container) {
    return "container " + container.value("name", std::string("?"));
}

inline std::vector<std::string> host_process(const json&, const json& spec) {
    std::vector<std::string> bad;
    if (at(spec, {"securityContext", "windowsOptions", "hostProcess"}) == true)
        bad.push_back("pod");
    for (const auto& c : all_containers(spec))
        if (at(c, {"securityContext", "windowsOptions", "hostProcess"}) == true)
            bad.push_back(where(c));
    return bad;
}

inline std::vector<std::string> host_namespaces(const json&, const json& spec) {
    std::vector<std::string> bad;
    for (const char* field : {"hostNetwork", "hostPID", "hostIPC"})
        if (spec.value(field, false)) bad.push_back(field);
    return bad;
}

inline std::vector<std::string> privileged(const json&, const json& spec) {
    std::vector<std::string> bad;
    for (const auto& c : all_containers(spec))
        if (at(c, {"securityContext", "privileged"}) == true) bad.push_back(where(c));
    return bad;
}

inline std::vector<std::string> baseline_capabilities(const json&, const json& spec) {
    static const std::set<std::string> allowed = {
        "AUDIT_WRITE",      "CHOWN",   "DAC_OVERRIDE", "FOWNER",  "FSETID", "KILL",      "MKNOD",
        "NET_BIND_SERVICE", "SETFCAP", "SETGID",       "SETPCAP", "SETUID", "SYS_CHROOT"};
    std::vector<std::string> bad;
    for (const auto& c : all_containers(spec)) {
        const json add = at(c, {"securityContext", "capabilities", "add"});
        if (add.is_array())
            for (const auto& cap : add)
                if (!allowed.count(cap.get<std::string>()))
                    bad.push_back(where(c) + " adds " + cap.get<std::string>());
    }
    return bad;
}

inline std::vector<std::string> host_path_volumes(const json&, const json& spec) {
    std::vector<std::string> bad;
    for (const auto& v : spec.value("volumes", json::array()))
        if (v.contains("hostPath")) bad.push_back(v.value("name", "?"));
    return bad;
}

inline std::vector<std::string> host_ports(const json&, const json& spec) {
    std::vector<std::string> bad;
    for (const auto& c : all_containers(spec))
        for (const auto& p : c.value("ports", json::array()))
            if (p.value("hostPort", 0) != 0) bad.push_back(where(c));
    return bad;
}

inline std::vector<std::string> app_armor(const json& metadata, const json& spec) {
    std::vector<std::string> bad;
    auto check_type = [&](const json& type, const std::string& what) {
        if (!type.is_null() && type != "RuntimeDefault" && type != "Localhost") bad.push_back(what);
    };
    check_type(at(spec, {"securityContext", "appArmorProfile", "type"}), "pod");
    for (const auto& c : all_containers(spec))
        check_type(at(c, {"securityContext", "appArmorProfile", "type"}), where(c));
    const json annotations = metadata.value("annotations", json::object());
    for (const auto& [key, value] : annotations.items())
        if (key.rfind("container.apparmor.security.beta.kubernetes.io/", 0) == 0) {
            const std::string v = value.get<std::string>();
            if (v != "runtime/default" && v.rfind("localhost/", 0) != 0) bad.push_back(key);
        }
    return bad;
}

inline std::vector<std::string> se_linux(const json&, const json& spec) {
    static const std::set<std::string> types = {"", "container_t", "container_init_t",
                                                "container_kvm_t", "container_engine_t"};
    std::vector<std::string> bad;
    auto check = [&](const json& options, const std::string& what) {
        if (!options.is_object()) return;
        if (options.contains("type") && !types.count(options["type"].get<std::string>()))
            bad.push_back(what + " type");
        if (!options.value("user", std::string()).empty()) bad.push_back(what + " user");
        if (!options.value("role", std::string()).empty()) bad.push_back(what + " role");
    };
    check(at(spec, {"securityContext", "seLinuxOptions"}), "pod");
    for (const auto& c : all_containers(spec))
        check(at(c, {"securityContext", "seLinuxOptions"}), where(c));
    return bad;
}

inline std::vector<std::string> proc_mount(const json&, const json& spec) {
    std::vector<std::string> bad;
    for (const auto& c : all_containers(spec)) {
        const json mount = at(c, {"securityContext", "procMount"});
        if (!mount.is_null() && mount != "Default") bad.push_back(where(c));
    }
    return bad;
}

inline std::vector<std::string> baseline_seccomp(const json&, const json& spec) {
    std::vector<std::string> bad;
    if (at(spec, {"securityContext", "seccompProfile", "type"}) == "Unconfined")
        bad.push_back("pod");
    for (const auto& c : all_containers(spec))
        if (at(c, {"securityContext", "seccompProfile", "type"}) == "Unconfined")
            bad.push_back(where(c));
    return bad;
}

inline std::vector<std::string> sysctls(const json&, const json& spec) {
    static const std::set<std::string> safe = {"kernel.shm_rmid_forced",
                                               "net.ipv4.ip_local_port_range",
                                               "net.ipv4.ip_unprivileged_port_start",
                                               "net.ipv4.tcp_syncookies",
                                               "net.ipv4.ping_group_range",
                                               "net.ipv4.ip_local_reserved_ports",
                                               "net.ipv4.tcp_keepalive_time",
                                               "net.ipv4.tcp_fin_timeout",
                                               "net.ipv4.tcp_keepalive_intvl",
                                               "net.ipv4.tcp_keepalive_probes"};
    std::vector<std::string> bad;
    const json list = at(spec, {"securityContext", "sysctls"});
    if (list.is_array())
        for (const auto& s : list)
            if (!safe.count(s.value("name", ""))) bad.push_back(s.value("name", ""));
    return bad;
}

inline std::vector<std::string> volume_types(const json&, const json& spec) {
    static const std::set<std::string> allowed = {"configMap", "csi",       "downwardAPI",
                                                  "emptyDir",  "ephemeral", "persistentVolumeClaim",
                                                  "projected", "secret"};
    std::vector<std::string> bad;
    for (const auto& v : spec.value("volumes", json::array()))
        for (const auto& [key, value] : v.items())
            if (key != "name" && !allowed.count(key))
                bad.push_back(v.value("name", "?") + ": " + key);
    return bad;
}

inline std::vector<std::string> privilege_escalation(const json&, const json& spec) {
    std::vector<std::string> bad;
    for (const auto& c : all_containers(spec))
        if (at(c, {"securityContext", "allowPrivilegeEscalation"}) != false)
            bad.push_back(where(c));
    return bad;
}

inline std::vector<std::string> run_as_non_root(const json&, const json& spec) {
    std::vector<std::string> bad;
    const json pod = at(spec, {"securityContext", "runAsNonRoot"});
    if (pod == false) bad.push_back("pod");
    for (const auto& c : all_containers(spec)) {
        const json own = at(c, {"securityContext", "runAsNonRoot"});
        if (own == false || (own.is_null() && pod != true)) bad.push_back(where(c));
    }
    return bad;
}

inline std::vector<std::string> run_as_user(const json&, const json& spec) {
    std::vector<std::string> bad;
    if (at(spec, {"securityContext", "runAsUser"}) == 0) bad.push_back("pod");
    for (const auto& c : all_containers(spec))
        if (at(c, {"securityContext", "runAsUser"}) == 0) bad.push_back(where(c));
    return bad;
}

inline std::vector<std::string> restricted_seccomp(const json&, const json& spec) {
    auto fine = [](const json& type) { return type == "RuntimeDefault" || type == "Localhost"; };
    std::vector<std::string> bad;
    const json pod = at(spec, {"securityContext", "seccompProfile", "type"});
    if (!pod.is_null() && !fine(pod)) bad.push_back("pod");
    for (const auto& c : all_containers(spec)) {
        const json own = at(c, {"securityContext", "seccompProfile", "type"});
        if (own.is_null() ? !fine(pod) : !fine(own)) bad.push_back(where(c));
    }
    return bad;
}

inline std::vector<std::string> restricted_capabilities(const json&, const json& spec) {
    std::vector<std::string> bad;
    for (const auto& c : all_containers(spec)) {
        const json drop = at(c, {"securityContext", "capabilities", "drop"});
        bool drops_all = false;
        if (drop.is_array())
            for (const auto& cap : drop)
                drops_all = drops_all || cap == "ALL";
        if (!drops_all) bad.push_back(where(c) + " does not drop ALL");
        const json add = at(c, {"securityContext", "capabilities", "add"});
        if (add.is_array())
            for (const auto& cap : add)
                if (cap != "NET_BIND_SERVICE")
                    bad.push_back(where(c) + " adds " + cap.get<std::string>());
    }
    return bad;
}

inline const std::vector<Control>& controls() {
    static const std::vector<Control> all = {
        {"HostProcess", Level::Baseline, host_process},
        {"Host Namespaces", Level::Baseline, host_namespaces},
        {"Privileged Containers", Level::Baseline, privileged},
        {"Capabilities (baseline)", Level::Baseline, baseline_capabilities},
        {"HostPath Volumes", Level::Baseline, host_path_volumes},
        {"Host Ports", Level::Baseline, host_ports},
        {"AppArmor", Level::Baseline, app_armor},
        {"SELinux", Level::Baseline, se_linux},
        {"/proc Mount Type", Level::Baseline, proc_mount},
        {"Seccomp (baseline)", Level::Baseline, baseline_seccomp},
        {"Sysctls", Level::Baseline, sysctls},
        {"Volume Types", Level::Restricted, volume_types},
        {"Privilege Escalation", Level::Restricted, privilege_escalation},
        {"Running as Non-root", Level::Restricted, run_as_non_root},
        {"Running as Non-root user", Level::Restricted, run_as_user},
        {"Seccomp (restricted)", Level::Restricted, restricted_seccomp},
        {"Capabilities (restricted)", Level::Restricted, restricted_capabilities},
    };
    return all;
}

// Every violation of `level` (baseline's controls count for restricted), as
// "control: what".
inline std::vector<std::string> violations(const json& metadata, const json& spec, Level level) {
    std::vector<std::string> out;
    for (const auto& control : controls()) {
        if (control.level == Level::Restricted && level == Level::Baseline) continue;
        for (const auto& what : control.check(metadata, spec))
            out.push_back(std::string(control.name) + ": " + what);
    }
    return out;
}

} // namespace osf::testing::pss
