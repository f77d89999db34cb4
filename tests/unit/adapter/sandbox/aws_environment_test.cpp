// The sandbox's AWS variables: the placeholder credentials of the spec's AWS
// secret, the session token only when one is declared.
#include "osf/aws_placeholder.hpp"
#include "sandbox/aws_environment.hpp"

#include <catch2/catch.hpp>
#include <map>

namespace {

std::map<std::string, std::string> variables_of(const char* json) {
    const auto parsed = osf::parse_spec(json);
    REQUIRE(parsed.ok());
    const auto list = osf::sandbox::aws_placeholder_variables(*parsed.spec);
    return {list.begin(), list.end()};
}

} // namespace

TEST_CASE("aws secret: the placeholders in the standard variables") {
    const auto vars = variables_of(
        R"({"template": "host", "egress": ["s3.amazonaws.com"], "secrets": {"CI_AWS": {"kind": "aws",
            "accessKeyId": "ref:env/K", "secretAccessKey": "ref:env/S", "sessionToken": "ref:env/T",
            "regions": ["us-east-1"], "services": ["s3"], "hosts": ["s3.amazonaws.com"]}}})");
    CHECK(vars.at("AWS_ACCESS_KEY_ID") == osf::aws_placeholder_access_key_id("CI_AWS"));
    CHECK(vars.at("AWS_SECRET_ACCESS_KEY") == osf::aws_placeholder_secret_access_key("CI_AWS"));
    CHECK(vars.at("AWS_SESSION_TOKEN") == "osf-aws-session-token-placeholder-CI_AWS");
    const auto without_token = variables_of(
        R"({"template": "host", "egress": ["s3.amazonaws.com"], "secrets": {"CI_AWS": {"kind": "aws",
            "accessKeyId": "ref:env/K", "secretAccessKey": "ref:env/S",
            "regions": ["us-east-1"], "services": ["s3"], "hosts": ["s3.amazonaws.com"]}}})");
    CHECK(without_token.size() == 2);
    CHECK(without_token.count("AWS_SESSION_TOKEN") == 0);
    CHECK(variables_of(R"({"template": "host"})").empty());
}
