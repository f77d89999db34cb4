// The local backend's pure decisions: what the sandbox sees (mounts and
// variables), what a template means, the cgroup values, the exec protocol and
// where state lives.
#include "commands/command_errors.hpp"
#include "local/bwrap_command.hpp"
#include "local/cgroup_limits.hpp"
#include "local/exec_protocol.hpp"
#include "local/local_layout.hpp"
#include "local/sandbox_environment.hpp"
#include "local/template_choice.hpp"
#include "local/user_namespaces.hpp"
#include "process/wait.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <sys/wait.h>

using namespace osf::local;
using osf::sandbox::SandboxRequest;

namespace {

SandboxRequest request_with(const std::string& spec_text) {
    SandboxRequest request;
    request.id = "0123456789ab";
    request.spec_text = spec_text;
    auto parsed = osf::parse_spec(spec_text);
    REQUIRE(parsed.ok());
    request.spec = *parsed.spec;
    request.secrets.env_names = {"API_TOKEN"};
    return request;
}

std::map<std::string, std::string> as_map(const Environment& environment) {
    return {environment.begin(), environment.end()};
}

bool has_sequence(const std::vector<std::string>& args, const std::vector<std::string>& sequence) {
    return std::search(args.begin(), args.end(), sequence.begin(), sequence.end()) != args.end();
}

HostEntry dir(const std::string& name, bool readable = true) {
    return {name, HostEntry::Kind::Directory, "", readable};
}
HostEntry file(const std::string& name, bool readable = true) {
    return {name, HostEntry::Kind::File, "", readable};
}
HostEntry symlink_entry(const std::string& name, const std::string& target) {
    return {name, HostEntry::Kind::Symlink, target, false};
}

} // namespace

TEST_CASE("the sandbox's variables: a fixed base, the spec's, placeholders, then proxy and CA") {
    const auto request = request_with(
        R"({"template":"host","env":{"GREETING":"hi","HOME":"/home/me"},
            "secrets":{"API_TOKEN":"ref:env/API_TOKEN"}})");
    const auto env = as_map(sandbox_environment(request));
    CHECK(env.at("GREETING") == "hi");
    CHECK(env.at("HOME") == "/home/me"); // the spec may set the base variables
    CHECK(env.at("API_TOKEN") == "osf-secret-placeholder-API_TOKEN");
    CHECK(env.at("HTTPS_PROXY") == "http://127.0.0.1:8080");
    CHECK(env.at("no_proxy").empty());
    for (const char* name : {"SSL_CERT_FILE", "NODE_EXTRA_CA_CERTS", "REQUESTS_CA_BUNDLE",
                             "CURL_CA_BUNDLE", "GIT_SSL_CAINFO"})
        CHECK(env.at(name) == "/etc/osf/egress-ca.crt");
    // /cache and the package managers' cache variables, as on Kubernetes
    CHECK(env.at("npm_config_cache") == "/cache/npm");
    CHECK(env.at("XDG_CACHE_HOME") == "/cache");
    CHECK(env.size() == 22); // PATH, LANG, GREETING, HOME, 6 cache, the secret, 6 proxy, 5 CA
    const auto plain = as_map(sandbox_environment(request_with(R"({"template":"host"})")));
    CHECK(plain.at("HOME") == "/workspace");
    CHECK(plain.at("PATH").starts_with("/usr/local/sbin"));
}

TEST_CASE("the proxy gets only the variables the spec's secrets and names need") {
    auto request =
        request_with(R"({"template":"host","secrets":{"API_TOKEN":"ref:env/API_TOKEN"}})");
    const std::map<std::string, std::string> caller = {
        {"OSF_SECRET_API_TOKEN", "real"},
        {"OSF_SECRET_OTHER", "not-asked-for"},
        {"OSF_SANDBOX_HOST_ALIASES", "a.test=127.0.0.1"},
        {"HOME", "/root"},
        {"OSF_OPENBAO_TOKEN", "not-used"}};
    const auto env = as_map(proxy_environment(request, [&](const std::string& name) {
        auto it = caller.find(name);
        return it == caller.end() ? std::nullopt : std::optional<std::string>(it->second);
    }));
    CHECK(env ==
          std::map<std::string, std::string>{{"OSF_SECRET_API_TOKEN", "real"},
                                             {"OSF_SANDBOX_HOST_ALIASES", "a.test=127.0.0.1"}});
}

TEST_CASE("bwrap: every namespace, no capabilities, only the system directories") {
    SandboxMounts mounts;
    mounts.id = "0123456789ab";
    mounts.root_entries = {dir("usr"),     symlink_entry("bin", "usr/bin"),
                           dir("home"),    dir("root", false),
                           dir("var"),     dir("opt"),
                           dir("tmp"),     dir("lib"),
                           file("vmlinuz")};
    mounts.etc_entries = {file("passwd"),
                          file("shadow", false),
                          dir("ssh"),
                          dir("ssl"),
                          file("resolv.conf"),
                          file("secret.conf", false),
                          symlink_entry("mtab", "../proc/self/mounts")};
    mounts.etc_masks_present = {"/etc/ssl/private"};
    mounts.workspace = "/state/ws";
    mounts.ca_file = "/state/proxy/ca.crt";
    mounts.egress_socket = "/state/run/egress.sock";
    mounts.agent_binary = "/usr/bin/sandbox-local";
    mounts.control_fd = 3;
    mounts.environment = {{"A", "1"}};
    const auto args = bwrap_arguments(mounts);
    CHECK(args.front() == "bwrap");
    for (const char* flag :
         {"--die-with-parent", "--new-session", "--unshare-user", "--unshare-ipc", "--unshare-pid",
          "--as-pid-1", "--unshare-net", "--unshare-uts", "--disable-userns", "--clearenv"})
        CHECK(std::find(args.begin(), args.end(), flag) != args.end());
    CHECK(has_sequence(args, {"--cap-drop", "ALL"}));
    CHECK(has_sequence(args, {"--hostname", "osf-sandbox-0123456789ab"}));
    CHECK(has_sequence(args, {"--setenv", "A", "1"}));
    CHECK(has_sequence(args, {"--ro-bind", "/usr", "/usr"}));
    CHECK(has_sequence(args, {"--symlink", "usr/bin", "/bin"}));
    CHECK(has_sequence(args, {"--ro-bind", "/lib", "/lib"}));
    for (const char* hidden : {"/home", "/root", "/var", "/opt", "/vmlinuz", "/etc/shadow",
                               "/etc/ssh", "/etc/resolv.conf", "/etc/secret.conf"})
        CHECK(std::find(args.begin(), args.end(), hidden) == args.end());
    CHECK(has_sequence(args, {"--ro-bind", "/etc/passwd", "/etc/passwd"}));
    CHECK(has_sequence(args, {"--tmpfs", "/etc/ssl/private"}));
    CHECK(has_sequence(args, {"--symlink", "../proc/self/mounts", "/etc/mtab"}));
    CHECK(has_sequence(args, {"--ro-bind", "/state/proxy/ca.crt", "/etc/osf/egress-ca.crt"}));
    CHECK(has_sequence(args, {"--size", "0", "--tmpfs", "/tmp"}));
    CHECK(has_sequence(args, {"--ro-bind", "/state/run/egress.sock", "/run/osf/egress.sock"}));
    CHECK(has_sequence(args, {"--bind", "/state/ws", "/workspace", "--chdir", "/workspace"}));
    // Root inside by default; read-only everywhere but the binds and tmpfs
    // that are the sandbox's own, remounted once everything else is made.
    CHECK(has_sequence(args, {"--uid", "0", "--gid", "0"}));
    CHECK(has_sequence(args, {"--remount-ro", "/run", "--remount-ro", "/dev", "--remount-ro", "/",
                              "--", "/run/osf/sandbox-local", "__agent", "3"}));
    CHECK(args.back() == "3");
}

TEST_CASE("bwrap: /tmp and /dev/shm are sized, /cache is bound") {
    SandboxMounts mounts;
    mounts.id = "0123456789ab";
    mounts.tmp_bytes = 256LL << 20;
    mounts.shm_bytes = 64LL << 20;
    mounts.cache = "/state/caches/npm";
    const auto args = bwrap_arguments(mounts);
    CHECK(has_sequence(args, {"--size", "268435456", "--tmpfs", "/tmp"}));
    CHECK(has_sequence(args, {"--size", "67108864", "--tmpfs", "/dev/shm"}));
    CHECK(has_sequence(args, {"--bind", "/state/caches/npm", "/cache"}));
    osf::Spec spec;
    CHECK(tmpfs_sizes(spec).tmp == 1LL << 30);
    CHECK(tmpfs_sizes(spec).shm == 64LL << 20);
    spec.memory = "256Mi";
    CHECK(tmpfs_sizes(spec).tmp == 256LL << 20);
    spec.memory = "32Mi";
    CHECK(tmpfs_sizes(spec).shm == 32LL << 20);
    // tmpSize sets /tmp alone.
    spec.tmp_size = "512Mi";
    CHECK(tmpfs_sizes(spec).tmp == 512LL << 20);
    CHECK(tmpfs_sizes(spec).shm == 32LL << 20);
}

TEST_CASE("bwrap: a root file system directory shows all but what the sandbox gets fresh") {
    SandboxMounts mounts;
    mounts.id = "0123456789ab";
    mounts.root_source = "/srv/rootfs";
    mounts.host_template = false;
    mounts.root_entries = {dir("usr"),  dir("var"), dir("home"),
                           dir("proc"), dir("tmp"), dir("etc")};
    mounts.etc_entries = {file("os-release")};
    const auto args = bwrap_arguments(mounts);
    CHECK(has_sequence(args, {"--ro-bind", "/srv/rootfs/usr", "/usr"}));
    CHECK(has_sequence(args, {"--ro-bind", "/srv/rootfs/var", "/var"}));
    CHECK(has_sequence(args, {"--ro-bind", "/srv/rootfs/home", "/home"}));
    CHECK(has_sequence(args, {"--ro-bind", "/srv/rootfs/etc/os-release", "/etc/os-release"}));
    CHECK_FALSE(has_sequence(args, {"--ro-bind", "/srv/rootfs/proc", "/proc"}));
    CHECK_FALSE(has_sequence(args, {"--ro-bind", "/srv/rootfs/tmp", "/tmp"}));
}

TEST_CASE("templates: host, a root directory, a local image, a snapshot; the rest refused") {
    TemplateLookup lookup{[](const std::string& d) { return d == "/srv/rootfs"; },
                          [](const std::string& n) { return n == "osf-snapshot-x"; },
                          [](const std::string& i) { return i == "localhost/tools:1"; }};
    CHECK(choose_template("host", lookup).kind == TemplateChoice::Kind::Host);
    const auto root = choose_template("/srv/rootfs", lookup);
    CHECK(root.kind == TemplateChoice::Kind::RootDirectory);
    CHECK(root.root_directory == "/srv/rootfs");
    const auto image = choose_template("localhost/tools:1", lookup);
    CHECK(image.kind == TemplateChoice::Kind::Image);
    CHECK(image.image == "localhost/tools:1");
    CHECK(choose_template("osf-snapshot-x", lookup).kind == TemplateChoice::Kind::Snapshot);
    CHECK_THROWS_AS(choose_template("/srv/missing", lookup), osf::commands::UsageError);
    CHECK_THROWS_AS(choose_template("node:24-alpine", lookup), osf::commands::UsageError);
    CHECK_THROWS_AS(choose_template("other", lookup), osf::commands::CommandFailed);
}

TEST_CASE("user namespaces: root always; a clear reason where users cannot") {
    CHECK_FALSE(user_namespace_problem(true, {"1", "15000"}));
    CHECK(user_namespace_problem(true, {"0", "15000"})->find("host id of their own") !=
          std::string::npos);
    CHECK_FALSE(user_namespace_problem(false, {std::nullopt, "15000"}));
    CHECK_FALSE(user_namespace_problem(false, {"1\n", "15000"}));
    CHECK(user_namespace_problem(false, {"0\n", "15000"})->find("unprivileged_userns_clone=0") !=
          std::string::npos);
    CHECK(user_namespace_problem(false, {std::nullopt, "0"})->find("max_user_namespaces=0") !=
          std::string::npos);
    // bwrap 0.8's own words where the kernel refuses, and an AppArmor refusal.
    CHECK(describe_bwrap_failure("bwrap: No permissions to creating new namespace, likely because "
                                 "the kernel does not allow non-privileged user namespaces.")
              .starts_with("bwrap cannot create the sandbox's namespaces"));
    CHECK(describe_bwrap_failure("bwrap: setting up uid map: Permission denied")
              .starts_with("bwrap cannot create the sandbox's namespaces"));
    CHECK(describe_bwrap_failure("bwrap: Can't find source path /x: No such file or directory") ==
          "bwrap failed: bwrap: Can't find source path /x: No such file or directory");
}

TEST_CASE("bwrap: the spec's user becomes the IDs inside the user namespace") {
    SandboxMounts mounts;
    mounts.id = "0123456789ab";
    mounts.uid = 1000;
    mounts.gid = 1001;
    CHECK(has_sequence(bwrap_arguments(mounts), {"--uid", "1000", "--gid", "1001"}));
}

TEST_CASE("bwrap: what create says when bwrap cannot start") {
    CHECK(describe_bwrap_failure("bwrap: Failed to make / slave: Invalid argument")
              .find("mount --bind DIR DIR") != std::string::npos);
    // Debian 11's bubblewrap 0.4 on the PATH: name the version needed, not only bwrap's line.
    CHECK(describe_bwrap_failure("bwrap: Unknown option --disable-userns")
              .find("needs bubblewrap 0.8 or newer") != std::string::npos);
}

TEST_CASE("bwrap: in a foreign root the agent runs with the host's loader and libraries") {
    SandboxMounts mounts;
    mounts.id = "0123456789ab";
    mounts.root_source = "/srv/rootfs";
    mounts.host_template = false;
    mounts.host_loader = "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2";
    mounts.host_library_dirs = {"/usr/lib/x86_64-linux-gnu", "/opt/lib"};
    mounts.control_fd = 4;
    const auto args = bwrap_arguments(mounts);
    CHECK(has_sequence(args, {"--ro-bind",
                              "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",
                              "/run/osf/ld.so",
                              "--ro-bind",
                              "/usr/lib/x86_64-linux-gnu",
                              "/run/osf/lib/0",
                              "--ro-bind",
                              "/opt/lib",
                              "/run/osf/lib/1",
                              "--remount-ro",
                              "/run",
                              "--remount-ro",
                              "/dev",
                              "--remount-ro",
                              "/",
                              "--",
                              "/run/osf/ld.so",
                              "--library-path",
                              "/run/osf/lib/0:/run/osf/lib/1",
                              "/run/osf/sandbox-local",
                              "__agent",
                              "4"}));
}

TEST_CASE("cgroup values from cpu and memory") {
    CHECK(cpu_millicores("2") == 2000);
    CHECK(cpu_millicores("0.5") == 500);
    CHECK(cpu_millicores("1.25") == 1250);
    CHECK(cpu_millicores("250m") == 250);
    CHECK(memory_bytes("4Gi") == 4LL << 30);
    CHECK(memory_bytes("512Mi") == 512LL << 20);
    CHECK(memory_bytes("1G") == 1000000000LL);
    CHECK(memory_bytes("1000") == 1000);
    auto spec = *osf::parse_spec(R"({"template":"host","cpu":"500m","memory":"1Gi"})").spec;
    CHECK(cgroup_values(spec) ==
          std::vector<std::pair<std::string, std::string>>{
              {"cpu.max", "50000 100000"}, {"memory.max", "1073741824"}, {"pids.max", "4096"}});
    auto bare = *osf::parse_spec(R"({"template":"host","cpu":0.001})").spec;
    CHECK(cgroup_values(bare).front() ==
          std::pair<std::string, std::string>{"cpu.max", "1000 100000"});
}

TEST_CASE("exec protocol: requests and answers round-trip; anything else is refused") {
    ExecMessage message{{"sh", "-c", "echo \"hi\""}, true, "xterm"};
    const auto decoded = decode_exec_message(encode_exec_message(message));
    REQUIRE(decoded);
    CHECK(decoded->command == message.command);
    CHECK(decoded->terminal);
    CHECK(decoded->term == "xterm");
    CHECK_FALSE(decode_exec_message("not json"));
    CHECK_FALSE(decode_exec_message(R"({"command":[]})"));
    CHECK_FALSE(decode_exec_message(R"({"command":[1]})"));
    CHECK(decode_exit(encode_exit(0)) == 0);
    CHECK(decode_exit(encode_exit(137)) == 137);
    CHECK_FALSE(decode_exit("exit 7"));
    CHECK_FALSE(decode_exit("exit 300\n"));
    CHECK_FALSE(decode_exit(""));
    CHECK(osf::process::exit_code_of(7 << 8) == 7);
    CHECK(osf::process::exit_code_of(SIGKILL) == 137);
}

TEST_CASE("state root: the variable, root's, XDG's or HOME's") {
    auto env = [](std::map<std::string, std::string> values) {
        return [values](const std::string& name) {
            auto it = values.find(name);
            return it == values.end() ? std::nullopt : std::optional<std::string>(it->second);
        };
    };
    CHECK(state_root(env({{"OSF_SANDBOX_LOCAL_STATE_DIR", "/x"}}), true) == "/x");
    CHECK(state_root(env({}), true) == "/var/lib/osf-sandbox-local");
    CHECK(state_root(env({{"XDG_STATE_HOME", "/h/s"}, {"HOME", "/h"}}), false) ==
          "/h/s/osf-sandbox-local");
    CHECK(state_root(env({{"HOME", "/h"}}), false) == "/h/.local/state/osf-sandbox-local");
    CHECK_THROWS_AS(state_root(env({}), false), osf::sandbox::SettingsError);
    CHECK_THROWS_AS(state_root(env({{"OSF_SANDBOX_LOCAL_STATE_DIR", "rel"}}), true),
                    osf::sandbox::SettingsError);
    const auto paths = sandbox_paths("/r", "0123456789ab");
    CHECK(paths.egress_socket == "/r/sandboxes/0123456789ab/run/egress.sock");
    CHECK(paths.ca() == "/r/sandboxes/0123456789ab/proxy/ca.crt");
}
