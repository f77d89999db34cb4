// Fuzz target: the HTTP/2 frame path of the proxy's upstream leg. An origin's
// bytes go to h2::ClientCodec (nghttp2's client session with the proxy's
// limits) after three requests were submitted (a GET, a POST with a 20,000
// byte body, a HEAD); its owner here does what net/h2_upstream.cpp does with
// each answer: writes it out as HTTP/1.1 (h2::to_http1_answer, chunks, the
// trailer fields in the last one) for forward() to read, and reads the bytes
// (consumed()) now or every other round. An origin is allowed, not trusted:
// whatever it sends must not crash the proxy nor make it hold more than its
// windows, nor turn into an HTTP/1.1 answer forward() would read otherwise.
//
// Input: 2 option bytes, then the origin's bytes (from its SETTINGS on).
//   byte 0: bit 0 read answer bytes every other round only; bit 1 a 1 KiB
//           header list limit (else 64 KiB); bits 2-3 cancel() the GET, the
//           POST, both, or neither after the first receive()
//   byte 1: where the origin's bytes are split (two 4-bit fractions)
//
// Invariants: a stream's final head comes once, before any of its body, and
// nothing after its end; answer bytes waiting for the owner stay within the
// stream's window and all of them within the connection's; a whole answer
// written out as HTTP/1.1 is exactly one message Beast reads whole (no
// framing disagreement); no crash or leak.
#include "fuzz_check.hpp"
#include "h2/client_codec.hpp"
#include "h2/server_codec.hpp"

#include <boost/asio/buffer.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <map>
#include <string>

namespace {

namespace http = boost::beast::http;
using osf::h2::ClientCodec;

struct Answer {
    bool head_request = false;
    bool head = false;
    bool ended = false;
    bool closed = false;
    bool unusable = false; // its head was no answer: the exchange fails there
    bool chunked = false;
    std::string http1; // what forward() would read
    std::size_t unread = 0;
};

struct Owner final : ClientCodec::Events {
    std::map<std::int32_t, Answer> answers;
    std::size_t unread_total = 0;

    void answer_head(std::int32_t id, const osf::h2::HeaderList& fields) override {
        auto& a = answers[id];
        OSF_FUZZ_CHECK(!a.head && !a.ended && !a.closed);
        a.head = true;
        const auto h1 = osf::h2::to_http1_answer(fields, a.head_request);
        if (!h1.problem.empty()) {
            a.unusable = true;
            return;
        }
        a.chunked = h1.chunked;
        a.http1 += h1.head;
    }
    void answer_data(std::int32_t id, std::string_view bytes) override {
        auto& a = answers[id];
        OSF_FUZZ_CHECK(a.head && !a.ended && !a.closed);
        a.unread += bytes.size();
        unread_total += bytes.size();
        if (a.chunked)
            osf::h2::append_chunk(bytes, a.http1);
        else
            a.http1 += bytes;
    }
    void answer_end(std::int32_t id, osf::h2::HeaderList trailers) override {
        auto& a = answers[id];
        OSF_FUZZ_CHECK(a.head && !a.ended && !a.closed);
        a.ended = true;
        if (a.chunked) osf::h2::append_last_chunk(trailers, a.http1);
    }
    void request_room(std::int32_t) override {}
    void closed(std::int32_t id, osf::h2::StreamEnd) override { answers[id].closed = true; }
};

// A whole answer, as HTTP/1.1, is one message Beast reads to its end.
void check_whole(const Answer& a) {
    if (!a.ended || a.unusable) return;
    http::response_parser<http::string_body> p;
    p.body_limit(boost::none);
    p.header_limit(1 << 20);
    if (a.head_request) p.skip(true);
    boost::beast::error_code ec;
    std::size_t used = 0;
    while (!ec && !p.is_done() && used < a.http1.size())
        used += p.put(boost::asio::buffer(a.http1.data() + used, a.http1.size() - used), ec);
    if (ec && ec != http::error::need_more) return; // forward() fails the exchange: nothing relayed
    // Written to its end, an answer is one whole message, and nothing follows it.
    if (a.chunked) OSF_FUZZ_CHECK(p.is_done());
    if (p.is_done()) OSF_FUZZ_CHECK(used == a.http1.size());
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 2) return 0;
    const bool lazy_reads = data[0] & 1;
    const std::size_t limit = (data[0] & 2) ? 1024 : 65536;
    const int cancel = (data[0] >> 2) & 3;
    const unsigned split_a = data[1] & 15, split_b = data[1] >> 4;
    data += 2;
    size -= 2;

    Owner owner;
    ClientCodec codec(owner, limit);
    if (!codec.start()) return 0;
    const osf::h2::HeaderList get = {
        {":method", "GET"}, {":scheme", "https"}, {":authority", "o.test"}, {":path", "/"}};
    auto post = get;
    post[0].value = "POST";
    auto head = get;
    head[0].value = "HEAD";
    const auto get_id = codec.submit(get, true);
    const auto post_id = codec.submit(post, false);
    const auto head_id = codec.submit(head, true);
    OSF_FUZZ_CHECK(get_id > 0 && post_id > 0 && head_id > 0);
    owner.answers[head_id].head_request = true;
    codec.request_data(post_id, std::string(20000, 'p'));
    codec.request_end(post_id);
    std::string out;
    codec.send(out, 1 << 20);

    const std::size_t cut_a = size * split_a / 16;
    const std::size_t cut_b = std::max(cut_a, size * split_b / 16);
    const std::size_t cuts[] = {0, cut_a, cut_b, size};
    for (int round = 0; round < 3; ++round) {
        const bool more = codec.receive(data + cuts[round], cuts[round + 1] - cuts[round]);
        out.clear();
        codec.send(out, 1 << 20);
        if (round == 0) {
            if (cancel & 1) codec.cancel(get_id);
            if (cancel & 2) codec.cancel(post_id);
        }
        // Never more waiting than the windows let in.
        for (const auto& [id, a] : owner.answers)
            OSF_FUZZ_CHECK(a.unread <= static_cast<std::size_t>(osf::h2::stream_window));
        OSF_FUZZ_CHECK(owner.unread_total <= static_cast<std::size_t>(osf::h2::connection_window));
        if (!lazy_reads || round % 2 == 1) {
            for (auto& [id, a] : owner.answers) {
                codec.consumed(id, a.unread);
                owner.unread_total -= a.unread;
                a.unread = 0;
            }
        }
        if (!more) break;
    }
    for (const auto& [id, a] : owner.answers)
        check_whole(a);
    return 0;
}
