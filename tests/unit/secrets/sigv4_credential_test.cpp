// Reading SigV4 Authorization headers and presigned URL parameters.
#include "secrets/sigv4_credential.hpp"

#include <catch2/catch.hpp>

namespace sigv4 = osf::secrets::sigv4;

TEST_CASE("an Authorization header is read whole, or not at all") {
    const auto good = sigv4::parse_authorization(
        "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, "
        "SignedHeaders=host;x-amz-date, "
        "Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31");
    REQUIRE(good);
    CHECK(good->credential.key_id == "AKIDEXAMPLE");
    CHECK(good->credential.scope.text() == "20150830/us-east-1/service/aws4_request");
    CHECK(good->signed_headers == std::vector<std::string>{"host", "x-amz-date"});
    const std::string sig = "Signature=" + std::string(64, 'a');
    const std::string cred = "Credential=K/20150830/us-east-1/s3/aws4_request";
    struct Row {
        std::string value;
        const char* why;
    };
    for (const auto& row : std::vector<Row>{
             {"AWS4-HMAC-SHA256 " + cred + ", SignedHeaders=host", "no signature"},
             {"AWS4-HMAC-SHA256 " + cred + ", SignedHeaders=x;host, " + sig, "unsorted names"},
             {"AWS4-HMAC-SHA256 " + cred + ", SignedHeaders=Host, " + sig, "upper-case name"},
             {"AWS4-HMAC-SHA256 Credential=K/2015083/us-east-1/s3/aws4_request, "
              "SignedHeaders=host, " +
                  sig,
              "short date"},
             {"AWS4-HMAC-SHA256 " + cred + ", SignedHeaders=host, Signature=XYZ", "bad signature"},
             {"AWS4-HMAC-SHA256 " + cred + ", SignedHeaders=host, " + sig + ", " + sig,
              "two signatures"},
             {"AWS " + cred, "another scheme"}}) {
        INFO(row.why);
        CHECK_FALSE(sigv4::parse_authorization(row.value));
    }
    CHECK(sigv4::is_sigv4_authorization("  AWS4-HMAC-SHA256 whatever"));
    CHECK_FALSE(sigv4::is_sigv4_authorization("AWS4-HMAC-SHA256X"));
    CHECK_FALSE(sigv4::is_sigv4_authorization("Bearer x"));
}

TEST_CASE("query parameters: decoded, counted, replaced in place") {
    std::size_t count = 0;
    CHECK(sigv4::query_parameter("a=1&X-Amz-Credential=K%2Fd&b", "X-Amz-Credential", &count) ==
          "K/d");
    CHECK(count == 1);
    CHECK(!sigv4::query_parameter("a=1", "b", &count));
    CHECK(count == 0);
    sigv4::query_parameter("a=1&a=2", "a", &count);
    CHECK(count == 2);
    CHECK(sigv4::replace_query_values("z=9&X-Amz-Credential=K%2Fd&b",
                                      {{"X-Amz-Credential", "R/d"}}) ==
          "z=9&X-Amz-Credential=R%2Fd&b");
}
