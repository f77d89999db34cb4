// Published AWS Signature Version 4 test vectors, as data: the SigV4 test
// suite (docs.aws.amazon.com/general/latest/gr/signature-v4-test-suite.html,
// credentials AKIDEXAMPLE, 2015-08-30, us-east-1, service "service") and the
// S3 documentation's examples (sig-v4-header-based-auth, query-string auth and
// streaming uploads, credentials AKIAIOSFODNN7EXAMPLE, 2013-05-24, us-east-1, s3).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace sigv4_vectors {

struct Vector {
    std::string_view name;
    std::string_view secret;
    std::string_view amz_date;
    std::string_view region;
    std::string_view service;
    std::string_view method;
    std::string_view path;  // as the canonical URI step takes it
    bool encode_again;      // not S3: the path is encoded (once more)
    std::string_view query; // without '?'
    std::vector<std::pair<std::string, std::string>> headers;
    std::string_view signed_headers;
    std::string_view payload; // hashed unless payload_hash is given
    std::string_view payload_hash;
    std::string_view canonical_request_hash; // empty: not published
    std::string_view signature;              // empty: not published
};

inline constexpr std::string_view suite_secret = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
inline constexpr std::string_view s3_secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
inline constexpr std::string_view s3_empty =
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

inline const std::vector<Vector>& all() {
    static const std::vector<Vector> vectors = {
        {"get-vanilla",
         suite_secret,
         "20150830T123600Z",
         "us-east-1",
         "service",
         "GET",
         "/",
         true,
         "",
         {{"Host", "example.amazonaws.com"}, {"X-Amz-Date", "20150830T123600Z"}},
         "host;x-amz-date",
         "",
         "",
         "bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63",
         "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"},
        {"get-vanilla-query-order-key-case",
         suite_secret,
         "20150830T123600Z",
         "us-east-1",
         "service",
         "GET",
         "/",
         true,
         "Param2=value2&Param1=value1",
         {{"Host", "example.amazonaws.com"}, {"X-Amz-Date", "20150830T123600Z"}},
         "host;x-amz-date",
         "",
         "",
         "816cd5b414d056048ba4f7c5386d6e0533120fb1fcfa93762cf0fc39e2cf19e0",
         "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500"},
        {"post-x-www-form-urlencoded",
         suite_secret,
         "20150830T123600Z",
         "us-east-1",
         "service",
         "POST",
         "/",
         true,
         "",
         {{"Content-Type", "application/x-www-form-urlencoded"},
          {"Host", "example.amazonaws.com"},
          {"X-Amz-Date", "20150830T123600Z"}},
         "content-type;host;x-amz-date",
         "Param1=value1",
         "",
         "42a5e5bb34198acb3e84da4f085bb7927f2bc277ca766e6d19c73c2154021281",
         "ff11897932ad3f4e8b18135d722051e5ac45fc38421b1da7b9d196a0fe09473a"},
        {"get-utf8",
         suite_secret,
         "20150830T123600Z",
         "us-east-1",
         "service",
         "GET",
         "/\xe1\x88\xb4",
         true,
         "",
         {{"Host", "example.amazonaws.com"}, {"X-Amz-Date", "20150830T123600Z"}},
         "host;x-amz-date",
         "",
         "",
         "2a0a97d02205e45ce2e994789806b19270cfbbb0921b278ccf58f5249ac42102",
         ""},
        {"s3-get-object",
         s3_secret,
         "20130524T000000Z",
         "us-east-1",
         "s3",
         "GET",
         "/test.txt",
         false,
         "",
         {{"Host", "examplebucket.s3.amazonaws.com"},
          {"Range", "bytes=0-9"},
          {"x-amz-content-sha256", std::string(s3_empty)},
          {"x-amz-date", "20130524T000000Z"}},
         "host;range;x-amz-content-sha256;x-amz-date",
         "",
         s3_empty,
         "",
         "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"},
        {"s3-presigned-get",
         s3_secret,
         "20130524T000000Z",
         "us-east-1",
         "s3",
         "GET",
         "/test.txt",
         false,
         "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-"
         "east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-"
         "SignedHeaders=host",
         {{"Host", "examplebucket.s3.amazonaws.com"}},
         "host",
         "",
         "UNSIGNED-PAYLOAD",
         "",
         "aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404"},
        {"s3-streaming-seed",
         s3_secret,
         "20130524T000000Z",
         "us-east-1",
         "s3",
         "PUT",
         "/examplebucket/chunkObject.txt",
         false,
         "",
         {{"Host", "s3.amazonaws.com"},
          {"x-amz-date", "20130524T000000Z"},
          {"x-amz-storage-class", "REDUCED_REDUNDANCY"},
          {"Content-Encoding", "aws-chunked"},
          {"x-amz-decoded-content-length", "66560"},
          {"Content-Length", "66824"},
          {"x-amz-content-sha256", "STREAMING-AWS4-HMAC-SHA256-PAYLOAD"}},
         "content-encoding;content-length;host;x-amz-content-sha256;x-amz-date;x-amz-decoded-"
         "content-length;x-amz-storage-class",
         "",
         "STREAMING-AWS4-HMAC-SHA256-PAYLOAD",
         "",
         "4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9"},
    };
    return vectors;
}

// The S3 streaming example's body: 65,536 then 1,024 bytes of 'a', then the
// last chunk, with these chunk signatures (chained from s3-streaming-seed).
inline const std::vector<std::pair<std::size_t, std::string_view>>& s3_streaming_chunks() {
    static const std::vector<std::pair<std::size_t, std::string_view>> chunks = {
        {65536, "ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648"},
        {1024, "0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497"},
        {0, "b6c6ea8a5354eaf15b3cb7646744f4275b71ea724fed81ceb9323e279d449df9"},
    };
    return chunks;
}

} // namespace sigv4_vectors
