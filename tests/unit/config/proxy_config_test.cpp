// load_config: the read-only configuration every connection shares, built
// once: the policy (aliases included), the MCP server policies with the
// message limit, the upstream TLS context; any problem is one line.
#include "config/proxy_config.hpp"

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <unistd.h>
#include <vector>

using osf::config::load_config;
using osf::config::ProxyConfig;
using osf::config::ProxyOptions;

namespace {

struct TempFile {
    std::string path;
    TempFile(const std::string& name, const std::string& content)
        : path((std::filesystem::temp_directory_path() /
                ("osf-proxy-config-test-" + std::to_string(::getpid()) + "-" + name))
                   .string()) {
        std::ofstream(path) << content;
    }
    ~TempFile() { std::remove(path.c_str()); }
};

const std::string spec_text = R"({
  "template": "agent-templates.team-a",
  "egress": ["api.example.com", "*.cdn.example.com:443"],
  "mcp": [{ "name": "wiki", "url": "https://wiki.example.com/mcp", "tools": ["search", "get_page"] }]
})";

std::variant<ProxyConfig, std::string> load(ProxyOptions options,
                                            std::map<std::string, std::string> env = {}) {
    auto getenv = [env](const std::string& name) -> std::optional<std::string> {
        const auto it = env.find(name);
        if (it == env.end()) return std::nullopt;
        return it->second;
    };
    osf::secrets::SourceEnvironment sources;
    sources.getenv = getenv;
    return load_config(std::move(options), getenv, sources);
}

} // namespace

TEST_CASE("load_config builds the policy, MCP policies and upstream TLS once") {
    TempFile spec("spec.json", spec_text);
    ProxyOptions options;
    options.spec_path = spec.path;
    options.limits.max_mcp_message_bytes = 12345;
    auto loaded = load(options, {{"OSF_SANDBOX_HOST_ALIASES", "wiki.example.com=127.0.0.1"}});
    REQUIRE(std::holds_alternative<ProxyConfig>(loaded));
    const auto& config = std::get<ProxyConfig>(loaded);

    CHECK(config.rules->policy.check_destination("api.example.com", 443).allowed);
    CHECK(config.rules->policy.check_destination("a.cdn.example.com", 443).allowed);
    CHECK(config.rules->policy.check_destination("other.example.com", 443).refused_by ==
          osf::RefusalReason::host_not_allowed);
    REQUIRE(config.rules->policy.alias_for("wiki.example.com"));
    CHECK(config.rules->policy.alias_for("wiki.example.com")->to_string() == "127.0.0.1");

    const auto* wiki = config.rules->mcp_policy("wiki");
    REQUIRE(wiki);
    CHECK(wiki->name == "wiki");
    CHECK(wiki->tools == std::set<std::string>{"search", "get_page"});
    CHECK(wiki->max_message_bytes == 12345);
    CHECK(config.rules->mcp_policy("linear") == nullptr);

    CHECK(config.limits().max_mcp_message_bytes == 12345);
    REQUIRE(config.upstream_tls);
    CHECK(SSL_CTX_get_verify_mode(config.upstream_tls->native_handle()) == SSL_VERIFY_PEER);
}

TEST_CASE("a bad configuration is one line naming the problem") {
    TempFile spec("spec.json", spec_text);
    TempFile not_pem("bundle.pem", "not a certificate\n");
    ProxyOptions options;
    options.spec_path = spec.path;

    auto problem = [](const std::variant<ProxyConfig, std::string>& loaded) {
        REQUIRE(std::holds_alternative<std::string>(loaded));
        const auto& line = std::get<std::string>(loaded);
        CHECK(line.find('\n') == std::string::npos);
        return line;
    };
    CHECK(problem(load(options, {{"OSF_UPSTREAM_CA_BUNDLE", not_pem.path}}))
              .starts_with("cannot load upstream CA bundle " + not_pem.path));
    CHECK(problem(load(options, {{"OSF_SANDBOX_HOST_ALIASES", "wiki.example.com"}}))
              .starts_with("OSF_SANDBOX_HOST_ALIASES"));
    auto missing = options;
    missing.spec_path = spec.path + ".missing";
    CHECK(problem(load(missing)) == "cannot read spec " + missing.spec_path);
    auto same = options;
    same.admin_listen = same.listen;
    CHECK(problem(load(same)).starts_with("--admin-listen must differ"));
}

TEST_CASE("parse_listen: unix:PATH is a Unix socket, absolute and short enough for sun_path") {
    using osf::config::ListenAddress;
    using osf::config::parse_listen;
    const auto at = parse_listen("unix:/var/lib/osf/sandboxes/abc/proxy.sock");
    REQUIRE(std::holds_alternative<ListenAddress>(at));
    CHECK(std::get<ListenAddress>(at).unix_path == "/var/lib/osf/sandboxes/abc/proxy.sock");
    CHECK(std::get<ListenAddress>(at).address.empty());
    const std::string longest = "/" + std::string(106, 'a');
    CHECK(std::holds_alternative<ListenAddress>(parse_listen("unix:" + longest)));
    const std::vector<std::string> bad_addresses = {
        "unix:", "unix:relative.sock", "unix:" + longest + "a", std::string("unix:/a\0b", 9)};
    for (const auto& bad : bad_addresses) {
        INFO(bad);
        CHECK(std::holds_alternative<std::string>(parse_listen(bad)));
    }
    // A TCP address is unchanged.
    const auto tcp = parse_listen("127.0.0.1:0");
    REQUIRE(std::holds_alternative<ListenAddress>(tcp));
    CHECK(std::get<ListenAddress>(tcp).unix_path.empty());
    CHECK(std::get<ListenAddress>(tcp).address == "127.0.0.1");
}

TEST_CASE("parse_listen: fd:N is a listener the proxy was started with, never 0, 1 or 2") {
    using osf::config::ListenAddress;
    using osf::config::parse_listen;
    const auto at = parse_listen("fd:3");
    REQUIRE(std::holds_alternative<ListenAddress>(at));
    CHECK(std::get<ListenAddress>(at).inherited_fd == 3);
    CHECK(std::get<ListenAddress>(at).unix_path.empty());
    CHECK(std::get<ListenAddress>(parse_listen("fd:17")).inherited_fd == 17);
    CHECK(std::get<ListenAddress>(parse_listen("unix:/a.sock")).inherited_fd == -1);
    for (const std::string bad :
         {"fd:", "fd:0", "fd:2", "fd:-3", "fd:3x", "fd: 3", "fd:99999999999"}) {
        INFO(bad);
        REQUIRE(std::holds_alternative<std::string>(parse_listen(bad)));
        CHECK(std::get<std::string>(parse_listen(bad)).find("descriptor") != std::string::npos);
    }
}
