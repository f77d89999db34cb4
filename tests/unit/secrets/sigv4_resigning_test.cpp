// Checking the placeholder signature and signing again with the real key:
// requests signed with placeholders come out as AWS's published examples
// signed with the example's real key.
#include "secrets/sigv4_chunks.hpp"
#include "secrets/sigv4_credential.hpp"
#include "secrets/sigv4_resigning.hpp"
#include "sigv4_vectors.hpp"

#include <catch2/catch.hpp>

namespace sigv4 = osf::secrets::sigv4;
using osf::RefusalReason;

namespace {

sigv4::AwsKeys example_keys() {
    sigv4::AwsKeys keys;
    keys.name = "AWS";
    keys.placeholder_key_id = "AKIAPLACEHOLDER00000";
    keys.placeholder_secret = "osfPlaceholderSecretKey0AAAAAAAAAAAAAAAA";
    keys.key_id = "AKIAIOSFODNN7EXAMPLE";
    keys.secret = std::string(sigv4_vectors::s3_secret);
    keys.regions = {"us-east-1"};
    keys.services = {"s3"};
    keys.hosts = {"*.s3.amazonaws.com", "s3.amazonaws.com"};
    return keys;
}

const sigv4::Scope s3_scope{"20130524", "us-east-1", "s3"};

// What an SDK holding `key_id`/`secret` sends for the S3 GET Object example.
std::vector<sigv4::Field> signed_get(std::string_view key_id, std::string_view secret,
                                     const sigv4::Scope& scope = s3_scope) {
    std::vector<sigv4::Field> fields = {
        {"Host", "examplebucket.s3.amazonaws.com"},
        {"Range", "bytes=0-9"},
        {"x-amz-content-sha256", std::string(sigv4_vectors::s3_empty)},
        {"x-amz-date", "20130524T000000Z"}};
    const std::string names = "host;range;x-amz-content-sha256;x-amz-date";
    std::string headers;
    sigv4::canonical_headers(
        fields, std::vector<std::string>{"host", "range", "x-amz-content-sha256", "x-amz-date"},
        headers);
    const auto creq =
        sigv4::canonical_request("GET", "/test.txt", "", headers, names, sigv4_vectors::s3_empty);
    const auto sig = sigv4::signature(sigv4::signing_key(secret, scope),
                                      sigv4::string_to_sign("20130524T000000Z", scope, creq));
    fields.emplace_back("Authorization", "AWS4-HMAC-SHA256 Credential=" + std::string(key_id) +
                                             "/" + scope.text() + ", SignedHeaders=" + names +
                                             ", Signature=" + sig);
    return fields;
}

sigv4::Resigning resign(const std::vector<sigv4::AwsKeys>& keys,
                        const std::vector<sigv4::Field>& fields,
                        std::string_view host = "examplebucket.s3.amazonaws.com",
                        std::string_view target = "/test.txt") {
    return sigv4::resign(keys, {"GET", target, host, fields, false, std::nullopt});
}

} // namespace

TEST_CASE("a request signed with the placeholder comes out signed with the real key") {
    const std::vector keys{example_keys()};
    const auto fields = signed_get(keys[0].placeholder_key_id, keys[0].placeholder_secret);
    const auto out = resign(keys, fields);
    REQUIRE(out.changes());
    CHECK(out.keys->name == "AWS");
    REQUIRE(out.set_fields.size() == 1);
    CHECK(out.set_fields[0].first == "Authorization");
    CHECK(out.set_fields[0].second ==
          "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
          "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
          "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
    CHECK(!out.chunks);
}

TEST_CASE("what is refused, and what is left alone") {
    const std::vector keys{example_keys()};
    const auto& k = keys[0];
    struct Row {
        const char* what;
        std::vector<sigv4::Field> fields;
        std::string host;
        std::optional<RefusalReason> refused; // nullopt: nothing done
    };
    auto tampered = signed_get(k.placeholder_key_id, k.placeholder_secret);
    tampered[1].second = "bytes=0-99"; // a signed header changed after signing
    auto unsigned_range = signed_get(k.placeholder_key_id, k.placeholder_secret);
    unsigned_range.erase(unsigned_range.begin() + 1);
    auto two = signed_get(k.placeholder_key_id, k.placeholder_secret);
    two.push_back(two.back());
    // Signed (with the placeholder) over Range alone.
    std::vector<sigv4::Field> without_host = {{"Host", "examplebucket.s3.amazonaws.com"},
                                              {"Range", "bytes=0-9"},
                                              {"x-amz-date", "20130524T000000Z"}};
    {
        std::string headers;
        sigv4::canonical_headers(without_host, std::vector<std::string>{"range"}, headers);
        const auto creq = sigv4::canonical_request("GET", "/test.txt", "", headers, "range",
                                                   sigv4_vectors::s3_empty);
        without_host.emplace_back(
            "Authorization",
            "AWS4-HMAC-SHA256 Credential=" + k.placeholder_key_id + "/" + s3_scope.text() +
                ", SignedHeaders=range, Signature=" +
                sigv4::signature(sigv4::signing_key(k.placeholder_secret, s3_scope),
                                 sigv4::string_to_sign("20130524T000000Z", s3_scope, creq)));
    }
    const std::vector<Row> rows = {
        {"a key of its own to a bound host", signed_get("AKIAOTHERKEY00000000", "other-secret"),
         "examplebucket.s3.amazonaws.com", RefusalReason::aws_signature_not_placeholder},
        {"the real key id with a made-up signature", signed_get(k.key_id, "guess"),
         "examplebucket.s3.amazonaws.com", RefusalReason::aws_signature_not_placeholder},
        {"the placeholder id, signed with another secret",
         signed_get(k.placeholder_key_id, "another"), "examplebucket.s3.amazonaws.com",
         RefusalReason::aws_signature_not_placeholder},
        {"a signed header changed", tampered, "examplebucket.s3.amazonaws.com",
         RefusalReason::aws_signature_not_placeholder},
        {"a signed header missing", unsigned_range, "examplebucket.s3.amazonaws.com",
         RefusalReason::aws_signature_not_placeholder},
        {"two Authorization fields", two, "examplebucket.s3.amazonaws.com",
         RefusalReason::aws_signature_not_placeholder},
        {"the placeholder to a host the secret is not bound to",
         signed_get(k.placeholder_key_id, k.placeholder_secret), "elsewhere.example.com",
         RefusalReason::aws_scope_not_allowed},
        {"another region",
         signed_get(k.placeholder_key_id, k.placeholder_secret, {"20130524", "eu-west-1", "s3"}),
         "examplebucket.s3.amazonaws.com", RefusalReason::aws_scope_not_allowed},
        {"another service",
         signed_get(k.placeholder_key_id, k.placeholder_secret, {"20130524", "us-east-1", "sqs"}),
         "examplebucket.s3.amazonaws.com", RefusalReason::aws_scope_not_allowed},
        {"someone's own key to an unbound host", signed_get("AKIAOTHERKEY00000000", "x"),
         "elsewhere.example.com", std::nullopt},
        {"a signature that does not cover Host", without_host, "examplebucket.s3.amazonaws.com",
         RefusalReason::aws_signature_not_placeholder},
        {"Signature Version 2 with the placeholder",
         {{"Host", "examplebucket.s3.amazonaws.com"},
          {"Authorization", "AWS " + k.placeholder_key_id + ":c2lnbmF0dXJl"}},
         "examplebucket.s3.amazonaws.com",
         RefusalReason::aws_signature_unsupported},
        {"Signature Version 2 with a key of its own to a bound host",
         {{"Host", "examplebucket.s3.amazonaws.com"},
          {"Authorization", "AWS AKIAOTHERKEY00000000:c2lnbmF0dXJl"}},
         "examplebucket.s3.amazonaws.com",
         RefusalReason::aws_signature_unsupported},
        {"SigV4a of its own to a bound host",
         {{"Host", "examplebucket.s3.amazonaws.com"},
          {"Authorization", "AWS4-ECDSA-P256-SHA256 Credential=AKIAOTHER/20130524/s3/"
                            "aws4_request, SignedHeaders=host, Signature=3045"}},
         "examplebucket.s3.amazonaws.com",
         RefusalReason::aws_signature_unsupported},
        {"SigV4a of its own to an unbound host",
         {{"Host", "elsewhere.example.com"},
          {"Authorization", "AWS4-ECDSA-P256-SHA256 Credential=AKIAOTHER/20130524/s3/"
                            "aws4_request, SignedHeaders=host, Signature=3045"}},
         "elsewhere.example.com",
         std::nullopt},
        {"no signature at all",
         {{"Host", "examplebucket.s3.amazonaws.com"}},
         "examplebucket.s3.amazonaws.com",
         std::nullopt},
    };
    for (const auto& row : rows) {
        INFO(row.what);
        const auto out = resign(keys, row.fields, row.host);
        CHECK(out.refused == row.refused);
        if (!row.refused) CHECK(!out.changes());
        if (row.refused) CHECK(out.detail.find(k.secret) == std::string::npos);
    }
}

TEST_CASE("the session token: the placeholder's is replaced, another refused") {
    auto k = example_keys();
    k.placeholder_token = "osf-aws-session-token-placeholder-AWS";
    k.token = "real-session-token";
    const std::vector keys{k};
    for (const auto& [token, good] :
         std::vector<std::pair<std::string, bool>>{{k.placeholder_token, true}, {"mine", false}}) {
        // The token as a signed header: the proxy's signature covers the real one.
        std::vector<sigv4::Field> fields = {{"Host", "examplebucket.s3.amazonaws.com"},
                                            {"x-amz-content-sha256", "UNSIGNED-PAYLOAD"},
                                            {"x-amz-date", "20130524T000000Z"},
                                            {"x-amz-security-token", token}};
        const std::vector<std::string> names = {"host", "x-amz-content-sha256", "x-amz-date",
                                                "x-amz-security-token"};
        const auto sign = [&](const std::vector<sigv4::Field>& f, std::string_view secret) {
            std::string headers;
            sigv4::canonical_headers(f, names, headers);
            const auto creq = sigv4::canonical_request(
                "GET", "/test.txt", "", headers,
                "host;x-amz-content-sha256;x-amz-date;x-amz-security-token", "UNSIGNED-PAYLOAD");
            return sigv4::signature(sigv4::signing_key(secret, s3_scope),
                                    sigv4::string_to_sign("20130524T000000Z", s3_scope, creq));
        };
        auto sent = fields;
        sent.emplace_back("Authorization",
                          "AWS4-HMAC-SHA256 Credential=" + k.placeholder_key_id + "/" +
                              s3_scope.text() +
                              ", SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-"
                              "security-token, Signature=" +
                              sign(fields, k.placeholder_secret));
        const auto out = resign(keys, sent);
        CHECK(out.changes() == good);
        if (!good) continue;
        auto real = fields;
        real[3].second = k.token;
        REQUIRE(out.set_fields.size() == 2);
        CHECK(out.set_fields[0].second.ends_with("Signature=" + sign(real, k.secret)));
        CHECK(out.set_fields[1] == sigv4::Field{"X-Amz-Security-Token", k.token});
    }
}

TEST_CASE("a presigned URL made with the placeholder becomes the published one") {
    const std::vector keys{example_keys()};
    const auto& k = keys[0];
    const std::string query_without_signature =
        "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=" + k.placeholder_key_id +
        "%2F20130524%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z&X-Amz-"
        "Expires=86400&X-Amz-SignedHeaders=host";
    const std::vector<sigv4::Field> fields = {{"Host", "examplebucket.s3.amazonaws.com"}};
    std::string headers;
    sigv4::canonical_headers(fields, std::vector<std::string>{"host"}, headers);
    const auto creq = sigv4::canonical_request("GET", "/test.txt",
                                               sigv4::canonical_query(query_without_signature),
                                               headers, "host", "UNSIGNED-PAYLOAD");
    const auto sig = sigv4::signature(sigv4::signing_key(k.placeholder_secret, s3_scope),
                                      sigv4::string_to_sign("20130524T000000Z", s3_scope, creq));
    const std::string target = "/test.txt?" + query_without_signature + "&X-Amz-Signature=" + sig;
    const auto out = resign(keys, fields, "examplebucket.s3.amazonaws.com", target);
    REQUIRE(out.changes());
    REQUIRE(out.target);
    CHECK(*out.target ==
          "/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F"
          "20130524%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z&X-Amz-Expires="
          "86400&X-Amz-SignedHeaders=host&X-Amz-Signature="
          "aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404");
    CHECK(out.set_fields.empty());

    auto forged = target;
    forged.replace(forged.size() - 64, 64, std::string(64, '0'));
    CHECK(resign(keys, fields, "examplebucket.s3.amazonaws.com", forged).refused ==
          RefusalReason::aws_signature_not_placeholder);
}

TEST_CASE("a body signed by its hash: asked for, then signed as the suite's vector") {
    sigv4::AwsKeys k;
    k.name = "AWS";
    k.placeholder_key_id = "AKIAPLACEHOLDER00000";
    k.placeholder_secret = "placeholder";
    k.key_id = "AKIDEXAMPLE";
    k.secret = std::string(sigv4_vectors::suite_secret);
    k.regions = {"us-east-1"};
    k.services = {"service"};
    k.hosts = {"example.amazonaws.com"};
    const std::vector keys{k};
    const sigv4::Scope scope{"20150830", "us-east-1", "service"};
    std::vector<sigv4::Field> fields = {{"Content-Type", "application/x-www-form-urlencoded"},
                                        {"Host", "example.amazonaws.com"},
                                        {"X-Amz-Date", "20150830T123600Z"}};
    const std::string names = "content-type;host;x-amz-date";
    std::string headers;
    sigv4::canonical_headers(fields, std::vector<std::string>{"content-type", "host", "x-amz-date"},
                             headers);
    const auto hash = sigv4::sha256_hex("Param1=value1");
    const auto creq = sigv4::canonical_request("POST", "/", "", headers, names, hash);
    fields.emplace_back(
        "Authorization",
        "AWS4-HMAC-SHA256 Credential=AKIAPLACEHOLDER00000/" + scope.text() +
            ", SignedHeaders=" + names + ", Signature=" +
            sigv4::signature(sigv4::signing_key("placeholder", scope),
                             sigv4::string_to_sign("20150830T123600Z", scope, creq)));
    const auto first =
        sigv4::resign(keys, {"POST", "/", "example.amazonaws.com", fields, true, std::nullopt});
    CHECK(first.needs_body_hash);
    CHECK_FALSE(first.changes());
    CHECK_FALSE(first.refused);
    const auto second =
        sigv4::resign(keys, {"POST", "/", "example.amazonaws.com", fields, true, hash});
    REQUIRE(second.changes());
    CHECK(second.set_fields[0].second.ends_with(
        "Signature=ff11897932ad3f4e8b18135d722051e5ac45fc38421b1da7b9d196a0fe09473a"));
    const auto other_body = sigv4::sha256_hex("Param1=value2");
    CHECK(sigv4::resign(keys, {"POST", "/", "example.amazonaws.com", fields, true, other_body})
              .refused == RefusalReason::aws_signature_not_placeholder);
}
