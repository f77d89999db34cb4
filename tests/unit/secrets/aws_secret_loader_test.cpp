// Resolving an AWS secret's references, and the forms of its real values
// masked in answers.
#include "osf/aws_placeholder.hpp"
#include "secrets/aws_secret_loader.hpp"
#include "test_support.hpp"

#include <catch2/catch.hpp>

using osf::SecretRef;
using secrets_test::fake_env;
using secrets_test::ref;

namespace {

osf::secrets::HttpGetReply no_openbao(const osf::secrets::HttpGetRequest&) {
    FAIL("no OpenBao request expected");
    return {};
}

osf::Spec aws_spec(bool token) {
    osf::Spec spec;
    spec.aws_secrets.emplace(
        "AWS",
        osf::AwsSecret{ref(SecretRef::Kind::Env, "KEY_ID"),
                       ref(SecretRef::Kind::Env, "SECRET"),
                       token ? std::optional(ref(SecretRef::Kind::Env, "TOKEN")) : std::nullopt,
                       {"us-east-1"},
                       {"s3"},
                       {"s3.amazonaws.com"}});
    return spec;
}

} // namespace

TEST_CASE("aws secret: real values read, placeholders computed") {
    const auto loaded =
        osf::secrets::load_aws_secrets(aws_spec(true),
                                       fake_env({{"OSF_SECRET_KEY_ID", "AKIAREALREALREAL0000"},
                                                 {"OSF_SECRET_SECRET", "real-secret"},
                                                 {"OSF_SECRET_TOKEN", "real token/+="}}),
                                       no_openbao);
    REQUIRE(loaded.error.empty());
    REQUIRE(loaded.keys.size() == 1);
    const auto& keys = loaded.keys[0];
    CHECK(keys.key_id == "AKIAREALREALREAL0000");
    CHECK(keys.placeholder_key_id == osf::aws_placeholder_access_key_id("AWS"));
    CHECK(keys.placeholder_token == "osf-aws-session-token-placeholder-AWS");
    CHECK(keys.hosts == std::vector<std::string>{"s3.amazonaws.com"});
    const auto forms = osf::secrets::aws_written_forms(loaded.keys);
    REQUIRE(forms.size() == 3);
    CHECK(forms[0].real == "AKIAREALREALREAL0000");
    CHECK(forms[0].shown == keys.placeholder_key_id);
    CHECK(forms[2].real == "real%20token%2F%2B%3D"); // as in a presigned URL
    // The secret key is never written anywhere: not a form.
    for (const auto& form : forms)
        CHECK(form.real != "real-secret");
}

TEST_CASE("aws secret: a missing reference is named, never a value") {
    const auto loaded = osf::secrets::load_aws_secrets(
        aws_spec(false), fake_env({{"OSF_SECRET_KEY_ID", "AKIAREALREALREAL0000"}}), no_openbao);
    CHECK(loaded.keys.empty());
    CHECK(loaded.error.starts_with("secret AWS.secretAccessKey (ref:env/SECRET): "));
    CHECK(loaded.error.find("AKIAREAL") == std::string::npos);
}
