#include "local/state/local_layout.hpp"

namespace osf::local {

namespace {

constexpr const char* kDirName = "osf-sandbox-local";

std::string absolute_or_throw(const std::string& variable, const std::string& value) {
    if (value.empty() || value.front() != '/')
        throw sandbox::SettingsError(variable + " must be an absolute path, got '" + value + "'");
    return value;
}

} // namespace

std::string state_root(const sandbox::EnvLookup& getenv, bool is_root) {
    auto set = [&getenv](const char* name) -> std::optional<std::string> {
        auto value = getenv(name);
        if (value && value->empty()) return std::nullopt;
        return value;
    };
    if (auto explicit_root = set("OSF_SANDBOX_LOCAL_STATE_DIR"))
        return absolute_or_throw("OSF_SANDBOX_LOCAL_STATE_DIR", *explicit_root);
    if (is_root) return std::string("/var/lib/") + kDirName;
    if (auto xdg = set("XDG_STATE_HOME"))
        return absolute_or_throw("XDG_STATE_HOME", *xdg) + "/" + kDirName;
    if (auto home = set("HOME"))
        return absolute_or_throw("HOME", *home) + "/.local/state/" + kDirName;
    throw sandbox::SettingsError(
        "no state directory: set OSF_SANDBOX_LOCAL_STATE_DIR, XDG_STATE_HOME or HOME");
}

std::string sandboxes_dir(const std::string& root) {
    return root + "/sandboxes";
}

std::string caches_dir(const std::string& root) {
    return root + "/caches";
}

std::string listeners_dir(const std::string& root) {
    return root + "/listeners";
}

std::string host_ids_lock(const std::string& root) {
    return root + "/host-ids.lock";
}

std::string snapshots_dir(const std::string& root) {
    return root + "/snapshots";
}

std::string snapshot_dir(const std::string& root, const std::string& name) {
    return snapshots_dir(root) + "/" + name;
}

SandboxPaths sandbox_paths(const std::string& root, const std::string& id) {
    SandboxPaths paths;
    paths.dir = sandboxes_dir(root) + "/" + id;
    paths.spec = paths.dir + "/spec.json";
    paths.meta = paths.dir + "/sandbox.json";
    paths.workspace = paths.dir + "/workspace";
    paths.proxy_state = paths.dir + "/proxy";
    paths.proxy_output = paths.dir + "/proxy.log";
    paths.proxy_socket = paths.dir + "/proxy.sock";
    paths.admin_socket = paths.dir + "/admin.sock";
    paths.log_key = paths.dir + "/egress-log-key.pub";
    paths.run = paths.dir + "/run";
    paths.egress_socket = paths.run + "/egress.sock";
    paths.control = paths.dir + "/control.sock";
    paths.lock = paths.dir + "/supervisor.lock";
    paths.pid = paths.dir + "/supervisor.pid";
    paths.ready = paths.dir + "/ready";
    paths.log = paths.dir + "/supervisor.log";
    paths.sandbox_log = paths.dir + "/sandbox.log";
    paths.sandbox_ca = paths.run + "/egress-ca.crt";
    paths.ssh_config = paths.run + "/ssh_config";
    paths.cache = paths.dir + "/cache";
    paths.workspace_image = paths.dir + "/workspace.img";
    paths.cgroups = paths.dir + "/cgroups";
    return paths;
}

} // namespace osf::local
