#include "sandbox/secret_plan.hpp"
#include "sandbox/settings.hpp"

#include <catch2/catch.hpp>

using namespace osf::sandbox;

namespace {

osf::Spec spec_with(std::map<std::string, osf::SecretRef> secrets) {
    osf::Spec spec;
    spec.template_name = "alpine:3";
    spec.secrets = std::move(secrets);
    return spec;
}

osf::SecretRef ref(osf::SecretRef::Kind kind, std::string target) {
    const char* prefix = kind == osf::SecretRef::Kind::Env    ? "ref:env/"
                         : kind == osf::SecretRef::Kind::File ? "ref:file/"
                                                              : "ref:openbao/";
    return osf::SecretRef{kind, target, prefix + target};
}

} // namespace

TEST_CASE("secret plan: every kind resolvable") {
    std::map<std::string, std::string> env = {{"OSF_SECRET_A", "value-a"},
                                              {"OSF_OPENBAO_TOKEN", "t"}};
    EnvLookup lookup = [&](const std::string& name) -> std::optional<std::string> {
        auto it = env.find(name);
        return it == env.end() ? std::nullopt : std::optional<std::string>(it->second);
    };
    Settings settings;
    settings.secrets_dir = "/s";
    settings.openbao_addr = "http://bao:8200";
    std::vector<std::string> checked;
    FileExists exists = [&](const std::string& path) {
        checked.push_back(path);
        return path == "/s/b.txt";
    };
    using K = osf::SecretRef::Kind;
    const auto spec = spec_with({{"A", ref(K::Env, "A")},
                                 {"A2", ref(K::Env, "A")},
                                 {"B", ref(K::File, "b.txt")},
                                 {"C", ref(K::OpenBao, "team/c")}});
    const auto result = plan_secrets(spec, settings, lookup, exists);
    CHECK(result.errors.empty());
    CHECK(result.plan.env_names == std::vector<std::string>{"A"});
    CHECK(result.plan.file_names == std::vector<std::string>{"b.txt"});
    CHECK(result.plan.openbao);
    CHECK(checked == std::vector<std::string>{"/s/b.txt"});
}

TEST_CASE("secret plan: each unresolvable secret is named") {
    EnvLookup lookup = [](const std::string&) -> std::optional<std::string> {
        return std::nullopt;
    };
    FileExists exists = [](const std::string&) { return false; };
    Settings settings;
    using K = osf::SecretRef::Kind;
    const auto spec = spec_with({{"A", ref(K::Env, "A")},
                                 {"B", ref(K::File, "b.txt")},
                                 {"C", ref(K::OpenBao, "team/c")},
                                 {"D", ref(K::File, "bad name")}});
    const auto result = plan_secrets(spec, settings, lookup, exists);
    REQUIRE(result.errors.size() == 4);
    CHECK(result.errors[0] == "secret A (ref:env/A): OSF_SECRET_A is not set");
    CHECK(result.errors[1] ==
          "secret B (ref:file/b.txt): no file /run/secrets/b.txt (OSF_SECRETS_DIR)");
    CHECK(result.errors[2] ==
          "secret C (ref:openbao/team/c): OSF_OPENBAO_ADDR and OSF_OPENBAO_TOKEN must be set");
    CHECK(result.errors[3].find("secret D") == 0);
}

TEST_CASE("secret plan: an empty variable counts as unset") {
    EnvLookup lookup = [](const std::string&) -> std::optional<std::string> {
        return std::string();
    };
    FileExists exists = [](const std::string&) { return true; };
    const auto result = plan_secrets(spec_with({{"A", ref(osf::SecretRef::Kind::Env, "A")}}),
                                     Settings{}, lookup, exists);
    CHECK(result.errors.size() == 1);
}

TEST_CASE("secret plan: an AWS secret's references are planned like any secret's") {
    osf::Spec spec;
    spec.aws_secrets.emplace("AWS", osf::AwsSecret{ref(osf::SecretRef::Kind::Env, "KEY_ID"),
                                                   ref(osf::SecretRef::Kind::File, "aws-secret"),
                                                   ref(osf::SecretRef::Kind::Env, "MISSING"),
                                                   {"us-east-1"},
                                                   {"s3"},
                                                   {"s3.amazonaws.com"}});
    EnvLookup lookup = [](const std::string& name) -> std::optional<std::string> {
        if (name == "OSF_SECRET_KEY_ID") return "AKIA...";
        return std::nullopt;
    };
    Settings settings;
    settings.secrets_dir = "/s";
    FileExists exists = [](const std::string& path) { return path == "/s/aws-secret"; };
    const auto result = plan_secrets(spec, settings, lookup, exists);
    CHECK(result.plan.env_names == std::vector<std::string>{"KEY_ID"});
    CHECK(result.plan.file_names == std::vector<std::string>{"aws-secret"});
    REQUIRE(result.errors.size() == 1);
    CHECK(result.errors[0] ==
          "secret AWS.sessionToken (ref:env/MISSING): OSF_SECRET_MISSING is not set");
}
