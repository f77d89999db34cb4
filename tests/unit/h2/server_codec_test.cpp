// The server codec driven from memory against a real HTTP/2 client (libnghttp2's
// client session): what a client of the proxy sees on the wire, and what the
// request path is told, for requests, bodies, answers, limits and shutdown.
#include "h2/server_codec.hpp"

#include <boost/asio/buffer.hpp>
#include <boost/beast/http.hpp>
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <limits>
#include <list>
#include <map>
#include <nghttp2/nghttp2.h>
#include <string>
#include <vector>

namespace server_codec_test {

using osf::h2::CodecLimits;
using osf::h2::HeaderList;
using osf::h2::ServerCodec;

// What the codec told its owner. Called inside nghttp2's callbacks, so a
// failure is recorded (CHECK), never thrown through C.
struct Recorder final : ServerCodec::Events {
    struct Stream {
        osf::h2::Http1Request request;
        bool too_large = false;
        std::string bytes; // the request's body bytes as given (framing included)
        bool ended = false;
        bool closed = false;
        std::size_t rooms = 0;
    };
    std::map<std::int32_t, Stream> streams;
    std::vector<std::string> log; // "started 1", "bytes 1", "end 1", "closed 1"

    void started(std::int32_t id, osf::h2::Http1Request request, bool too_large) override {
        CHECK(streams.count(id) == 0);
        auto& st = streams[id];
        st.request = std::move(request);
        st.too_large = too_large;
        log.push_back("started " + std::to_string(id));
    }
    void request_bytes(std::int32_t id, std::string_view bytes) override {
        auto* st = known(id);
        if (!st) return;
        CHECK_FALSE(st->ended);
        st->bytes.append(bytes);
        log.push_back("bytes " + std::to_string(id));
    }
    void request_end(std::int32_t id) override {
        auto* st = known(id);
        if (!st) return;
        CHECK_FALSE(st->ended);
        st->ended = true;
        log.push_back("end " + std::to_string(id));
    }
    void answer_room(std::int32_t id) override {
        if (auto* st = known(id)) ++st->rooms;
    }
    void stream_closed(std::int32_t id) override {
        auto* st = known(id);
        if (!st) return;
        CHECK_FALSE(st->closed);
        st->closed = true;
        log.push_back("closed " + std::to_string(id));
    }

private:
    Stream* known(std::int32_t id) {
        auto it = streams.find(id);
        CHECK(it != streams.end()); // only started streams have events
        return it == streams.end() ? nullptr : &it->second;
    }
};

struct ClientOptions {
    std::vector<nghttp2_settings_entry> settings; // the client's SETTINGS
    bool manual_window = false; // the client's windows open only with Client::read()
};

// A real HTTP/2 client (nghttp2's client session), fed and read from memory.
class Client {
public:
    struct Stream {
        HeaderList head;     // the answer's
        HeaderList trailers; // HEADERS after the head
        std::string body;
        bool end_stream = false; // a frame with END_STREAM arrived
        bool closed = false;
        std::uint32_t error = 0; // the close's error code
        std::size_t unread = 0;
    };
    struct Frame {
        std::uint8_t type;
        std::uint8_t flags;
        std::int32_t stream;
        std::uint32_t error = 0;  // RST_STREAM, GOAWAY
        std::int32_t last_id = 0; // GOAWAY
    };

    explicit Client(const ClientOptions& options = {}) {
        nghttp2_session_callbacks* cb = nullptr;
        REQUIRE(nghttp2_session_callbacks_new(&cb) == 0);
        nghttp2_session_callbacks_set_on_frame_recv_callback(cb, &on_frame);
        nghttp2_session_callbacks_set_on_header_callback(cb, &on_header);
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb, &on_data);
        nghttp2_session_callbacks_set_on_stream_close_callback(cb, &on_close);
        nghttp2_option* opt = nullptr;
        REQUIRE(nghttp2_option_new(&opt) == 0);
        if (options.manual_window) nghttp2_option_set_no_auto_window_update(opt, 1);
        const int rv = nghttp2_session_client_new2(&session_, cb, this, opt);
        nghttp2_option_del(opt);
        nghttp2_session_callbacks_del(cb);
        REQUIRE(rv == 0);
        REQUIRE(nghttp2_submit_settings(session_, NGHTTP2_FLAG_NONE, options.settings.data(),
                                        options.settings.size()) == 0);
    }
    ~Client() { nghttp2_session_del(session_); }
    Client(const Client&) = delete;
    Client& operator=(const Client&) = delete;

    // A request; `body` goes as DATA (more with send_more() unless `end`),
    // `trailers` after it. Without a body and with `end`, HEADERS ends the stream.
    std::int32_t request(const HeaderList& fields, std::string body = {}, bool end = true,
                         HeaderList trailers = {}) {
        const auto nv = to_nv(fields);
        if (body.empty() && end && trailers.empty()) {
            const auto id =
                nghttp2_submit_request(session_, nullptr, nv.data(), nv.size(), nullptr, nullptr);
            REQUIRE(id > 0);
            return id;
        }
        auto& up = uploads_.emplace_back();
        up.data = std::move(body);
        up.end = end;
        up.trailers = std::move(trailers);
        nghttp2_data_provider provider{};
        provider.source.ptr = &up;
        provider.read_callback = &read_upload;
        const auto id =
            nghttp2_submit_request(session_, nullptr, nv.data(), nv.size(), &provider, &up);
        REQUIRE(id > 0);
        return id;
    }
    void send_more(std::int32_t id, std::string_view bytes, bool end) {
        auto* up = static_cast<Upload*>(nghttp2_session_get_stream_user_data(session_, id));
        REQUIRE(up != nullptr);
        up->data.append(bytes);
        up->end = end;
        REQUIRE(nghttp2_session_resume_data(session_, id) == 0);
    }
    void reset(std::int32_t id, std::uint32_t code) {
        REQUIRE(nghttp2_submit_rst_stream(session_, NGHTTP2_FLAG_NONE, id, code) == 0);
    }
    void ping() { REQUIRE(nghttp2_submit_ping(session_, NGHTTP2_FLAG_NONE, nullptr) == 0); }
    // The application read what arrived on the stream: its windows open (manual_window).
    void read(std::int32_t id) {
        auto& st = streams[id];
        if (st.unread > 0) REQUIRE(nghttp2_session_consume(session_, id, st.unread) == 0);
        st.unread = 0;
    }

    std::string output() {
        std::string out;
        for (;;) {
            const std::uint8_t* data = nullptr;
            const auto n = nghttp2_session_mem_send(session_, &data);
            REQUIRE(n >= 0);
            if (n == 0) return out;
            out.append(reinterpret_cast<const char*>(data), static_cast<std::size_t>(n));
        }
    }
    void input(const std::string& bytes) {
        const auto n = nghttp2_session_mem_recv(
            session_, reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
        REQUIRE(n == static_cast<decltype(n)>(bytes.size()));
    }

    std::vector<const Frame*> frames_of(std::uint8_t type, std::int32_t stream = -1) const {
        std::vector<const Frame*> out;
        for (const auto& f : frames)
            if (f.type == type && (stream < 0 || f.stream == stream)) out.push_back(&f);
        return out;
    }

    std::map<std::int32_t, Stream> streams;
    std::vector<Frame> frames; // every frame received

private:
    struct Upload {
        std::string data;
        std::size_t pos = 0;
        bool end = true;
        HeaderList trailers;
    };

    static std::vector<nghttp2_nv> to_nv(const HeaderList& fields) {
        std::vector<nghttp2_nv> nv;
        for (const auto& f : fields)
            nv.push_back({reinterpret_cast<std::uint8_t*>(const_cast<char*>(f.name.data())),
                          reinterpret_cast<std::uint8_t*>(const_cast<char*>(f.value.data())),
                          f.name.size(), f.value.size(), NGHTTP2_NV_FLAG_NONE});
        return nv;
    }
    static Client& self(void* user) { return *static_cast<Client*>(user); }

    static ssize_t read_upload(nghttp2_session* session, std::int32_t id, std::uint8_t* buf,
                               std::size_t length, std::uint32_t* flags,
                               nghttp2_data_source* source, void*) {
        auto& up = *static_cast<Upload*>(source->ptr);
        const auto n = std::min(length, up.data.size() - up.pos);
        std::memcpy(buf, up.data.data() + up.pos, n);
        up.pos += n;
        if (up.pos < up.data.size()) return static_cast<ssize_t>(n);
        if (!up.end) return n > 0 ? static_cast<ssize_t>(n) : NGHTTP2_ERR_DEFERRED;
        *flags |= NGHTTP2_DATA_FLAG_EOF;
        if (!up.trailers.empty()) {
            *flags |= NGHTTP2_DATA_FLAG_NO_END_STREAM;
            const auto nv = to_nv(up.trailers);
            if (nghttp2_submit_trailer(session, id, nv.data(), nv.size()) != 0)
                return NGHTTP2_ERR_CALLBACK_FAILURE;
        }
        return static_cast<ssize_t>(n);
    }
    static int on_frame(nghttp2_session*, const nghttp2_frame* frame, void* user) {
        auto& c = self(user);
        Frame f{frame->hd.type, frame->hd.flags, frame->hd.stream_id};
        if (frame->hd.type == NGHTTP2_RST_STREAM) f.error = frame->rst_stream.error_code;
        if (frame->hd.type == NGHTTP2_GOAWAY) {
            f.error = frame->goaway.error_code;
            f.last_id = frame->goaway.last_stream_id;
        }
        c.frames.push_back(f);
        if ((frame->hd.type == NGHTTP2_HEADERS || frame->hd.type == NGHTTP2_DATA) &&
            (frame->hd.flags & NGHTTP2_FLAG_END_STREAM))
            c.streams[frame->hd.stream_id].end_stream = true;
        return 0;
    }
    static int on_header(nghttp2_session*, const nghttp2_frame* frame, const std::uint8_t* name,
                         std::size_t namelen, const std::uint8_t* value, std::size_t valuelen,
                         std::uint8_t, void* user) {
        auto& st = self(user).streams[frame->hd.stream_id];
        auto& list = frame->headers.cat == NGHTTP2_HCAT_HEADERS ? st.trailers : st.head;
        list.push_back({std::string(reinterpret_cast<const char*>(name), namelen),
                        std::string(reinterpret_cast<const char*>(value), valuelen)});
        return 0;
    }
    static int on_data(nghttp2_session*, std::uint8_t, std::int32_t id, const std::uint8_t* data,
                       std::size_t len, void* user) {
        auto& st = self(user).streams[id];
        st.body.append(reinterpret_cast<const char*>(data), len);
        st.unread += len;
        return 0;
    }
    static int on_close(nghttp2_session*, std::int32_t id, std::uint32_t error, void* user) {
        auto& st = self(user).streams[id];
        st.closed = true;
        st.error = error;
        return 0;
    }

    nghttp2_session* session_ = nullptr;
    std::list<Upload> uploads_;
};

// A codec, its owner's record, and a client talking to it.
struct Harness {
    explicit Harness(CodecLimits limits = {}, const ClientOptions& options = {})
        : codec(events, limits), client(options) {
        REQUIRE(codec.start());
    }

    // The client's bytes to the codec, the codec's to the client, until neither
    // has anything more to send.
    void pump() {
        for (int round = 0; round < 10000; ++round) {
            const auto up = client.output();
            if (!up.empty())
                connected =
                    codec.receive(reinterpret_cast<const std::uint8_t*>(up.data()), up.size()) &&
                    connected;
            std::string down;
            codec.send(down, std::numeric_limits<std::size_t>::max());
            if (!down.empty()) client.input(down);
            if (up.empty() && down.empty()) return;
        }
        FAIL("the client and the codec never stop talking");
    }

    Recorder events;
    ServerCodec codec;
    Client client;
    bool connected = true; // every receive() said the connection goes on
};

HeaderList get(std::string path = "/x?y=1") {
    return {{":method", "GET"},
            {":scheme", "https"},
            {":authority", "api.test:8443"},
            {":path", std::move(path)},
            {"user-agent", "t/1"}};
}

HeaderList post(std::string path = "/upload") {
    auto fields = get(std::move(path));
    fields[0].value = "POST";
    return fields;
}

std::string pattern(std::size_t n) {
    std::string s(n, '\0');
    for (std::size_t i = 0; i < n; ++i)
        s[i] = static_cast<char>('a' + (i * 7 + i / 251) % 26);
    return s;
}

std::string field(const HeaderList& fields, std::string_view name) {
    for (const auto& f : fields)
        if (f.name == name) return f.value;
    return "(none)";
}

// The request as the proxy's request path reads it: the head, then the body bytes.
struct ParsedRequest {
    bool ok = false;
    bool done = false;
    boost::beast::http::request<boost::beast::http::string_body> message;
};
ParsedRequest parse_request(const std::string& head, const std::string& bytes) {
    namespace http = boost::beast::http;
    const std::string all = head + bytes;
    http::request_parser<http::string_body> p;
    p.body_limit(boost::none);
    boost::beast::error_code ec;
    std::size_t at = 0;
    while (!ec && !p.is_done() && at < all.size())
        at += p.put(boost::asio::buffer(all.data() + at, all.size() - at), ec);
    ParsedRequest out;
    out.ok = !ec || ec == http::error::need_more;
    out.done = p.is_done() && at == all.size();
    out.message = p.release();
    return out;
}

// HTTP/2 frames in what a codec sent: type, flags, stream and payload.
struct RawFrame {
    std::uint8_t type;
    std::uint8_t flags;
    std::int32_t stream;
    std::string payload;
};
std::vector<RawFrame> split_frames(const std::string& bytes) {
    std::vector<RawFrame> out;
    std::size_t at = 0;
    const auto byte = [&](std::size_t i) { return static_cast<std::uint8_t>(bytes[i]); };
    while (at + 9 <= bytes.size()) {
        const std::size_t len =
            std::size_t{byte(at)} << 16 | std::size_t{byte(at + 1)} << 8 | byte(at + 2);
        const auto stream = static_cast<std::int32_t>(
            (std::uint32_t{byte(at + 5)} & 0x7f) << 24 | std::uint32_t{byte(at + 6)} << 16 |
            std::uint32_t{byte(at + 7)} << 8 | byte(at + 8));
        REQUIRE(at + 9 + len <= bytes.size());
        out.push_back({byte(at + 3), byte(at + 4), stream, bytes.substr(at + 9, len)});
        at += 9 + len;
    }
    CHECK(at == bytes.size());
    return out;
}
std::uint32_t be32(const std::string& s, std::size_t at) {
    std::uint32_t v = 0;
    for (std::size_t i = 0; i < 4; ++i)
        v = v << 8 | static_cast<std::uint8_t>(s[at + i]);
    return v;
}

TEST_CASE("server codec: a GET becomes an HTTP/1.1 head, then the request's end") {
    Harness h;
    auto fields = get();
    fields.push_back({"accept", "*/*"});
    const auto id = h.client.request(fields);
    h.pump();
    REQUIRE(h.events.streams.count(id) == 1);
    const auto& st = h.events.streams[id];
    CHECK(st.request.head ==
          "GET /x?y=1 HTTP/1.1\r\nhost: api.test:8443\r\nuser-agent: t/1\r\naccept: */*\r\n\r\n");
    CHECK(st.request.problem.empty());
    CHECK_FALSE(st.request.chunked);
    CHECK_FALSE(st.too_large);
    CHECK(st.bytes.empty());
    CHECK(h.events.log == std::vector<std::string>{"started 1", "end 1"});
    CHECK(h.codec.in_flight() == 1);
    CHECK(h.connected);
}

TEST_CASE("server codec: a POST body without content-length arrives as chunks as it comes, "
          "trailers last") {
    Harness h;
    const auto id = h.client.request(post(), "hello ", false, {{"x-sum", "abc"}});
    h.pump();
    REQUIRE(h.events.streams.count(id) == 1);
    const auto& st = h.events.streams[id];
    CHECK(st.request.chunked);
    CHECK(st.request.head.find("transfer-encoding: chunked\r\n") != std::string::npos);
    // What arrived is passed on at once, before the body's end.
    CHECK(st.bytes == "6\r\nhello \r\n");
    CHECK_FALSE(st.ended);
    h.client.send_more(id, "world", true);
    h.pump();
    CHECK(st.bytes == "6\r\nhello \r\n5\r\nworld\r\n0\r\nx-sum: abc\r\n\r\n");
    CHECK(st.ended);
    CHECK(h.events.log.back() == "end 1");
    // The request path reads it whole: body and trailer field.
    const auto parsed = parse_request(st.request.head, st.bytes);
    REQUIRE(parsed.ok);
    REQUIRE(parsed.done);
    CHECK(parsed.message.body() == "hello world");
    CHECK(parsed.message["x-sum"] == "abc");
}

TEST_CASE("server codec: a POST body with content-length arrives as it is") {
    Harness h;
    auto fields = post();
    fields.push_back({"content-length", "5"});
    const auto id = h.client.request(fields, "hello");
    h.pump();
    REQUIRE(h.events.streams.count(id) == 1);
    const auto& st = h.events.streams[id];
    CHECK_FALSE(st.request.chunked);
    CHECK(st.request.head.find("content-length: 5\r\n") != std::string::npos);
    CHECK(st.request.head.find("transfer-encoding") == std::string::npos);
    CHECK(st.bytes == "hello");
    CHECK(st.ended);
    const auto parsed = parse_request(st.request.head, st.bytes);
    REQUIRE(parsed.done);
    CHECK(parsed.message.body() == "hello");
}

TEST_CASE("server codec: a body over the stream window waits for consumed(), the proxy holds at "
          "most the window") {
    Harness h;
    const auto body = pattern(300 * 1024);
    auto fields = post();
    fields.push_back({"content-length", std::to_string(body.size())});
    const auto id = h.client.request(fields, body);
    h.pump();
    REQUIRE(h.events.streams.count(id) == 1);
    auto& st = h.events.streams[id];
    // Nothing read: the client stops at the stream's window.
    CHECK(st.bytes.size() == static_cast<std::size_t>(osf::h2::stream_window));
    h.pump();
    CHECK(st.bytes.size() == static_cast<std::size_t>(osf::h2::stream_window));
    CHECK_FALSE(st.ended);

    std::size_t read = 0;
    int rounds = 0;
    while (!st.ended && rounds < 100) {
        ++rounds;
        const auto before = st.bytes.size();
        h.codec.consumed(id, before - read);
        read = before;
        h.pump();
        CHECK(st.bytes.size() > before); // the window opened
        CHECK(st.bytes.size() - read <= static_cast<std::size_t>(osf::h2::stream_window));
    }
    CHECK(st.ended);
    CHECK(rounds > 1);
    CHECK(st.bytes == body);
}

TEST_CASE("server codec: an answer larger than the client's window reaches it whole, trailers "
          "included; answer_queued() counts what waits") {
    Harness h({}, {{{NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, 16384}}, true});
    const auto id = h.client.request(get());
    h.pump();
    REQUIRE(h.events.streams.count(id) == 1);

    const auto body = pattern(100000);
    h.codec.answer_head(id, {{":status", "200"}, {"content-type", "text/plain"}}, false);
    h.codec.answer_data(id, body.substr(0, 60000));
    h.codec.answer_data(id, body.substr(60000));
    CHECK(h.codec.answer_queued(id) == body.size());
    h.codec.answer_end(id, {{"x-checksum", "42"}});
    h.pump();

    auto& got = h.client.streams[id];
    CHECK(field(got.head, ":status") == "200");
    CHECK(field(got.head, "content-type") == "text/plain");
    // The client's window (16 KiB) took its part; the rest waits in the codec.
    CHECK(got.body.size() == 16384);
    CHECK(h.codec.answer_queued(id) == body.size() - got.body.size());
    CHECK(h.events.streams[id].rooms > 0);
    CHECK_FALSE(got.end_stream);

    int rounds = 0;
    while (!got.closed && rounds < 100) {
        ++rounds;
        h.client.read(id);
        h.pump();
        if (!got.closed) CHECK(h.codec.answer_queued(id) == body.size() - got.body.size());
    }
    REQUIRE(got.closed);
    CHECK(rounds > 1);
    CHECK(got.body == body);
    CHECK(got.trailers.size() == 1);
    CHECK(field(got.trailers, "x-checksum") == "42");
    CHECK(got.end_stream);
    CHECK(got.error == NGHTTP2_NO_ERROR);
    CHECK(h.codec.answer_queued(id) == 0);
    // The answer is whole while the request path still runs: the owner is told.
    CHECK(h.events.streams[id].closed);
}

TEST_CASE("server codec: an answer that ends while the client still sends ends its upload "
          "(RST_STREAM NO_ERROR after the answer)") {
    Harness h;
    const auto id = h.client.request(post(), "part of a body", false);
    h.pump();
    REQUIRE(h.events.streams.count(id) == 1);
    h.codec.answer_head(id, {{":status", "403"}}, true);
    h.pump();
    const auto& got = h.client.streams[id];
    CHECK(field(got.head, ":status") == "403");
    CHECK(got.end_stream);
    CHECK(got.closed);
    CHECK(got.error == NGHTTP2_NO_ERROR);
    const auto rst = h.client.frames_of(NGHTTP2_RST_STREAM, id);
    REQUIRE(rst.size() == 1);
    CHECK(rst[0]->error == NGHTTP2_NO_ERROR);
    CHECK(h.events.streams[id].closed);
    CHECK_FALSE(h.events.streams[id].ended);
}

TEST_CASE("server codec: a header list over the limit starts the stream too_large, with its "
          "method and path") {
    CodecLimits limits;
    limits.max_header_list_bytes = 1024;
    Harness h(limits);
    auto fields = post("/upload?q=1");
    fields.push_back({"x-big", std::string(2000, 'b')});
    fields.push_back({"x-after", "1"});
    const auto id = h.client.request(fields);
    auto small = get("/small");
    small.push_back({"x-fits", std::string(500, 's')});
    const auto ok = h.client.request(small);
    h.pump();
    REQUIRE(h.events.streams.count(id) == 1);
    const auto& st = h.events.streams[id];
    CHECK(st.too_large);
    CHECK(st.request.head.empty());
    CHECK(st.request.method == "POST");
    CHECK(st.request.path == "/upload?q=1");
    CHECK(st.ended);
    // The connection goes on: the owner answers 431 on the stream, the next
    // request is served.
    REQUIRE(h.events.streams.count(ok) == 1);
    CHECK_FALSE(h.events.streams[ok].too_large);
    CHECK(h.events.streams[ok].request.head.find("x-fits: sss") != std::string::npos);
    h.codec.answer_head(id, {{":status", "431"}}, true);
    h.pump();
    CHECK(field(h.client.streams[id].head, ":status") == "431");
    CHECK(h.client.streams[id].end_stream);
    CHECK(h.connected);
}

TEST_CASE("server codec: a request over max_streams is refused (REFUSED_STREAM), never started") {
    CodecLimits limits;
    limits.max_streams = 2;
    Harness h(limits);
    // Sent before the client knows the limit, all at once.
    const auto a = h.client.request(get("/a"));
    const auto b = h.client.request(get("/b"));
    const auto c = h.client.request(get("/c"));
    h.pump();
    CHECK(h.events.streams.count(a) == 1);
    CHECK(h.events.streams.count(b) == 1);
    CHECK(h.events.streams.count(c) == 0);
    CHECK(h.codec.in_flight() == 2);
    CHECK(h.client.streams[c].closed);
    CHECK(h.client.streams[c].error == NGHTTP2_REFUSED_STREAM);
    CHECK(h.connected);
}

TEST_CASE("server codec: a reset stream whose request path runs keeps its place (rapid reset); "
          "request_done() frees it") {
    CodecLimits limits;
    limits.max_streams = 2;
    Harness h(limits);
    const auto a = h.client.request(post("/a"), "x", false);
    const auto b = h.client.request(post("/b"), "y", false);
    h.pump();
    REQUIRE(h.events.streams.size() == 2);
    h.client.reset(a, NGHTTP2_CANCEL);
    h.client.reset(b, NGHTTP2_CANCEL);
    h.pump();
    CHECK(h.events.streams[a].closed);
    CHECK(h.events.streams[b].closed);
    CHECK(h.codec.in_flight() == 2);

    // Neither the client nor nghttp2 counts an open stream now: the codec refuses.
    const auto c = h.client.request(get("/c"));
    h.pump();
    CHECK(h.events.streams.count(c) == 0);
    CHECK(h.client.streams[c].error == NGHTTP2_REFUSED_STREAM);
    CHECK(h.client.frames_of(NGHTTP2_RST_STREAM, c).size() == 1);

    h.codec.request_done(a);
    CHECK(h.codec.in_flight() == 1);
    const auto d = h.client.request(get("/d"));
    h.pump();
    CHECK(h.events.streams.count(d) == 1);
    CHECK(h.codec.in_flight() == 2);
    h.codec.request_done(a); // twice: no effect
    CHECK(h.codec.in_flight() == 2);
}

TEST_CASE("server codec: a client's RST_STREAM on a running stream gives stream_closed(); the "
          "answer goes nowhere") {
    Harness h;
    const auto id = h.client.request(post(), "some", false);
    h.pump();
    REQUIRE(h.events.streams.count(id) == 1);
    h.client.reset(id, NGHTTP2_CANCEL);
    h.pump();
    const auto& st = h.events.streams[id];
    CHECK(st.closed);
    CHECK_FALSE(st.ended);
    CHECK(h.events.log.back() == "closed 1");
    const auto frames = h.client.frames.size();
    h.codec.answer_head(id, {{":status", "200"}}, false);
    h.codec.answer_data(id, "late");
    CHECK(h.codec.answer_queued(id) == 0);
    h.pump();
    CHECK(h.client.frames.size() == frames);
    h.codec.request_done(id);
    CHECK(h.codec.in_flight() == 0);
    CHECK(h.connected);
}

TEST_CASE("server codec: reset(INTERNAL_ERROR) cuts an answer: the client sees the reset, no end") {
    Harness h;
    const auto id = h.client.request(get());
    h.pump();
    h.codec.answer_head(id, {{":status", "200"}}, false);
    h.codec.answer_data(id, "part");
    h.pump();
    h.codec.reset(id, NGHTTP2_INTERNAL_ERROR);
    h.pump();
    const auto& got = h.client.streams[id];
    CHECK(field(got.head, ":status") == "200");
    CHECK(got.body == "part");
    CHECK_FALSE(got.end_stream);
    CHECK(got.closed);
    CHECK(got.error == NGHTTP2_INTERNAL_ERROR);
    const auto rst = h.client.frames_of(NGHTTP2_RST_STREAM, id);
    REQUIRE(rst.size() == 1);
    CHECK(rst[0]->error == NGHTTP2_INTERNAL_ERROR);
    CHECK(h.events.streams[id].closed);
}

TEST_CASE("server codec: shutdown() sends GOAWAY; the streams begun still finish, then the "
          "connection is over") {
    Harness h;
    const auto a = h.client.request(get("/a"));
    const auto b = h.client.request(get("/b"));
    h.pump();
    h.codec.shutdown();
    h.pump();
    const auto goaway = h.client.frames_of(NGHTTP2_GOAWAY);
    REQUIRE(goaway.size() == 1);
    CHECK(goaway[0]->error == NGHTTP2_NO_ERROR);
    CHECK(goaway[0]->last_id == b);
    CHECK(h.codec.want_read()); // the streams begun go on

    for (const auto id : {a, b}) {
        h.codec.answer_head(id, {{":status", "200"}}, false);
        h.codec.answer_data(id, "done " + std::to_string(id));
        h.codec.answer_end(id, {});
    }
    h.pump();
    for (const auto id : {a, b}) {
        const auto& got = h.client.streams[id];
        CHECK(got.closed);
        CHECK(got.error == NGHTTP2_NO_ERROR);
        CHECK(got.body == "done " + std::to_string(id));
        h.codec.request_done(id);
    }
    CHECK_FALSE(h.codec.want_read());
    CHECK_FALSE(h.codec.want_write());
}

TEST_CASE("server codec: a request that arrives after shutdown(), before its GOAWAY went out, is "
          "not started beyond the GOAWAY's last stream") {
    Harness h;
    const auto a = h.client.request(get("/a"));
    h.pump();
    h.codec.shutdown();
    // The client sends before it reads the GOAWAY (the writer has not run yet).
    const auto b = h.client.request(post("/b"), "payload");
    h.pump();
    const auto goaway = h.client.frames_of(NGHTTP2_GOAWAY);
    REQUIRE(goaway.size() == 1);
    CHECK(goaway[0]->last_id == a);
    // The client takes stream b for one the server never processed (it may
    // send it again elsewhere): the request path must not have run it.
    CHECK(h.client.streams[b].error == NGHTTP2_REFUSED_STREAM);
    CHECK(h.events.streams.count(b) == 0);
}

TEST_CASE("server codec: a PING flood past the token bucket ends with GOAWAY ENHANCE_YOUR_CALM") {
    Harness h;
    h.pump();
    // Batches small enough that nghttp2's own queue limit (1,000 frames not
    // sent) is never reached: the codec's bucket is what ends it.
    const int pings = 3 * static_cast<int>(osf::h2::control_burst);
    int sent = 0;
    while (sent < pings && h.client.frames_of(NGHTTP2_GOAWAY).empty()) {
        for (int i = 0; i < 50; ++i)
            h.client.ping();
        sent += 50;
        h.pump();
    }
    const auto goaway = h.client.frames_of(NGHTTP2_GOAWAY);
    REQUIRE(goaway.size() == 1);
    CHECK(goaway[0]->error == NGHTTP2_ENHANCE_YOUR_CALM);
    // The burst was honoured (the client's SETTINGS took one token): every
    // PING of the batches before the last was answered, and the GOAWAY came
    // no earlier than the batch holding the burst's last PING. The flood was not.
    CHECK(sent >= static_cast<int>(osf::h2::control_burst));
    CHECK(h.client.frames_of(NGHTTP2_PING).size() >= static_cast<std::size_t>(sent - 50));
    CHECK(sent < pings);
    CHECK_FALSE(h.codec.want_read());
}

TEST_CASE("server codec: bytes that are not an HTTP/2 preface end the connection with a GOAWAY") {
    Recorder events;
    ServerCodec codec(events, {});
    REQUIRE(codec.start());
    const std::string http1 = "GET / HTTP/1.1\r\nHost: a.test\r\n\r\n";
    CHECK_FALSE(codec.receive(reinterpret_cast<const std::uint8_t*>(http1.data()), http1.size()));
    std::string out;
    codec.send(out, std::numeric_limits<std::size_t>::max());
    const auto frames = split_frames(out);
    REQUIRE(frames.size() >= 2);
    CHECK(frames.front().type == NGHTTP2_SETTINGS);
    const auto& goaway = frames.back();
    REQUIRE(goaway.type == NGHTTP2_GOAWAY);
    REQUIRE(goaway.payload.size() >= 8);
    CHECK(be32(goaway.payload, 4) == NGHTTP2_PROTOCOL_ERROR);
    CHECK(events.streams.empty());
    CHECK_FALSE(codec.want_read());
    CHECK_FALSE(codec.want_write());
}

TEST_CASE("server codec: request bytes a closed stream's request path never read are given back "
          "to the connection window") {
    // 20 uploads of a stream window each, unread when their stream closes: 1.25
    // MiB, more than the connection's window (1 MiB). An upload after them
    // must still arrive.
    Harness h;
    const auto chunk = pattern(static_cast<std::size_t>(osf::h2::stream_window));
    auto fields = post();
    fields.push_back({"content-length", std::to_string(chunk.size())});
    const bool client_resets = GENERATE(true, false);
    for (int i = 0; i < 20; ++i) {
        const auto id = h.client.request(fields, chunk);
        h.pump();
        REQUIRE(h.events.streams.count(id) == 1);
        if (client_resets) {
            h.client.reset(id, NGHTTP2_CANCEL); // the client gives up
        } else {
            h.codec.answer_head(id, {{":status", "403"}}, true); // refused before its body is read
        }
        h.pump();
        CHECK(h.events.streams[id].closed);
        h.codec.request_done(id);
    }
    fields.back().value = "5";
    const auto last = h.client.request(fields, "hello");
    h.pump();
    REQUIRE(h.events.streams.count(last) == 1);
    CHECK(h.events.streams[last].bytes == "hello");
    CHECK(h.events.streams[last].ended);
}

TEST_CASE("server codec: trailer fields are a header list of their own under the limit") {
    // RFC 9113 6.5.2: SETTINGS_MAX_HEADER_LIST_SIZE is per header list; a
    // request's trailer section is one.
    CodecLimits limits;
    limits.max_header_list_bytes = 1024;
    Harness h(limits);
    auto fields = post();
    fields.push_back({"x-head", std::string(700, 'h')});
    const auto id = h.client.request(fields, "body", true, {{"x-sum", std::string(700, 't')}});
    h.pump();
    REQUIRE(h.events.streams.count(id) == 1);
    const auto& st = h.events.streams[id];
    CHECK_FALSE(st.too_large);
    CHECK(st.ended);
    CHECK(st.bytes == "4\r\nbody\r\n0\r\nx-sum: " + std::string(700, 't') + "\r\n\r\n");
}

} // namespace server_codec_test
