// A SandboxRequest built directly (no parser), for the manifest tests.
#pragma once

#include "sandbox/sandbox_request.hpp"

namespace osf::testing {

inline osf::sandbox::SandboxRequest sample_request() {
    osf::sandbox::SandboxRequest request;
    request.id = "0123456789ab";
    request.spec.template_name = "node:24-alpine";
    request.spec.cpu = "2";
    request.spec.memory = "4Gi";
    request.spec.env = {{"CI", "1"}, {"HTTP_PROXY", "http://evil:1"}};
    request.spec.secrets = {
        {"LINEAR_TOKEN",
         osf::SecretRef{osf::SecretRef::Kind::Env, "LINEAR_TOKEN", "ref:env/LINEAR_TOKEN"}},
        {"NPM_TOKEN",
         osf::SecretRef{osf::SecretRef::Kind::File, "npm-token", "ref:file/npm-token"}},
        {"WIKI_KEY",
         osf::SecretRef{osf::SecretRef::Kind::OpenBao, "wiki/key", "ref:openbao/wiki/key"}},
    };
    request.spec_text = R"({"template":"node:24-alpine"})";
    request.settings.ns = "agents";
    request.settings.proxy_image = "registry.example/egress-proxy:1";
    request.settings.host_aliases = "api.test=127.0.0.1";
    request.settings.openbao_addr = "https://bao.example:8200";
    request.settings.openbao_mount = "kv";
    request.secrets.env_names = {"LINEAR_TOKEN"};
    request.secrets.file_names = {"npm-token"};
    request.secrets.openbao = true;
    // Created 2026-11-29T19:00:00Z, the default 8 hours, the default extend window of an hour.
    const osf::sandbox::WallTime created{std::chrono::seconds(1795978800)};
    request.lifetime = {created, created + std::chrono::hours(8), created + std::chrono::hours(9)};
    return request;
}

} // namespace osf::testing
