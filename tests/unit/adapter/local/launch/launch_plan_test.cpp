// A local sandbox's launch plan: what the supervisor runs and `create
// --dry-run` shows (the proxy's command line and environment, bwrap's, the
// staged binds and the cgroup limits), from a spec and the host's facts.
#include "local/launch/launch_plan.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <map>

using namespace osf::local;

TEST_CASE("the proxy listens on the sandbox's egress socket and a private admin socket") {
    const auto paths = sandbox_paths("/var/lib/osf-sandbox", "abc123def456");
    const auto argv = proxy_argv("/usr/bin/egress-proxy", paths);
    REQUIRE(argv.size() % 2 == 1);
    CHECK(argv.front() == "/usr/bin/egress-proxy");
    std::map<std::string, std::string> flags;
    for (std::size_t i = 1; i + 1 < argv.size(); i += 2)
        CHECK(flags.emplace(argv[i], argv[i + 1]).second);
    CHECK(flags.size() == 6);
    // The listener the supervisor hands it: the egress socket the sandbox sees.
    CHECK(flags["--listen"] == "fd:" + std::to_string(kProxyListenerFd));
    CHECK(kProxyListenerFd > 2);
    CHECK(flags["--max-connections"] == std::to_string(kProxyMaxConnections));
    // The agent hands it the connections it accepts on a channel of their own.
    CHECK(flags["--handoff-fd"] == std::to_string(kProxyHandoffFd));
    CHECK(kProxyHandoffFd != kProxyListenerFd);
    CHECK(kProxyHandoffFd > 2);
    CHECK(flags["--admin-listen"] == "unix:" + paths.admin_socket);
    CHECK(flags["--spec"] == paths.spec);
    CHECK(flags["--state-dir"] == paths.proxy_state);
    // The admin socket directly in the sandbox's directory (0700, the owner's),
    // never in run/, the directory the sandbox itself sees; the egress socket in run/.
    CHECK(paths.admin_socket.rfind('/') == paths.dir.size());
    CHECK_FALSE(paths.admin_socket.starts_with(paths.run + "/"));
    CHECK(paths.egress_socket.starts_with(paths.run + "/"));
    CHECK(paths.spec.starts_with(paths.dir + "/"));
    CHECK(paths.proxy_state.starts_with(paths.dir + "/"));
}

namespace {

osf::sandbox::SandboxRequest request_with(const std::string& spec_text) {
    osf::sandbox::SandboxRequest request;
    request.id = "0123456789ab";
    request.spec_text = spec_text;
    auto parsed = osf::parse_spec(spec_text);
    REQUIRE(parsed.ok());
    request.spec = *parsed.spec;
    for (const auto& [name, ref] : request.spec.secrets)
        if (ref.kind == osf::SecretRef::Kind::Env) request.secrets.env_names.push_back(ref.target);
    return request;
}

// What read_host_mounts would find for the host template.
SandboxMounts host_facts(const SandboxPaths& paths) {
    SandboxMounts mounts;
    mounts.id = "0123456789ab";
    mounts.root_entries = {{"usr", HostEntry::Kind::Directory, "", true}};
    mounts.etc_entries = {{"passwd", HostEntry::Kind::File, "", true}};
    mounts.workspace = paths.workspace;
    mounts.ca_file = paths.sandbox_ca;
    mounts.ssh_config = paths.ssh_config;
    mounts.egress_socket = paths.egress_socket;
    mounts.agent_binary = "/usr/bin/sandbox-local";
    return mounts;
}

bool binds_from(const std::vector<std::string>& argv, const std::string& source,
                const std::string& target) {
    for (std::size_t i = 0; i + 2 < argv.size(); ++i)
        if ((argv[i] == "--bind" || argv[i] == "--ro-bind") && argv[i + 1] == source &&
            argv[i + 2] == target)
            return true;
    return false;
}

} // namespace

TEST_CASE("launch plan: one table of specs and callers, each part from the same inputs") {
    const std::string root = "/var/lib/osf-sandbox";
    const auto paths = sandbox_paths(root, "0123456789ab");
    const std::map<std::string, std::string> caller_env = {{"OSF_SECRET_API_TOKEN", "real-value"},
                                                           {"OSF_SECRET_OTHER", "not-asked-for"}};
    const osf::sandbox::EnvLookup caller =
        [&](const std::string& name) -> std::optional<std::string> {
        const auto found = caller_env.find(name);
        if (found == caller_env.end()) return std::nullopt;
        return found->second;
    };
    struct Row {
        const char* spec;
        bool own_host_id;
        std::vector<std::string> proxy_variables;
        std::vector<std::pair<std::string, std::string>> limits;
    };
    const std::vector<Row> table = {
        {R"({})", false, {}, {{"pids.max", "4096"}}},
        {R"({})", true, {}, {{"pids.max", "4096"}}},
        {R"({"cpu": "500m", "memory": "1Gi", "secrets": {"API_TOKEN": "ref:env/API_TOKEN"}})",
         false,
         {"OSF_SECRET_API_TOKEN"},
         {{"cpu.max", "50000 100000"}, {"memory.max", "1073741824"}, {"pids.max", "4096"}}},
        {R"({"cpu": 2, "secrets": {"API_TOKEN": "ref:env/API_TOKEN"}})",
         true,
         {"OSF_SECRET_API_TOKEN"},
         {{"cpu.max", "200000 100000"}, {"pids.max", "4096"}}},
    };
    for (const auto& row : table) {
        INFO(row.spec << (row.own_host_id ? " (own host id)" : " (caller's id)"));
        const auto request = request_with(row.spec);
        const LaunchPlan plan = launch_plan({request, paths, root, "/usr/bin/egress-proxy", caller,
                                             host_facts(paths), row.own_host_id});
        CHECK(plan.proxy_argv == proxy_argv("/usr/bin/egress-proxy", paths));
        std::vector<std::string> names;
        for (const auto& [name, value] : plan.proxy_environment) {
            names.push_back(name);
            if (name == "OSF_SECRET_API_TOKEN") CHECK(value == "real-value");
        }
        CHECK(names == row.proxy_variables);
        CHECK(plan.cgroup_limits == row.limits);
        REQUIRE(plan.sandbox_argv.size() > 2);
        CHECK(plan.sandbox_argv.front() == "bwrap");
        // A sandbox under a host id of its own binds only what its bwrap staged;
        // one under the caller's id binds the state directory's files directly.
        CHECK(plan.staged.empty() == !row.own_host_id);
        CHECK(binds_from(plan.sandbox_argv, paths.workspace, "/workspace") == !row.own_host_id);
        CHECK(binds_from(plan.sandbox_argv, "/run/osf-stage/workspace", "/workspace") ==
              row.own_host_id);
        // The ssh client configuration the supervisor writes is the one bound.
        CHECK(plan.ssh_config.find("ProxyCommand /run/osf/sandbox-local __connect %h %p") !=
              std::string::npos);
        // Staged, /etc is one tree bound whole, the ssh client configuration in it.
        CHECK(binds_from(plan.sandbox_argv, paths.ssh_config, "/etc/ssh/ssh_config") ==
              !row.own_host_id);
        CHECK(binds_from(plan.sandbox_argv, "/run/osf-stage/etc", "/etc") == row.own_host_id);
        CHECK(std::any_of(plan.staged.begin(), plan.staged.end(), [&](const StagedBind& bind) {
                  return bind.source == paths.ssh_config &&
                         bind.target == "/run/osf-stage/etc/ssh/ssh_config";
              }) == row.own_host_id);
        for (const auto& bind : plan.staged)
            CHECK((std::find(plan.sandbox_argv.begin(), plan.sandbox_argv.end(), bind.target) !=
                       plan.sandbox_argv.end() ||
                   bind.target.rfind("/run/osf-stage/etc/", 0) == 0));
    }
}
