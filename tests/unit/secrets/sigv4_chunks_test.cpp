// A streaming body signed with the placeholder comes out as the S3
// documentation's example body signed with the example's real key.
#include "secrets/sigv4_chunks.hpp"
#include "sigv4_vectors.hpp"

#include <catch2/catch.hpp>

namespace sigv4 = osf::secrets::sigv4;

namespace {

const sigv4::Scope scope{"20130524", "us-east-1", "s3"};
constexpr std::string_view real_seed =
    "4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9";
const std::string placeholder_seed(64, '7');

// The body with each chunk signed in a chain under `key` from `seed`.
std::string body(const std::string& key, std::string previous) {
    std::string out;
    for (const auto& [size, published] : sigv4_vectors::s3_streaming_chunks()) {
        const std::string data(size, 'a');
        previous =
            sigv4::signature(key, sigv4::chunk_string_to_sign("20130524T000000Z", scope, previous,
                                                              sigv4::sha256_hex(data)));
        char hex[32];
        std::snprintf(hex, sizeof hex, "%zx", size);
        out += std::string(hex) + ";chunk-signature=" + previous + "\r\n" + data + "\r\n";
    }
    return out;
}

sigv4::ChunkSigning signing() {
    return {"20130524T000000Z",
            scope,
            sigv4::signing_key("placeholder-secret", scope),
            sigv4::signing_key(sigv4_vectors::s3_secret, scope),
            placeholder_seed,
            std::string(real_seed)};
}

} // namespace

TEST_CASE("chunks re-signed as they stream, in pieces of any size, length kept") {
    const auto sent = body(signing().placeholder_key, placeholder_seed);
    const auto expected = body(signing().real_key, std::string(real_seed));
    // The published chain, computed independently of the resigner.
    for (const auto& [size, published] : sigv4_vectors::s3_streaming_chunks())
        CHECK(expected.find(std::string(published)) != std::string::npos);
    for (const std::size_t piece :
         {std::size_t{1}, std::size_t{7}, std::size_t{4096}, sent.size()}) {
        INFO(piece);
        sigv4::ChunkResigner resigner(signing());
        std::string out;
        for (std::size_t at = 0; at < sent.size(); at += piece)
            REQUIRE(resigner.feed(std::string_view(sent).substr(at, piece), out));
        CHECK(resigner.done());
        CHECK(out.size() == sent.size());
        CHECK(out == expected);
    }
}

TEST_CASE("a chunk not signed in the placeholder chain stops the body") {
    struct Row {
        const char* what;
        std::string body;
        std::size_t max_chunk;
    };
    auto swapped = body(signing().placeholder_key, placeholder_seed);
    swapped[swapped.find("\r\n") + 2] = 'b'; // the first chunk's data changed
    const std::vector<Row> rows = {
        {"signed with another key", body(sigv4::signing_key("other", scope), placeholder_seed),
         sigv4::ChunkResigner::default_max_chunk},
        {"data changed", swapped, sigv4::ChunkResigner::default_max_chunk},
        {"a chunk over the bound", body(signing().placeholder_key, placeholder_seed), 1024},
        {"no signature", "5\r\nhello\r\n0\r\n\r\n", sigv4::ChunkResigner::default_max_chunk},
        {"bytes after the last chunk", body(signing().placeholder_key, placeholder_seed) + "x",
         sigv4::ChunkResigner::default_max_chunk},
    };
    for (const auto& row : rows) {
        INFO(row.what);
        sigv4::ChunkResigner resigner(signing(), row.max_chunk);
        std::string out;
        CHECK_FALSE(resigner.feed(row.body, out));
        CHECK_FALSE(resigner.problem().empty());
        CHECK(out.find(sigv4::signature(signing().real_key, "x")) == std::string::npos);
    }
}
