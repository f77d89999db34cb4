// The HTTP/2 connection with a client, as I/O around h2::ServerCodec: one loop
// feeds it from the TLS stream, one writes what it has to send; each request
// stream runs handle_request() on an H2StreamChannel, and the HTTP/1.1 answer
// the request path writes is read back (h2::AnswerReader) into the codec.
#include "net/h2_session.hpp"

#include "h2/answer_reader.hpp"
#include "h2/server_codec.hpp"
#include "net/body_relay.hpp"
#include "net/exchange.hpp"
#include "net/h2_connection_io.hpp"
#include "net/h2_stream_channel.hpp"
#include "net/local_reply.hpp"
#include "net/proxy_runtime.hpp"
#include "net/request_handler.hpp"
#include "net/worker.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/http.hpp>
#include <map>
#include <memory>
#include <nghttp2/nghttp2.h>
#include <optional>
#include <spdlog/spdlog.h>
#include <string>

namespace osf::net {

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using RequestHead = http::request_parser<http::empty_body>;

// Answer bytes waiting for the client's window, per stream, before the request
// path's write waits.
constexpr std::size_t answer_queue_bytes = 64 * 1024;

class Connection;

// One request stream as the request path has it.
struct Stream final : H2StreamChannel::Peer {
    Stream(Connection& c, std::int32_t stream_id, asio::any_io_executor executor, bool head_request,
           std::size_t max_header_bytes)
        : conn(c), id(stream_id), channel(executor, *this),
          reader(head_request, 2 * max_header_bytes) {}

    void read_done(std::size_t n) override;
    std::size_t take(std::span<const std::string_view> pieces) override;

    Connection& conn;
    std::int32_t id;
    H2StreamChannel channel;
    beast::flat_buffer buffer; // the request path's read buffer (its head is parsed already)
    h2::AnswerReader reader;
};

class Connection final : public h2::ServerCodec::Events {
public:
    explicit Connection(ClientSession<TlsStream>& s)
        : s_(s), conn_(s.conn), codec_(*this, {s.ctx.config.limits().h2_max_streams,
                                               s.ctx.config.limits().max_header_bytes}),
          wake_(s.stream.get_executor()), stream_ended_(s.stream.get_executor()) {
        conn_.http2 = true;
    }

    bool start() { return codec_.start(); }
    asio::awaitable<void> run();
    std::size_t handled() const { return handled_; }

    h2::ServerCodec& codec() { return codec_; }
    const ConnectionInfo& info() const { return conn_; }
    void want_send() { wake_.cancel(); }

    // h2::ServerCodec::Events
    void started(std::int32_t id, h2::Http1Request request, bool too_large) override;
    void request_bytes(std::int32_t id, std::string_view bytes) override {
        if (auto* st = find(id)) st->channel.push(bytes);
    }
    void request_end(std::int32_t id) override {
        if (auto* st = find(id)) st->channel.end();
    }
    void answer_room(std::int32_t id) override {
        if (auto* st = find(id)) st->channel.room();
    }
    void stream_closed(std::int32_t id) override {
        if (auto* st = find(id)) st->channel.reset();
    }

private:
    asio::awaitable<void> read_loop();
    asio::awaitable<void> write_loop();
    asio::awaitable<void> run_stream(std::shared_ptr<Stream> st, h2::Http1Request request,
                                     bool too_large);
    Stream* find(std::int32_t id) {
        auto it = streams_.find(id);
        return it == streams_.end() ? nullptr : it->second.get();
    }

    ClientSession<TlsStream>& s_;
    ConnectionInfo conn_; // the client's, marked HTTP/2 for the log lines
    h2::ServerCodec codec_;
    asio::steady_timer wake_;         // the writer waits on it; want_send() ends the wait
    asio::steady_timer stream_ended_; // run() waits on it for the streams to end
    std::map<std::int32_t, std::shared_ptr<Stream>> streams_; // request paths running
    std::size_t handled_ = 0;
    bool reading_done_ = false;
    bool writing_done_ = false;
};

void Stream::read_done(std::size_t n) {
    conn.codec().consumed(id, n);
    conn.want_send();
}

std::size_t Stream::take(std::span<const std::string_view> written) {
    auto& codec = conn.codec();
    if (codec.answer_queued(id) >= answer_queue_bytes) return 0;
    // One write's pieces read together: a head and its message's end in one
    // write go out as one HEADERS with END_STREAM (gRPC's "Trailers-Only").
    h2::AnswerReader::Pieces pieces;
    std::size_t taken = 0;
    for (const auto piece : written) {
        reader.feed(piece, pieces);
        taken += piece.size();
    }
    if (pieces.error) { // the request path writes what Beast reads: a bug if not
        spdlog::warn("connection {}: HTTP/2 stream {}: the answer did not parse", conn.info().id,
                     id);
        codec.reset(id, NGHTTP2_INTERNAL_ERROR);
    } else {
        if (pieces.head)
            codec.answer_head(id, *pieces.head,
                              pieces.end && pieces.body.empty() && pieces.end->empty());
        codec.answer_data(id, pieces.body);
        if (pieces.end) codec.answer_end(id, std::move(*pieces.end));
    }
    conn.want_send();
    return taken;
}

void Connection::started(std::int32_t id, h2::Http1Request request, bool too_large) {
    auto st =
        std::make_shared<Stream>(*this, id, s_.stream.get_executor(), request.method == "HEAD",
                                 s_.ctx.config.limits().max_header_bytes);
    streams_[id] = st;
    ++handled_;
    asio::co_spawn(
        s_.stream.get_executor(), run_stream(std::move(st), std::move(request), too_large),
        [id = conn_.id](std::exception_ptr e) {
            if (!e) return;
            try {
                std::rethrow_exception(e);
            } catch (const std::exception& ex) {
                spdlog::warn("connection {}: an HTTP/2 stream failed: {}", id, ex.what());
            }
        });
}

asio::awaitable<void> Connection::run_stream(std::shared_ptr<Stream> st, h2::Http1Request request,
                                             bool too_large) {
    auto& ctx = s_.ctx;
    struct Done { // however the request path ends
        Connection& c;
        Stream& st;
        ~Done() {
            // An answer the request path did not finish is cut: the client must
            // not take a part for the whole.
            if (!st.reader.whole()) c.codec_.reset(st.id, NGHTTP2_INTERNAL_ERROR);
            c.codec_.request_done(st.id);
            c.streams_.erase(st.id);
            if (c.s_.ctx.draining.load()) { // shutting down: no new streams, and
                c.codec_.shutdown();        // the connection ends with its last one
                beast::error_code ignored;
                if (c.streams_.empty()) c.s_.stream.socket().cancel(ignored);
            }
            c.want_send();
            c.stream_ended_.cancel();
        }
    } done{*this, *st};
    // A request that cannot go on is answered and logged as on HTTP/1.1.
    std::optional<std::pair<http::status, RefusalReason>> refusal;
    std::string detail;
    RequestHead head;
    head.header_limit(static_cast<std::uint32_t>(ctx.config.limits().max_header_bytes));
    head.body_limit(boost::none);
    if (too_large) {
        refusal = {http::status::request_header_fields_too_large, RefusalReason::limit};
        detail = "a request header list over " +
                 std::to_string(ctx.config.limits().max_header_bytes) + " bytes";
    } else if (!request.problem.empty()) {
        refusal = {http::status::bad_request, RefusalReason::bad_request};
        detail = "malformed HTTP/2 request: " + request.problem;
    } else {
        beast::error_code ec;
        head.put(asio::buffer(request.head), ec);
        if (ec) {
            auto read = head_read_refusal(ec);
            refusal = {read.status, read.reason};
            detail = std::move(read.detail);
        } else if (!head.is_header_done()) {
            refusal = {http::status::bad_request, RefusalReason::bad_request};
            detail = "malformed request: incomplete head";
        }
    }
    if (refusal) {
        Exchange ex(ctx, conn_, request.method);
        ex.rec.host = s_.tunnel->host;
        ex.rec.port = s_.tunnel->port;
        ex.rec.path = request.path.substr(0, request.path.find('?'));
        co_await refuse(st->channel, ex, refusal->first, refusal->second, detail);
        co_return;
    }
    std::string().swap(request.head);
    ClientSession<H2StreamChannel> session{
        ctx, s_.worker, st->channel, st->buffer, s_.registration, s_.tunnel, conn_};
    co_await handle_request(session, head);
}

asio::awaitable<void> Connection::read_loop() {
    auto& tls = s_.stream;
    const auto& limits = s_.ctx.config.limits();
    std::unique_ptr<std::uint8_t[]> buf(new std::uint8_t[h2_read_bytes]);
    while (!writing_done_ && codec_.want_read()) {
        if (s_.ctx.draining.load()) {
            codec_.shutdown(); // streams begun finish; no new ones
            want_send();
        }
        s_.registration.set_idle(streams_.empty());
        // Until its first request a connection has the time a request head has.
        tls.expires_after(handled_ == 0 ? limits.header_timeout : limits.idle_timeout);
        auto [ec, n] =
            co_await tls.async_read_some(asio::buffer(buf.get(), h2_read_bytes), use_tuple);
        s_.registration.set_idle(false);
        if (ec == beast::error::timeout && !streams_.empty()) continue; // answers still stream
        if (ec) break;
        const bool more = codec_.receive(buf.get(), n);
        want_send();
        if (!more) break; // a GOAWAY may be queued for the writer
    }
    reading_done_ = true;
    want_send();
}

asio::awaitable<void> Connection::write_loop() {
    co_await write_h2_output(s_.stream, codec_, wake_, reading_done_,
                             s_.ctx.config.limits().idle_timeout);
    writing_done_ = true;
    // The reader may be waiting for the client: it has nothing more to do.
    beast::error_code ignored;
    s_.stream.socket().cancel(ignored);
}

asio::awaitable<void> Connection::run() {
    using namespace asio::experimental::awaitable_operators;
    co_await (read_loop() && write_loop());
    // The connection is over: request paths still running stop, and are waited
    // for (they hold references to this connection).
    for (auto& [id, st] : streams_)
        st->channel.reset();
    while (!streams_.empty()) {
        stream_ended_.expires_at(std::chrono::steady_clock::time_point::max());
        co_await stream_ended_.async_wait(use_tuple);
    }
}

} // namespace

asio::awaitable<std::size_t> serve_h2(ClientSession<TlsStream>& session) {
    Connection connection(session);
    if (!connection.start()) {
        spdlog::warn("connection {}: cannot start an HTTP/2 session", session.conn.id);
        co_return 0;
    }
    co_await connection.run();
    co_return connection.handled();
}

} // namespace osf::net
