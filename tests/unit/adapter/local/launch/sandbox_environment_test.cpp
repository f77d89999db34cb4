#include "commands/command_errors.hpp"
#include "local/launch/sandbox_environment.hpp"
#include "local/state/local_layout.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <sys/wait.h>

using namespace osf::local;
using osf::sandbox::SandboxRequest;

namespace {

SandboxRequest environment_request(const std::string& spec_text) {
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

} // namespace

TEST_CASE("the sandbox's variables: a fixed base, the spec's, placeholders, then proxy and CA") {
    const auto request = environment_request(
        R"({"template":"host","env":{"GREETING":"hi","HOME":"/home/me"},
            "secrets":{"API_TOKEN":"ref:env/API_TOKEN"}})");
    const auto env = as_map(sandbox_environment(request));
    CHECK(env.at("GREETING") == "hi");
    CHECK(env.at("HOME") == "/home/me"); // the spec may set the base variables
    CHECK(env.at("API_TOKEN") == "osf-secret-placeholder-API_TOKEN");
    CHECK(env.at("HTTPS_PROXY") == "http://127.0.0.1:8080");
    CHECK(env.at("no_proxy").empty());
    CHECK(env.at("ALL_PROXY") == "socks5h://127.0.0.1:1080");
    CHECK(env.at("all_proxy") == "socks5h://127.0.0.1:1080");
    for (const char* name : {"SSL_CERT_FILE", "NODE_EXTRA_CA_CERTS", "REQUESTS_CA_BUNDLE",
                             "CURL_CA_BUNDLE", "GIT_SSL_CAINFO"})
        CHECK(env.at(name) == "/etc/osf/egress-ca.crt");
    // /cache and the package managers' cache variables, as on Kubernetes
    CHECK(env.at("npm_config_cache") == "/cache/npm");
    CHECK(env.at("XDG_CACHE_HOME") == "/cache");
    CHECK(env.size() == 24); // PATH, LANG, GREETING, HOME, 6 cache, the secret, 8 proxy, 5 CA
    const auto plain = as_map(sandbox_environment(environment_request(R"({"template":"host"})")));
    CHECK(plain.at("HOME") == "/workspace");
    CHECK(plain.at("PATH").starts_with("/usr/local/sbin"));
}

TEST_CASE("the proxy gets only the variables the spec's secrets and names need") {
    auto request =
        environment_request(R"({"template":"host","secrets":{"API_TOKEN":"ref:env/API_TOKEN"}})");
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
