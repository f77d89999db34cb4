// The client codec (the proxy's HTTP/2 leg to an origin) driven from memory
// against an origin written as raw frames, so that an origin can also break
// HTTP/2's rules: what the owner is told for each answer, how each stream
// ends (and whose fault it was), and what the proxy sends back.
#include "h2/client_codec.hpp"

#include <catch2/catch.hpp>
#include <cstdint>
#include <map>
#include <nghttp2/nghttp2.h>
#include <string>
#include <vector>

namespace client_codec_test {

using osf::h2::ClientCodec;
using osf::h2::HeaderList;
using osf::h2::StreamEnd;

// What the codec told its owner, as a script of lines ("head 1 200", "data 1
// 5", "end 1 x-t=v", "closed 1 reset") and the bodies. Called inside nghttp2's
// callbacks, so a failure is recorded (CHECK), never thrown through C.
struct Owner final : ClientCodec::Events {
    std::vector<std::string> log;
    std::map<std::int32_t, std::string> bodies;
    std::map<std::int32_t, StreamEnd> ends;

    void answer_head(std::int32_t id, const HeaderList& fields) override {
        REQUIRE_FALSE(fields.empty());
        CHECK(fields.front().name == ":status");
        log.push_back("head " + std::to_string(id) + " " + fields.front().value);
    }
    void answer_data(std::int32_t id, std::string_view bytes) override {
        bodies[id].append(bytes);
        log.push_back("data " + std::to_string(id) + " " + std::to_string(bytes.size()));
    }
    void answer_end(std::int32_t id, HeaderList trailers) override {
        std::string line = "end " + std::to_string(id);
        for (const auto& f : trailers)
            line += " " + f.name + "=" + f.value;
        log.push_back(line);
    }
    void request_room(std::int32_t) override {}
    void closed(std::int32_t id, StreamEnd end) override {
        CHECK(ends.count(id) == 0);
        ends[id] = end;
        static const char* names[] = {"closed", "refused", "reset", "head_too_large",
                                      "origin_fault"};
        log.push_back("closed " + std::to_string(id) + " " + names[static_cast<int>(end)]);
    }
};

// One frame as it goes on the wire (RFC 9113, 4.1).
std::string frame(std::uint8_t type, std::uint8_t flags, std::int32_t stream,
                  std::string_view payload) {
    std::string out;
    const auto n = payload.size();
    out += static_cast<char>((n >> 16) & 0xff);
    out += static_cast<char>((n >> 8) & 0xff);
    out += static_cast<char>(n & 0xff);
    out += static_cast<char>(type);
    out += static_cast<char>(flags);
    for (int shift = 24; shift >= 0; shift -= 8)
        out += static_cast<char>((static_cast<std::uint32_t>(stream) >> shift) & 0xff);
    out += payload;
    return out;
}

std::string u32(std::uint32_t v) {
    std::string out;
    for (int shift = 24; shift >= 0; shift -= 8)
        out += static_cast<char>((v >> shift) & 0xff);
    return out;
}

struct SentFrame {
    std::uint8_t type;
    std::uint8_t flags;
    std::int32_t stream;
    std::uint32_t error = 0; // RST_STREAM, GOAWAY
};

// An origin: it encodes its header blocks with its own HPACK encoder (so the
// codec's decoder stays in step across blocks) and reads the frames the
// proxy sends (after the client preface).
class Origin {
public:
    Origin() { REQUIRE(nghttp2_hd_deflate_new(&deflater_, 4096) == 0); }
    ~Origin() { nghttp2_hd_deflate_del(deflater_); }
    Origin(const Origin&) = delete;
    Origin& operator=(const Origin&) = delete;

    // Its SETTINGS (with `settings`, as id/value pairs) and the ACK of the proxy's.
    static std::string
    hello(const std::vector<std::pair<std::uint16_t, std::uint32_t>>& settings = {}) {
        std::string payload;
        for (const auto& [id, value] : settings) {
            payload += static_cast<char>(id >> 8);
            payload += static_cast<char>(id & 0xff);
            payload += u32(value);
        }
        return frame(NGHTTP2_SETTINGS, 0, 0, payload) +
               frame(NGHTTP2_SETTINGS, NGHTTP2_FLAG_ACK, 0, "");
    }
    std::string headers(std::int32_t stream, const HeaderList& fields, bool end_stream) {
        std::vector<nghttp2_nv> nv;
        for (const auto& f : fields)
            nv.push_back({reinterpret_cast<std::uint8_t*>(const_cast<char*>(f.name.data())),
                          reinterpret_cast<std::uint8_t*>(const_cast<char*>(f.value.data())),
                          f.name.size(), f.value.size(), NGHTTP2_NV_FLAG_NO_INDEX});
        std::string block(nghttp2_hd_deflate_bound(deflater_, nv.data(), nv.size()), '\0');
        const auto n =
            nghttp2_hd_deflate_hd(deflater_, reinterpret_cast<std::uint8_t*>(block.data()),
                                  block.size(), nv.data(), nv.size());
        REQUIRE(n >= 0);
        block.resize(static_cast<std::size_t>(n));
        return frame(NGHTTP2_HEADERS,
                     NGHTTP2_FLAG_END_HEADERS | (end_stream ? NGHTTP2_FLAG_END_STREAM : 0), stream,
                     block);
    }
    static std::string data(std::int32_t stream, std::string_view bytes, bool end_stream) {
        return frame(NGHTTP2_DATA, end_stream ? NGHTTP2_FLAG_END_STREAM : 0, stream, bytes);
    }
    static std::string rst(std::int32_t stream, std::uint32_t code) {
        return frame(NGHTTP2_RST_STREAM, 0, stream, u32(code));
    }
    static std::string goaway(std::int32_t last, std::uint32_t code) {
        return frame(NGHTTP2_GOAWAY, 0, 0, u32(static_cast<std::uint32_t>(last)) + u32(code));
    }

    // The frames in what the proxy sent (`bytes` continue the earlier ones).
    std::vector<SentFrame> read(const std::string& bytes) {
        pending_ += bytes;
        if (!preface_seen_) {
            if (pending_.size() < NGHTTP2_CLIENT_MAGIC_LEN) return {};
            REQUIRE(pending_.compare(0, NGHTTP2_CLIENT_MAGIC_LEN, NGHTTP2_CLIENT_MAGIC) == 0);
            pending_.erase(0, NGHTTP2_CLIENT_MAGIC_LEN);
            preface_seen_ = true;
        }
        std::vector<SentFrame> out;
        while (pending_.size() >= 9) {
            const auto* p = reinterpret_cast<const std::uint8_t*>(pending_.data());
            const std::size_t n = (std::size_t{p[0]} << 16) | (std::size_t{p[1]} << 8) | p[2];
            if (pending_.size() < 9 + n) break;
            SentFrame f{p[3], p[4], static_cast<std::int32_t>(be32(p + 5) & 0x7fffffff)};
            if (f.type == NGHTTP2_RST_STREAM) f.error = be32(p + 9);
            if (f.type == NGHTTP2_GOAWAY) f.error = be32(p + 13);
            out.push_back(f);
            pending_.erase(0, 9 + n);
        }
        return out;
    }

private:
    static std::uint32_t be32(const std::uint8_t* p) {
        return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) |
               (std::uint32_t{p[2]} << 8) | p[3];
    }

    nghttp2_hd_deflater* deflater_ = nullptr;
    std::string pending_;
    bool preface_seen_ = false;
};

const HeaderList get = {
    {":method", "GET"}, {":scheme", "https"}, {":authority", "o.test"}, {":path", "/"}};

// The codec with its owner and an origin; `exchange()` hands the origin's
// bytes to the codec and returns the frames the proxy sent in reply.
struct Connection {
    Owner owner;
    ClientCodec codec{owner, 8192};
    Origin origin;
    bool more = true;

    Connection() {
        REQUIRE(codec.start());
        sent(); // the preface and the proxy's SETTINGS, which the origin's hello acknowledges
        exchange(Origin::hello());
    }
    std::vector<SentFrame> sent() {
        std::string out;
        codec.send(out, 1 << 20);
        return origin.read(out);
    }
    std::vector<SentFrame> exchange(const std::string& from_origin) {
        more = codec.receive(reinterpret_cast<const std::uint8_t*>(from_origin.data()),
                             from_origin.size());
        return sent();
    }
    static std::vector<SentFrame> of(const std::vector<SentFrame>& frames, std::uint8_t type) {
        std::vector<SentFrame> out;
        for (const auto& f : frames)
            if (f.type == type) out.push_back(f);
        return out;
    }
};

TEST_CASE("client codec: a whole answer is a head, its body and its trailer fields, then the "
          "stream closes without error") {
    Connection c;
    const auto id = c.codec.submit(get, true);
    REQUIRE(id == 1);
    c.sent();
    c.exchange(c.origin.headers(id, {{":status", "200"}, {"content-type", "text/plain"}}, false) +
               Origin::data(id, "hello", false) + Origin::data(id, " world", false) +
               c.origin.headers(id, {{"grpc-status", "0"}}, true));
    CHECK(c.owner.log == std::vector<std::string>{"head 1 200", "data 1 5", "data 1 6",
                                                  "end 1 grpc-status=0", "closed 1 closed"});
    CHECK(c.owner.bodies[id] == "hello world");
    CHECK(c.more);
    CHECK_FALSE(c.codec.ended_for_origin_fault());
    CHECK(c.codec.open_streams() == 0);
}

TEST_CASE("client codec: an interim 1xx head is not passed on; the final one is") {
    Connection c;
    const auto id = c.codec.submit(get, true);
    c.sent();
    c.exchange(c.origin.headers(id, {{":status", "103"}, {"link", "</a.css>"}}, false) +
               c.origin.headers(id, {{":status", "204"}}, true));
    CHECK(c.owner.log == std::vector<std::string>{"head 1 204", "end 1", "closed 1 closed"});
}

TEST_CASE("client codec: a request body goes out as DATA, ending the stream") {
    Connection c;
    auto post = get;
    post[0].value = "POST";
    const auto id = c.codec.submit(post, false);
    c.codec.request_data(id, std::string(3000, 'b'));
    CHECK(c.codec.request_queued(id) == 3000);
    c.codec.request_end(id);
    const auto frames = c.sent();
    const auto data = Connection::of(frames, NGHTTP2_DATA);
    REQUIRE_FALSE(data.empty());
    CHECK((data.back().flags & NGHTTP2_FLAG_END_STREAM) != 0);
    CHECK(c.codec.request_queued(id) == 0);
    const auto heads = Connection::of(frames, NGHTTP2_HEADERS);
    REQUIRE(heads.size() == 1);
    CHECK((heads[0].flags & NGHTTP2_FLAG_END_STREAM) == 0);
}

TEST_CASE("client codec: how a stream ends without a whole answer, and whose fault it was") {
    Connection c;
    const auto id = c.codec.submit(get, true);
    c.sent();

    SECTION("the origin resets it: reset, and the proxy resets nothing") {
        const auto sent = c.exchange(Origin::rst(id, NGHTTP2_INTERNAL_ERROR));
        CHECK(c.owner.log == std::vector<std::string>{"closed 1 reset"});
        CHECK(Connection::of(sent, NGHTTP2_RST_STREAM).empty());
        CHECK_FALSE(c.codec.ended_for_origin_fault());
    }
    SECTION("the origin resets it with PROTOCOL_ERROR: still the origin's reset") {
        c.exchange(Origin::rst(id, NGHTTP2_PROTOCOL_ERROR));
        CHECK(c.owner.ends.at(id) == StreamEnd::reset);
    }
    SECTION("the origin refuses it (REFUSED_STREAM): refused, safe to send again") {
        c.exchange(Origin::rst(id, NGHTTP2_REFUSED_STREAM));
        CHECK(c.owner.ends.at(id) == StreamEnd::refused);
    }
    SECTION("a head over the header list limit: head_too_large, reset by the proxy") {
        const auto sent = c.exchange(
            c.origin.headers(id, {{":status", "200"}, {"x-big", std::string(9000, 'h')}}, false));
        CHECK(c.owner.log == std::vector<std::string>{"closed 1 head_too_large"});
        CHECK(Connection::of(sent, NGHTTP2_RST_STREAM).size() == 1);
        CHECK_FALSE(c.codec.ended_for_origin_fault());
    }
    SECTION("a head with a connection-specific field (malformed in HTTP/2): origin_fault, "
            "reset with PROTOCOL_ERROR, and the connection goes on") {
        const auto sent = c.exchange(
            c.origin.headers(id, {{":status", "200"}, {"connection", "keep-alive"}}, false));
        CHECK(c.owner.log == std::vector<std::string>{"closed 1 origin_fault"});
        const auto resets = Connection::of(sent, NGHTTP2_RST_STREAM);
        REQUIRE(resets.size() == 1);
        CHECK((resets[0].stream == id && resets[0].error == NGHTTP2_PROTOCOL_ERROR));
        CHECK_FALSE(c.codec.ended_for_origin_fault());
        CHECK(c.more);
        const auto next = c.codec.submit(get, true);
        c.sent();
        c.exchange(c.origin.headers(next, {{":status", "200"}}, true));
        CHECK(c.owner.ends.at(next) == StreamEnd::closed);
    }
    SECTION("a body past its content-length: origin_fault") {
        c.exchange(c.origin.headers(id, {{":status", "200"}, {"content-length", "3"}}, false) +
                   Origin::data(id, "four", true));
        CHECK(c.owner.ends.at(id) == StreamEnd::origin_fault);
    }
    SECTION("a PUSH_PROMISE (push is off): GOAWAY PROTOCOL_ERROR, ended for the origin's fault") {
        std::string promise = u32(2);
        const auto sent =
            c.exchange(frame(NGHTTP2_PUSH_PROMISE, NGHTTP2_FLAG_END_HEADERS, id,
                             promise + c.origin.headers(2, {{":path", "/p"}}, false).substr(9)));
        const auto goaways = Connection::of(sent, NGHTTP2_GOAWAY);
        REQUIRE(goaways.size() == 1);
        CHECK(goaways[0].error == NGHTTP2_PROTOCOL_ERROR);
        CHECK(c.codec.ended_for_origin_fault());
        CHECK_FALSE(c.codec.want_read()); // the GOAWAY went: the connection is over
        CHECK_FALSE(c.codec.can_open());
    }
    SECTION("bytes that are no frame at all: GOAWAY, ended for the origin's fault") {
        const auto sent = c.exchange(frame(NGHTTP2_SETTINGS, 0, 0, "12345")); // not 6n bytes
        CHECK(Connection::of(sent, NGHTTP2_GOAWAY).size() == 1);
        CHECK(c.codec.ended_for_origin_fault());
    }
    SECTION("the owner cancels it: RST_STREAM CANCEL, a reset, not the origin's fault") {
        c.codec.cancel(id);
        const auto sent = c.sent();
        const auto resets = Connection::of(sent, NGHTTP2_RST_STREAM);
        REQUIRE(resets.size() == 1);
        CHECK(resets[0].error == NGHTTP2_CANCEL);
        CHECK(c.owner.ends.at(id) == StreamEnd::reset);
        CHECK_FALSE(c.codec.ended_for_origin_fault());
    }
    SECTION("the origin's GOAWAY refuses streams past its last id and no new one opens") {
        const auto later = c.codec.submit(get, true);
        c.sent();
        c.exchange(Origin::goaway(id, NGHTTP2_NO_ERROR));
        CHECK_FALSE(c.codec.can_open());
        CHECK(c.owner.ends.at(later) == StreamEnd::refused); // never processed: may go again
        CHECK(c.owner.ends.count(id) == 0);                  // still open: its answer may come
        CHECK_FALSE(c.codec.ended_for_origin_fault());
    }
}

TEST_CASE("client codec: the answer's windows open only as the owner reads") {
    Connection c;
    const auto id = c.codec.submit(get, true);
    c.sent();
    const std::string piece(16000, 'a');
    auto sent = c.exchange(c.origin.headers(id, {{":status", "200"}}, false) +
                           Origin::data(id, piece, false) + Origin::data(id, piece, false) +
                           Origin::data(id, piece, false));
    CHECK(c.owner.bodies[id].size() == 48000);
    CHECK(Connection::of(sent, NGHTTP2_WINDOW_UPDATE).empty()); // nothing read yet
    c.codec.consumed(id, 48000);
    sent = c.sent();
    std::vector<std::int32_t> opened; // nghttp2 opens a window once half of it was read
    for (const auto& f : Connection::of(sent, NGHTTP2_WINDOW_UPDATE))
        opened.push_back(f.stream);
    CHECK(opened == std::vector<std::int32_t>{id});
    SECTION("past the stream's window, the origin broke flow control: the stream is reset, and "
            "no byte past the window reaches the owner") {
        std::string flood;
        for (int i = 0; i < 7; ++i) // 112 KiB into a 64 KiB window
            flood += Origin::data(id, std::string(16384, 'a'), false);
        c.exchange(flood);
        CHECK(c.owner.bodies[id].size() == 48000 + 65536); // four frames fit, the fifth does not
        CHECK(c.owner.ends.at(id) == StreamEnd::origin_fault);
    }
}

TEST_CASE("client codec: the origin's SETTINGS_MAX_CONCURRENT_STREAMS bounds new requests") {
    Owner owner;
    ClientCodec codec{owner, 8192};
    REQUIRE(codec.start());
    std::string preface;
    codec.send(preface, 1 << 20);
    const auto hello = Origin::hello({{NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, 2}});
    codec.receive(reinterpret_cast<const std::uint8_t*>(hello.data()), hello.size());
    CHECK(codec.can_open());
    codec.submit(get, true);
    CHECK(codec.can_open());
    codec.submit(get, true);
    CHECK_FALSE(codec.can_open());
    CHECK(codec.open_streams() == 2);
}

} // namespace client_codec_test
