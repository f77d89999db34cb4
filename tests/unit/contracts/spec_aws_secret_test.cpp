// A secret of kind "aws": its references, regions, services and hosts (each
// also allowed by egress), one per spec, and the variables it takes.
#include "spec_test_support.hpp"

#include <catch2/catch.hpp>

namespace {

std::string aws_spec(const std::string& fields,
                     const std::string& egress = R"(["*.s3.amazonaws.com", "s3.amazonaws.com"])",
                     const std::string& more = "") {
    return spec_test::spec_with(R"("egress": )" + egress +
                                R"(, "secrets": {"AWS": {"kind": "aws")" +
                                (fields.empty() ? "" : ", " + fields) + "}" + more + "}");
}

const std::string good =
    R"("accessKeyId": "ref:env/K", "secretAccessKey": "ref:file/s", "regions": ["us-east-1"], )"
    R"("services": ["s3"], "hosts": ["*.s3.amazonaws.com", "bucket.s3.amazonaws.com"])";

} // namespace

TEST_CASE("aws secret: read into the spec", "[spec][aws]") {
    const auto spec = spec_test::valid_spec(aws_spec(good));
    REQUIRE(spec.aws_secrets.count("AWS") == 1);
    const auto& aws = spec.aws_secrets.at("AWS");
    CHECK(aws.access_key_id.target == "K");
    CHECK(aws.secret_access_key.kind == osf::SecretRef::Kind::File);
    CHECK_FALSE(aws.session_token);
    CHECK(aws.regions == std::vector<std::string>{"us-east-1"});
    CHECK(aws.hosts == std::vector<std::string>{"*.s3.amazonaws.com", "bucket.s3.amazonaws.com"});
    CHECK(spec.secrets.empty());
    const auto with_token =
        spec_test::valid_spec(aws_spec(good + R"(, "sessionToken": "ref:openbao/aws/token")"));
    CHECK(with_token.aws_secrets.at("AWS").session_token->target == "aws/token");
}

TEST_CASE("aws secret: what is wrong, where", "[spec][aws]") {
    const std::string refs = R"("accessKeyId": "ref:env/K", "secretAccessKey": "ref:env/S")";
    const std::string scope = R"("regions": ["us-east-1"], "services": ["s3"])";
    const std::pair<std::string, std::string> cases[] = {
        {aws_spec(refs + ", " + scope + R"(, "hosts": ["evil.example.com"])"),
         "$.secrets.AWS.hosts[0]"},
        {aws_spec(refs + ", " + scope + R"(, "hosts": ["*.amazonaws.com"])"),
         "$.secrets.AWS.hosts[0]"},
        {aws_spec(refs + ", " + scope + R"(, "hosts": ["s3.amazonaws.com:443"])"),
         "$.secrets.AWS.hosts[0]"},
        {aws_spec(refs + ", " + scope + R"(, "hosts": [])"), "$.secrets.AWS.hosts"},
        {aws_spec(refs + R"(, "regions": ["us-east-1"], "hosts": ["s3.amazonaws.com"])"),
         "$.secrets.AWS"},
        {aws_spec(refs +
                  R"(, "regions": ["us east"], "services": ["s3"], "hosts": ["s3.amazonaws.com"])"),
         "$.secrets.AWS.regions[0]"},
        {aws_spec(
             refs +
             R"(, "regions": ["us-east-1", "us-east-1"], "services": ["s3"], "hosts": ["s3.amazonaws.com"])"),
         "$.secrets.AWS.regions[1]"},
        {aws_spec(R"("accessKeyId": "AKIAIOSFODNN7EXAMPLE", "secretAccessKey": "ref:env/S", )" +
                  scope + R"(, "hosts": ["s3.amazonaws.com"])"),
         "$.secrets.AWS.accessKeyId"},
        {aws_spec(refs + ", " + scope + R"(, "hosts": ["s3.amazonaws.com"], "role": "x")"),
         "$.secrets.AWS.role"},
        {spec_test::spec_with(R"("secrets": {"AWS": {"kind": "gcp"}})"), "$.secrets.AWS.kind"},
    };
    for (const auto& [json, path] : cases) {
        INFO(json);
        const auto errors = spec_test::error_paths(json);
        REQUIRE(errors.size() == 1);
        CHECK(errors[0] == path);
    }
    // A pasted key is never repeated in a message.
    for (const auto& error : spec_test::errors_of(
             aws_spec(R"("accessKeyId": "AKIAIOSFODNN7EXAMPLE", "secretAccessKey": "ref:env/S", )" +
                      scope + R"(, "hosts": ["s3.amazonaws.com"])")))
        CHECK(error.find("AKIAIOSFODNN7EXAMPLE") == std::string::npos);
}

TEST_CASE("aws secret: one per spec, and its variables are its own", "[spec][aws]") {
    const std::string second = R"(, "AWS2": {"kind": "aws", )" + good + "}";
    CHECK(spec_test::error_paths(aws_spec(good, R"(["*.s3.amazonaws.com"])", second)) ==
          std::vector<std::string>{"$.secrets.AWS2"});
    const auto env = spec_test::error_paths(
        R"({"template": "node:24-alpine", "env": {"AWS_ACCESS_KEY_ID": "x"}, "egress": ["*.s3.amazonaws.com"], "secrets": {"AWS": {"kind": "aws", )" +
        good + "}}}");
    CHECK(env == std::vector<std::string>{"$.env.AWS_ACCESS_KEY_ID"});
    const auto named = spec_test::error_paths(
        aws_spec(good, R"(["*.s3.amazonaws.com"])", R"(, "AWS_SECRET_ACCESS_KEY": "ref:env/X")"));
    CHECK(named == std::vector<std::string>{"$.secrets.AWS_SECRET_ACCESS_KEY"});
}
