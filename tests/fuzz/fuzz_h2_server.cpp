// Fuzz target: the HTTP/2 frame path of the proxy's server side. A client's
// bytes go to h2::ServerCodec (nghttp2 with the proxy's limits) in three
// receive() calls; its owner here does what net/h2_session.cpp does, after
// each receive (never inside the codec's callbacks): answers every started
// stream (head, body, end with or without trailers; a refusal's head alone; a
// cut answer now and then), reads the request bytes (consumed()) and ends the
// request (request_done()) at its end or when its stream closes; send() is
// drained after each receive.
//
// Input: 4 option bytes, then the client's bytes (from the preface on).
//   byte 0: bits 0-1 max_streams - 1; bit 2 answer as soon as started (else at
//           the request's end); bit 3 read request bytes every other round only;
//           bit 4 trailer fields on answers; bit 5 cut every other answer
//           (reset INTERNAL_ERROR); bit 6 shutdown() before the second
//           receive(), its GOAWAY not sent yet; bit 7 a 1 KiB header list limit
//   byte 1: bits 0-1 the answer body: none (head with END_STREAM), 100 bytes,
//           20,000 bytes (over one DATA frame), 70,000 (over a stream window)
//   bytes 2-3: where the client's bytes are split (fractions of their length)
//
// Invariants: the requests started and not done never exceed max_streams, and
// the codec counts them as the owner does; each stream is started once, and
// gets no request bytes after its end or its close; request bytes waiting for
// the owner stay within the stream window (plus chunk framing) and all of
// them within the connection window; a request whose head the request path
// accepts is, at its end, exactly one whole HTTP/1.1 message (head and body
// bytes: no framing disagreement to smuggle a second request in); answer bytes
// queued in the codec never exceed what the owner gave for the streams nghttp2
// can hold open; a GOAWAY never names a last stream below one that was started;
// what send() gives is whole HTTP/2 frames after a SETTINGS; no crash or leak.
#include "fuzz_check.hpp"
#include "h2/server_codec.hpp"

#include <algorithm>
#include <boost/asio/buffer.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <cstring>
#include <limits>
#include <map>
#include <nghttp2/nghttp2.h>
#include <string>
#include <vector>

namespace {

namespace http = boost::beast::http;
using osf::h2::ServerCodec;

constexpr std::size_t option_bytes = 4;
constexpr std::size_t answer_sizes[] = {0, 100, 20000, 70000};

struct Options {
    std::uint32_t max_streams;
    bool answer_at_start;
    bool lazy_reads;
    bool trailers;
    bool cut_some;
    bool shutdown_early;
    std::size_t max_header_list_bytes;
    std::size_t answer_size;
};

// Whether the request path would take this head (it parses it with Beast).
bool head_accepted(const std::string& head) {
    http::request_parser<http::empty_body> p;
    boost::beast::error_code ec;
    p.put(boost::asio::buffer(head), ec);
    return !ec && p.is_header_done();
}

// The head and body bytes are exactly one whole request.
bool one_whole_request(const std::string& head, const std::string& bytes) {
    const std::string all = head + bytes;
    http::request_parser<http::string_body> p;
    p.body_limit(boost::none);
    boost::beast::error_code ec;
    std::size_t at = 0;
    while (!ec && !p.is_done() && at < all.size())
        at += p.put(boost::asio::buffer(all.data() + at, all.size() - at), ec);
    return !ec && p.is_done() && at == all.size();
}

class Owner final : public ServerCodec::Events {
public:
    explicit Owner(const Options& o) : options_(o) {}

    struct Stream {
        osf::h2::Http1Request request;
        bool too_large = false;
        bool accepted = false; // the request path would take its head
        std::string bytes;     // kept for accepted heads, to check the framing
        std::size_t unread = 0;
        std::size_t unread_pieces = 0;
        bool ended = false;
        bool closed = false;
        bool answered = false;
        bool done = false;
    };

    void started(std::int32_t id, osf::h2::Http1Request request, bool too_large) override {
        OSF_FUZZ_CHECK(id > 0 && id % 2 == 1);
        OSF_FUZZ_CHECK(streams.count(id) == 0);
        OSF_FUZZ_CHECK(!too_large || request.head.empty());
        ++open;
        OSF_FUZZ_CHECK(open <= options_.max_streams);
        auto& st = streams[id];
        st.too_large = too_large;
        st.accepted = !too_large && request.problem.empty() && head_accepted(request.head);
        st.request = std::move(request);
    }
    void request_bytes(std::int32_t id, std::string_view bytes) override {
        auto& st = known(id);
        OSF_FUZZ_CHECK(!st.ended && !st.closed && !st.done);
        if (st.accepted) st.bytes.append(bytes);
        st.unread += bytes.size();
        ++st.unread_pieces;
    }
    void request_end(std::int32_t id) override {
        auto& st = known(id);
        OSF_FUZZ_CHECK(!st.ended && !st.closed && !st.done);
        st.ended = true;
        if (st.accepted) OSF_FUZZ_CHECK(one_whole_request(st.request.head, st.bytes));
        std::string().swap(st.bytes);
    }
    void answer_room(std::int32_t id) override { known(id); }
    void stream_closed(std::int32_t id) override {
        auto& st = known(id);
        OSF_FUZZ_CHECK(!st.closed && !st.done);
        st.closed = true;
    }

    // What the request paths do between two reads of the connection.
    void act(ServerCodec& codec, bool read_now) {
        for (auto& [id, st] : streams) {
            if (st.done) continue;
            if (st.unread > 0) check_window(st);
            if (read_now && st.unread > 0 && !st.closed) {
                codec.consumed(id, st.unread);
                st.unread = 0;
                st.unread_pieces = 0;
            }
            if (!st.answered && !st.closed && (options_.answer_at_start || st.ended))
                answer(codec, id, st);
            if (st.closed || (st.ended && st.answered)) {
                codec.request_done(id);
                st.done = true;
                --open;
            }
        }
        std::size_t waiting = 0;
        std::size_t framing = 0;
        for (const auto& [id, st] : streams) {
            if (st.closed) continue;
            waiting += st.unread;
            framing += framing_of(st);
        }
        OSF_FUZZ_CHECK(waiting <= static_cast<std::size_t>(osf::h2::connection_window) + framing);
    }

    // The connection ends: request paths still running are cut.
    void finish(ServerCodec& codec) {
        for (auto& [id, st] : streams) {
            if (st.done) continue;
            if (!st.answered) codec.reset(id, NGHTTP2_INTERNAL_ERROR);
            codec.request_done(id);
            st.done = true;
            --open;
        }
    }

    Stream& known(std::int32_t id) {
        auto it = streams.find(id);
        OSF_FUZZ_CHECK(it != streams.end());
        return it->second;
    }

    std::map<std::int32_t, Stream> streams;
    std::size_t open = 0; // started, not done

private:
    // Chunk framing in what waits: a size line and CRLF per piece, and the
    // last chunk with trailer fields (under the header list limit).
    std::size_t framing_of(const Stream& st) const {
        return st.request.chunked ? st.unread_pieces * 20 + options_.max_header_list_bytes + 8 : 0;
    }
    void check_window(const Stream& st) const {
        OSF_FUZZ_CHECK(st.unread <=
                       static_cast<std::size_t>(osf::h2::stream_window) + framing_of(st));
    }

    void answer(ServerCodec& codec, std::int32_t id, Stream& st) {
        st.answered = true;
        if (st.too_large || !st.request.problem.empty() || options_.answer_size == 0) {
            codec.answer_head(id, {{":status", st.too_large ? "431" : "400"}}, true);
            return;
        }
        codec.answer_head(id, {{":status", "200"}, {"content-type", "text/plain"}}, false);
        body_.resize(options_.answer_size, 'a');
        codec.answer_data(id, std::string_view(body_).substr(0, options_.answer_size / 3));
        codec.answer_data(id, std::string_view(body_).substr(options_.answer_size / 3));
        OSF_FUZZ_CHECK(codec.answer_queued(id) <= options_.answer_size);
        if (options_.cut_some && id % 4 == 3) {
            codec.reset(id, NGHTTP2_INTERNAL_ERROR);
            return;
        }
        if (options_.trailers)
            codec.answer_end(id, {{"x-trailer", "1"}});
        else
            codec.answer_end(id, {});
    }

    Options options_;
    std::string body_;
};

// What the codec sent, read as frames (a frame may span two drains).
class Output {
public:
    void add(const std::string& bytes) {
        pending_.append(bytes);
        std::size_t at = 0;
        const auto byte = [&](std::size_t i) { return static_cast<std::uint8_t>(pending_[i]); };
        while (pending_.size() - at >= 9) {
            const std::size_t len =
                std::size_t{byte(at)} << 16 | std::size_t{byte(at + 1)} << 8 | byte(at + 2);
            if (pending_.size() - at - 9 < len) break;
            const std::uint8_t type = byte(at + 3);
            if (frames_ == 0) OSF_FUZZ_CHECK(type == NGHTTP2_SETTINGS);
            ++frames_;
            if (type == NGHTTP2_GOAWAY) {
                OSF_FUZZ_CHECK(len >= 8);
                const std::int32_t last =
                    static_cast<std::int32_t>((std::uint32_t{byte(at + 9)} & 0x7f) << 24 |
                                              std::uint32_t{byte(at + 10)} << 16 |
                                              std::uint32_t{byte(at + 11)} << 8 | byte(at + 12));
                lowest_goaway = std::min(lowest_goaway, last);
            }
            at += 9 + len;
        }
        pending_.erase(0, at);
    }
    bool whole() const { return pending_.empty(); }

    std::int32_t lowest_goaway = std::numeric_limits<std::int32_t>::max();

private:
    std::string pending_;
    std::size_t frames_ = 0;
};

void drain(ServerCodec& codec, Output& output) {
    std::string out;
    codec.send(out, std::numeric_limits<std::size_t>::max());
    output.add(out);
}

void check(const Owner& owner, const ServerCodec& codec, const Options& options,
           const Output& output) {
    OSF_FUZZ_CHECK(codec.in_flight() == owner.open);
    OSF_FUZZ_CHECK(owner.open <= options.max_streams);
    std::size_t queued = 0;
    for (const auto& [id, st] : owner.streams) {
        const auto q = codec.answer_queued(id);
        OSF_FUZZ_CHECK(q <= options.answer_size);
        queued += q;
        // A client told "streams above N were not processed" may send this one
        // again elsewhere: it must not have been started.
        OSF_FUZZ_CHECK(id <= output.lowest_goaway);
    }
    OSF_FUZZ_CHECK(queued <= options.max_streams * options.answer_size);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < option_bytes) return 0;
    Options options{};
    options.max_streams = 1 + (data[0] & 3);
    options.answer_at_start = data[0] & 4;
    options.lazy_reads = data[0] & 8;
    options.trailers = data[0] & 16;
    options.cut_some = data[0] & 32;
    options.shutdown_early = data[0] & 64;
    options.max_header_list_bytes = (data[0] & 128) ? 1024 : 65536;
    options.answer_size = answer_sizes[data[1] & 3];
    const std::uint8_t* wire = data + option_bytes;
    const std::size_t n = size - option_bytes;
    std::size_t cuts[] = {n * data[2] / 256, n * data[3] / 256};
    std::sort(std::begin(cuts), std::end(cuts));
    const std::size_t starts[] = {0, cuts[0], cuts[1]};
    const std::size_t ends[] = {cuts[0], cuts[1], n};

    Owner owner(options);
    Output output;
    {
        ServerCodec codec(owner, {options.max_streams, options.max_header_list_bytes});
        OSF_FUZZ_CHECK(codec.start());
        drain(codec, output);
        bool going = true;
        for (int i = 0; i < 3 && going; ++i) {
            if (i == 1 && options.shutdown_early) codec.shutdown(); // its GOAWAY goes out below
            going = codec.receive(wire + starts[i], ends[i] - starts[i]);
            drain(codec, output);
            check(owner, codec, options, output);
            owner.act(codec, !options.lazy_reads || i % 2 == 1);
            drain(codec, output);
            check(owner, codec, options, output);
        }
        if (going) {
            codec.shutdown();
            drain(codec, output);
        }
        owner.finish(codec);
        drain(codec, output);
        check(owner, codec, options, output);
        OSF_FUZZ_CHECK(codec.in_flight() == 0);
        OSF_FUZZ_CHECK(output.whole());
    }
    return 0;
}
