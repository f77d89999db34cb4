// The SigV4 signing steps against AWS's published vectors (sigv4_vectors.hpp).
#include "secrets/sigv4_signing.hpp"
#include "sigv4_vectors.hpp"

#include <catch2/catch.hpp>

namespace sigv4 = osf::secrets::sigv4;

namespace {

std::vector<std::string> split_names(std::string_view text) {
    std::vector<std::string> names;
    for (;;) {
        const auto semi = text.find(';');
        names.emplace_back(text.substr(0, semi));
        if (semi == std::string_view::npos) return names;
        text.remove_prefix(semi + 1);
    }
}

} // namespace

TEST_CASE("every published vector: canonical request, string to sign, signature") {
    for (const auto& v : sigv4_vectors::all()) {
        INFO(v.name);
        const sigv4::Scope scope{std::string(v.amz_date.substr(0, 8)), std::string(v.region),
                                 std::string(v.service)};
        std::vector<sigv4::Field> fields(v.headers.begin(), v.headers.end());
        std::string headers;
        REQUIRE(sigv4::canonical_headers(fields, split_names(v.signed_headers), headers));
        const std::string payload_hash =
            v.payload_hash.empty() ? sigv4::sha256_hex(v.payload) : std::string(v.payload_hash);
        const auto creq =
            sigv4::canonical_request(v.method, sigv4::canonical_uri(v.path, v.encode_again),
                                     sigv4::canonical_query(v.query, "X-Amz-Signature"), headers,
                                     v.signed_headers, payload_hash);
        if (!v.canonical_request_hash.empty())
            CHECK(sigv4::sha256_hex(creq) == v.canonical_request_hash);
        const auto sts = sigv4::string_to_sign(v.amz_date, scope, creq);
        CHECK(sts.starts_with("AWS4-HMAC-SHA256\n" + std::string(v.amz_date) + "\n" + scope.text() +
                              "\n"));
        if (!v.signature.empty())
            CHECK(sigv4::signature(sigv4::signing_key(v.secret, scope), sts) == v.signature);
    }
}

TEST_CASE("the S3 streaming example's chunk signatures chain from the seed") {
    const sigv4::Scope scope{"20130524", "us-east-1", "s3"};
    const auto key = sigv4::signing_key(sigv4_vectors::s3_secret, scope);
    std::string previous = "4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9";
    for (const auto& [size, expected] : sigv4_vectors::s3_streaming_chunks()) {
        const auto sts = sigv4::chunk_string_to_sign("20130524T000000Z", scope, previous,
                                                     sigv4::sha256_hex(std::string(size, 'a')));
        previous = sigv4::signature(key, sts);
        CHECK(previous == expected);
    }
}

TEST_CASE("uri encoding: unreserved kept, the rest upper-case hex, '/' as asked") {
    CHECK(sigv4::uri_encode("a-b_c.d~e", false) == "a-b_c.d~e");
    CHECK(sigv4::uri_encode("a b/c+d=", false) == "a%20b%2Fc%2Bd%3D");
    CHECK(sigv4::uri_encode("/a b/c", true) == "/a%20b/c");
    CHECK(sigv4::canonical_uri("/model/x%3A0/invoke", true) == "/model/x%253A0/invoke");
    CHECK(sigv4::canonical_uri("/model/x%3A0/invoke", false) == "/model/x%3A0/invoke");
    CHECK(sigv4::canonical_uri("", false) == "/");
}

TEST_CASE("canonical query: decoded, encoded again, sorted, empty values, dropped names") {
    CHECK(sigv4::canonical_query("b=2&a=1&a=0") == "a=0&a=1&b=2");
    CHECK(sigv4::canonical_query("flag&x=%2f") == "flag=&x=%2F");
    CHECK(sigv4::canonical_query("a=1&X-Amz-Signature=ff", "X-Amz-Signature") == "a=1");
    CHECK(sigv4::canonical_query("") == "");
}

TEST_CASE("canonical headers: trimmed, runs of spaces made one, repeats joined, missing named") {
    std::vector<sigv4::Field> fields = {
        {"My-Header1", "  value1  "}, {"my-header1", "a   b\tc"}, {"Host", "h"}};
    std::string out;
    REQUIRE(sigv4::canonical_headers(fields, std::vector<std::string>{"host", "my-header1"}, out));
    CHECK(out == "host:h\nmy-header1:value1,a b c\n");
    CHECK_FALSE(sigv4::canonical_headers(fields, std::vector<std::string>{"x-amz-date"}, out));
}

TEST_CASE("signatures compare whole") {
    CHECK(sigv4::same_signature("abc", "abc"));
    CHECK_FALSE(sigv4::same_signature("abc", "abd"));
    CHECK_FALSE(sigv4::same_signature("abc", "abcd"));
}
