// The HTTP/2 connection with a client: nghttp2's session fed from the TLS
// stream by one loop and drained into it by another; each request stream runs
// handle_request() on an H2StreamChannel. Request bytes go to the channel as
// an HTTP/1.1 head (h2/message_mapping.hpp) and body; the answer the request
// path writes is parsed back (Beast) into HEADERS, DATA and trailers.
//
// Memory per connection is bounded by windows, not by what a peer sends: a
// stream's request bytes wait in its channel only up to the stream's window
// (the window opens again as the request path reads them), all streams'
// together up to the connection's window, and an answer's bytes up to
// answer_queue_bytes before the request path's write waits for the client.
#include "net/h2_session.hpp"

#include "h2/message_mapping.hpp"
#include "net/body_relay.hpp"
#include "net/exchange.hpp"
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
#include <vector>

namespace osf::net {

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using RequestHead = http::request_parser<http::empty_body>;

// A stream's window: request bytes it may have waiting in the proxy. The
// connection's window bounds them all together.
constexpr std::int32_t stream_window = 64 * 1024;
constexpr std::int32_t connection_window = 1024 * 1024;
// Answer bytes parsed and waiting for the client's window, per stream.
constexpr std::size_t answer_queue_bytes = 64 * 1024;
// One read from the TLS stream, and the most gathered into one write.
constexpr std::size_t read_bytes = 16 * 1024;
constexpr std::size_t write_gather_bytes = 64 * 1024;

class Connection;

// One request stream: what arrived of its request, its channel, and its answer
// on the way back.
struct Stream final : H2StreamChannel::Peer {
    Stream(Connection& c, std::int32_t stream_id, asio::any_io_executor executor)
        : conn(c), id(stream_id), channel(executor, *this) {}

    void request_read(std::size_t n) override;
    std::size_t take_answer(std::string_view bytes) override;

    Connection& conn;
    std::int32_t id;
    H2StreamChannel channel;
    beast::flat_buffer buffer; // the request path's read buffer (the head is parsed already)

    // The request.
    h2::HeaderList fields;
    std::size_t header_list_bytes = 0; // as SETTINGS_MAX_HEADER_LIST_SIZE counts
    bool too_large = false;
    bool started = false;       // its header block is complete, handle_request runs
    bool chunked = false;       // its body goes to the request path as chunks
    bool refused = false;       // over the streams at once: reset, never started
    std::size_t unconsumed = 0; // DATA payload the request path has not read yet
    h2::HeaderList trailers;

    // The answer.
    beast::flat_buffer answer_in; // written by the request path, not parsed yet
    std::optional<http::response_parser<http::buffer_body>> parser;
    bool head_request = false;
    bool head_parsed = false; // the answer's head is in `parser`
    bool head_sent = false;   // and submitted to nghttp2
    bool answer_complete = false;
    bool deferred = false;
    std::size_t head_fields = 0; // fields of the head; later ones are trailers
    std::string body;
    std::size_t body_pos = 0;
    h2::HeaderList answer_trailers;

    bool handler_done = false;
    bool closed = false; // nghttp2 has closed the stream

    std::size_t body_waiting() const { return body.size() - body_pos; }
};

class Connection {
public:
    Connection(ClientSession<TlsStream>& s) : s_(s), wake_(s.stream.get_executor()) {
        conn_ = s.conn;
        conn_.http2 = true;
    }
    ~Connection() {
        if (session_) nghttp2_session_del(session_);
    }
    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;

    bool start();
    asio::awaitable<void> run();
    std::size_t handled() const { return handled_; }

    nghttp2_session* session() { return session_; }
    void want_send() { wake_.cancel(); }
    void answer_ready(Stream& st);

private:
    friend struct Stream;
    asio::awaitable<void> read_loop();
    asio::awaitable<void> write_loop();
    asio::awaitable<void> run_stream(std::shared_ptr<Stream> st, h2::Http1Request request);
    void start_stream(Stream& st, bool end_stream);
    void end_answer(Stream& st);
    Stream* find(std::int32_t id) {
        auto it = streams_.find(id);
        return it == streams_.end() ? nullptr : it->second.get();
    }

    static int on_begin_headers(nghttp2_session*, const nghttp2_frame* frame, void* user);
    static int on_header(nghttp2_session*, const nghttp2_frame* frame, const std::uint8_t* name,
                         std::size_t namelen, const std::uint8_t* value, std::size_t valuelen,
                         std::uint8_t flags, void* user);
    static int on_frame_recv(nghttp2_session*, const nghttp2_frame* frame, void* user);
    static int on_data_chunk(nghttp2_session*, std::uint8_t flags, std::int32_t stream_id,
                             const std::uint8_t* data, std::size_t len, void* user);
    static int on_frame_send(nghttp2_session*, const nghttp2_frame* frame, void* user);
    static int on_stream_close(nghttp2_session*, std::int32_t stream_id, std::uint32_t error_code,
                               void* user);
    static ssize_t read_answer(nghttp2_session*, std::int32_t stream_id, std::uint8_t* buf,
                               std::size_t length, std::uint32_t* data_flags,
                               nghttp2_data_source* source, void* user);

    ClientSession<TlsStream>& s_;
    ConnectionInfo conn_; // the client's, marked HTTP/2 for the log lines
    nghttp2_session* session_ = nullptr;
    asio::steady_timer wake_; // the writer waits on it; want_send() cancels the wait
    std::map<std::int32_t, std::shared_ptr<Stream>> streams_;
    std::size_t running_ = 0; // handle_request()s not finished, reset streams' included
    std::size_t handled_ = 0;
    bool reading_done_ = false;
    bool writing_done_ = false;
    bool goaway_sent_ = false;
    asio::steady_timer stream_ended_{s_.stream.get_executor()};
};

// ---- the request path's side of a stream ----

void Stream::request_read(std::size_t n) {
    // Chunk framing is read too: the payload's window opens by what was read,
    // at most what is waiting, so the window never opens early by more than
    // the framing of what is in the channel.
    const std::size_t credit = std::min(n, unconsumed);
    if (credit == 0 || closed) return;
    unconsumed -= credit;
    nghttp2_session_consume(conn.session(), id, credit);
    conn.want_send();
}

std::size_t Stream::take_answer(std::string_view bytes) {
    if (body_waiting() >= answer_queue_bytes) return 0;
    answer_in.commit(asio::buffer_copy(answer_in.prepare(bytes.size()), asio::buffer(bytes)));
    thread_local char scratch[16 * 1024];
    const auto& limits = conn.s_.ctx.config.limits();
    for (;;) {
        if (answer_complete) { // nothing may follow an answer: dropped
            answer_in.consume(answer_in.size());
            break;
        }
        if (!parser) {
            parser.emplace();
            parser->header_limit(static_cast<std::uint32_t>(2 * limits.max_header_bytes));
            parser->body_limit(boost::none);
            if (head_request) parser->skip(true);
        }
        parser->get().body().data = scratch;
        parser->get().body().size = sizeof scratch;
        beast::error_code ec;
        const std::size_t used = parser->put(answer_in.data(), ec);
        answer_in.consume(used);
        const std::size_t produced = sizeof scratch - parser->get().body().size;
        body.append(scratch, produced);
        if (ec && ec != http::error::need_more && ec != http::error::need_buffer) {
            // The request path writes what Beast parses; anything else is a bug.
            spdlog::warn("connection {}: HTTP/2 stream {}: the answer did not parse: {}",
                         conn.conn_.id, id, ec.message());
            answer_in.consume(answer_in.size());
            nghttp2_submit_rst_stream(conn.session(), NGHTTP2_FLAG_NONE, id,
                                      NGHTTP2_INTERNAL_ERROR);
            conn.want_send();
            return bytes.size();
        }
        if (parser->is_header_done() && !head_parsed) {
            if (parser->get().result_int() / 100 == 1) { // interim: not forwarded
                parser.reset();
                continue;
            }
            head_fields = static_cast<std::size_t>(
                std::distance(parser->get().base().begin(), parser->get().base().end()));
            head_parsed = true;
            conn.answer_ready(*this);
        }
        if (parser->is_done() && !answer_complete) {
            answer_complete = true;
            answer_trailers = h2::to_h2_fields(parser->get().base(), head_fields);
            conn.answer_ready(*this);
            continue;
        }
        if (produced > 0 && head_parsed) conn.answer_ready(*this);
        if (ec == http::error::need_more || (used == 0 && produced == 0)) break;
    }
    return bytes.size();
}

// ---- the connection ----

std::vector<nghttp2_nv> to_nv(const h2::HeaderList& fields) {
    std::vector<nghttp2_nv> nv;
    nv.reserve(fields.size());
    for (const auto& f : fields)
        nv.push_back({reinterpret_cast<std::uint8_t*>(const_cast<char*>(f.name.data())),
                      reinterpret_cast<std::uint8_t*>(const_cast<char*>(f.value.data())),
                      f.name.size(), f.value.size(), NGHTTP2_NV_FLAG_NONE});
    return nv;
}

void Connection::answer_ready(Stream& st) {
    if (st.closed) return;
    if (st.head_parsed && !st.head_sent) {
        st.head_sent = true;
        const auto fields = h2::to_h2_answer(st.parser->get().base());
        const auto nv = to_nv(fields); // points into `fields`, which nghttp2 copies
        const bool bodiless =
            st.answer_complete && st.body_waiting() == 0 && st.answer_trailers.empty();
        nghttp2_data_provider provider{};
        provider.source.ptr = &st;
        provider.read_callback = &Connection::read_answer;
        nghttp2_submit_response(session_, st.id, nv.data(), nv.size(),
                                bodiless ? nullptr : &provider);
    } else if (st.deferred) {
        st.deferred = false;
        nghttp2_session_resume_data(session_, st.id);
    }
    want_send();
}

ssize_t Connection::read_answer(nghttp2_session*, std::int32_t, std::uint8_t* buf,
                                std::size_t length, std::uint32_t* data_flags,
                                nghttp2_data_source* source, void*) {
    auto& st = *static_cast<Stream*>(source->ptr);
    const std::size_t n = std::min(length, st.body_waiting());
    std::memcpy(buf, st.body.data() + st.body_pos, n);
    st.body_pos += n;
    if (st.body_pos == st.body.size()) {
        st.body.clear();
        st.body_pos = 0;
    }
    if (n > 0) st.channel.answer_room();
    if (st.body_waiting() == 0 && st.answer_complete) {
        *data_flags |= NGHTTP2_DATA_FLAG_EOF;
        if (!st.answer_trailers.empty()) {
            *data_flags |= NGHTTP2_DATA_FLAG_NO_END_STREAM;
            const auto nv = to_nv(st.answer_trailers);
            nghttp2_submit_trailer(st.conn.session(), st.id, nv.data(), nv.size());
        }
        return static_cast<ssize_t>(n);
    }
    if (n == 0) {
        st.deferred = true;
        return NGHTTP2_ERR_DEFERRED;
    }
    return static_cast<ssize_t>(n);
}

int Connection::on_begin_headers(nghttp2_session*, const nghttp2_frame* frame, void* user) {
    auto& c = *static_cast<Connection*>(user);
    if (frame->hd.type != NGHTTP2_HEADERS || frame->headers.cat != NGHTTP2_HCAT_REQUEST) return 0;
    auto st = std::make_shared<Stream>(c, frame->hd.stream_id, c.s_.stream.get_executor());
    // Streams whose request path still runs count, reset ones too: resetting a
    // stream does not stop the work it started ("rapid reset").
    st->refused = c.running_ >= c.s_.ctx.config.limits().h2_max_streams;
    c.streams_.emplace(frame->hd.stream_id, std::move(st));
    return 0;
}

int Connection::on_header(nghttp2_session*, const nghttp2_frame* frame, const std::uint8_t* name,
                          std::size_t namelen, const std::uint8_t* value, std::size_t valuelen,
                          std::uint8_t, void* user) {
    auto& c = *static_cast<Connection*>(user);
    if (frame->hd.type != NGHTTP2_HEADERS) return 0;
    Stream* st = c.find(frame->hd.stream_id);
    if (!st || st->refused) return 0;
    // RFC 9113 6.5.2: a field counts its name, its value and 32 bytes. Past the
    // limit nothing more is kept: an HPACK bomb costs time, not memory.
    st->header_list_bytes += namelen + valuelen + 32;
    if (st->header_list_bytes > c.s_.ctx.config.limits().max_header_bytes) {
        st->too_large = true;
        st->fields.clear();
        st->trailers.clear();
        return 0;
    }
    auto& list = st->started ? st->trailers : st->fields;
    list.push_back({std::string(reinterpret_cast<const char*>(name), namelen),
                    std::string(reinterpret_cast<const char*>(value), valuelen)});
    return 0;
}

int Connection::on_frame_recv(nghttp2_session*, const nghttp2_frame* frame, void* user) {
    auto& c = *static_cast<Connection*>(user);
    Stream* st = c.find(frame->hd.stream_id);
    if (!st) return 0;
    const bool end_stream = frame->hd.flags & NGHTTP2_FLAG_END_STREAM;
    if (frame->hd.type == NGHTTP2_HEADERS && frame->headers.cat == NGHTTP2_HCAT_REQUEST) {
        if (st->refused) {
            nghttp2_submit_rst_stream(c.session_, NGHTTP2_FLAG_NONE, st->id,
                                      NGHTTP2_REFUSED_STREAM);
            return 0;
        }
        c.start_stream(*st, end_stream);
        return 0;
    }
    if (!st->started || st->handler_done || !end_stream) return 0;
    // The request's end: after its DATA, or trailer fields (a HEADERS that ends the stream).
    if (st->chunked) {
        std::string last;
        h2::append_last_chunk(st->too_large ? h2::HeaderList{} : st->trailers, last);
        st->channel.push_request(last);
    }
    st->trailers.clear();
    st->channel.end_request();
    return 0;
}

int Connection::on_data_chunk(nghttp2_session* session, std::uint8_t, std::int32_t stream_id,
                              const std::uint8_t* data, std::size_t len, void* user) {
    auto& c = *static_cast<Connection*>(user);
    Stream* st = c.find(stream_id);
    if (!st || !st->started || st->handler_done) {
        // Nobody will read it: the windows open again at once.
        nghttp2_session_consume(session, stream_id, len);
        return 0;
    }
    const std::string_view bytes(reinterpret_cast<const char*>(data), len);
    if (st->chunked) {
        std::string piece;
        piece.reserve(len + 16);
        h2::append_chunk(bytes, piece);
        st->channel.push_request(piece);
    } else {
        st->channel.push_request(bytes);
    }
    st->unconsumed += len;
    return 0;
}

int Connection::on_frame_send(nghttp2_session* session, const nghttp2_frame* frame, void*) {
    // The answer is complete while the client is still sending: the rest of its
    // request is not wanted (RFC 9113 8.1).
    if ((frame->hd.type == NGHTTP2_HEADERS || frame->hd.type == NGHTTP2_DATA) &&
        (frame->hd.flags & NGHTTP2_FLAG_END_STREAM) &&
        nghttp2_session_get_stream_remote_close(session, frame->hd.stream_id) == 0)
        nghttp2_submit_rst_stream(session, NGHTTP2_FLAG_NONE, frame->hd.stream_id,
                                  NGHTTP2_NO_ERROR);
    return 0;
}

int Connection::on_stream_close(nghttp2_session*, std::int32_t stream_id, std::uint32_t,
                                void* user) {
    auto& c = *static_cast<Connection*>(user);
    auto it = c.streams_.find(stream_id);
    if (it == c.streams_.end()) return 0;
    auto& st = *it->second;
    st.closed = true;
    if (!st.handler_done) st.channel.reset(); // the client reset it: the request path stops
    c.streams_.erase(it);
    return 0;
}

void Connection::start_stream(Stream& st, bool end_stream) {
    st.started = true;
    auto request = h2::to_http1_request(st.fields, end_stream);
    st.fields.clear();
    st.fields.shrink_to_fit();
    st.chunked = request.chunked;
    st.head_request = request.method == "HEAD";
    if (end_stream) st.channel.end_request();
    ++running_;
    ++handled_;
    asio::co_spawn(s_.stream.get_executor(), run_stream(streams_.at(st.id), std::move(request)),
                   [id = conn_.id](std::exception_ptr e) {
                       if (!e) return;
                       try {
                           std::rethrow_exception(e);
                       } catch (const std::exception& ex) {
                           spdlog::warn("connection {}: an HTTP/2 stream failed: {}", id,
                                        ex.what());
                       }
                   });
}

asio::awaitable<void> Connection::run_stream(std::shared_ptr<Stream> st, h2::Http1Request request) {
    auto& ctx = s_.ctx;
    struct Done { // however the request path ends
        Connection& c;
        Stream& st;
        ~Done() {
            st.handler_done = true;
            --c.running_;
            c.end_answer(st);
            c.stream_ended_.cancel();
        }
    } done{*this, *st};
    ClientSession<H2StreamChannel> session{
        ctx, s_.worker, st->channel, st->buffer, s_.registration, s_.tunnel, conn_};
    // A request that cannot go on is answered and logged as on HTTP/1.1.
    std::optional<std::pair<http::status, RefusalReason>> refusal;
    std::string detail;
    RequestHead head;
    head.header_limit(static_cast<std::uint32_t>(ctx.config.limits().max_header_bytes));
    head.body_limit(boost::none);
    if (st->too_large) {
        refusal = {http::status::request_header_fields_too_large, RefusalReason::limit};
        detail = "a request header list over " +
                 std::to_string(ctx.config.limits().max_header_bytes) + " bytes";
    } else if (!request.problem.empty()) {
        refusal = {http::status::bad_request, RefusalReason::bad_request};
        detail = "malformed HTTP/2 request: " + request.problem;
    } else {
        beast::error_code ec;
        head.put(asio::buffer(request.head), ec);
        if (ec || !head.is_header_done()) {
            const bool big = ec == http::error::header_limit;
            refusal = {big ? http::status::request_header_fields_too_large
                           : http::status::bad_request,
                       big ? RefusalReason::limit : RefusalReason::bad_request};
            detail = "malformed request: " + (ec ? ec.message() : std::string("incomplete head"));
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
    request.head.clear();
    request.head.shrink_to_fit();
    co_await handle_request(session, head);
}

void Connection::end_answer(Stream& st) {
    if (st.unconsumed > 0 && !st.closed) {
        nghttp2_session_consume(session_, st.id, st.unconsumed);
        st.unconsumed = 0;
    }
    if (st.closed) return;
    if (!st.answer_complete) {
        // The request path stopped before a whole answer: the client must not
        // take a part for the whole.
        nghttp2_submit_rst_stream(session_, NGHTTP2_FLAG_NONE, st.id, NGHTTP2_INTERNAL_ERROR);
    } else if (st.deferred) {
        st.deferred = false;
        nghttp2_session_resume_data(session_, st.id);
    }
    want_send();
}

bool Connection::start() {
    nghttp2_session_callbacks* callbacks = nullptr;
    if (nghttp2_session_callbacks_new(&callbacks) != 0) return false;
    nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, &on_begin_headers);
    nghttp2_session_callbacks_set_on_header_callback(callbacks, &on_header);
    nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, &on_frame_recv);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, &on_data_chunk);
    nghttp2_session_callbacks_set_on_frame_send_callback(callbacks, &on_frame_send);
    nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, &on_stream_close);
    nghttp2_option* option = nullptr;
    if (nghttp2_option_new(&option) != 0) {
        nghttp2_session_callbacks_del(callbacks);
        return false;
    }
    // The windows open as the request path reads, not as bytes arrive.
    nghttp2_option_set_no_auto_window_update(option, 1);
    // Closed streams are not kept for RFC 7540 priorities (memory per stream).
    nghttp2_option_set_no_closed_streams(option, 1);
    const int rv = nghttp2_session_server_new2(&session_, callbacks, this, option);
    nghttp2_option_del(option);
    nghttp2_session_callbacks_del(callbacks);
    if (rv != 0) return false;
    const auto& limits = s_.ctx.config.limits();
    const nghttp2_settings_entry settings[] = {
        {NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, limits.h2_max_streams},
        {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, static_cast<std::uint32_t>(stream_window)},
        {NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE,
         static_cast<std::uint32_t>(limits.max_header_bytes)},
        {NGHTTP2_SETTINGS_NO_RFC7540_PRIORITIES, 1},
    };
    if (nghttp2_submit_settings(session_, NGHTTP2_FLAG_NONE, settings, std::size(settings)) != 0)
        return false;
    return nghttp2_session_set_local_window_size(session_, NGHTTP2_FLAG_NONE, 0,
                                                 connection_window) == 0;
}

asio::awaitable<void> Connection::read_loop() {
    auto& tls = s_.stream;
    const auto& limits = s_.ctx.config.limits();
    std::unique_ptr<std::uint8_t[]> buf(new std::uint8_t[read_bytes]);
    bool first = true;
    while (!writing_done_) {
        if (s_.ctx.draining.load() && !goaway_sent_) {
            goaway_sent_ = true; // streams begun finish; no new ones
            nghttp2_submit_goaway(session_, NGHTTP2_FLAG_NONE,
                                  nghttp2_session_get_last_proc_stream_id(session_),
                                  NGHTTP2_NO_ERROR, nullptr, 0);
            want_send();
        }
        if (!nghttp2_session_want_read(session_)) break;
        s_.registration.set_idle(running_ == 0);
        tls.expires_after(first ? limits.header_timeout : limits.idle_timeout);
        auto [ec, n] = co_await tls.async_read_some(asio::buffer(buf.get(), read_bytes), use_tuple);
        s_.registration.set_idle(false);
        if (ec == beast::error::timeout && running_ > 0) continue; // answers still stream
        if (ec) break;
        first = false;
        const auto used = nghttp2_session_mem_recv(session_, buf.get(), n);
        want_send();
        if (used < 0) {
            spdlog::debug("connection {}: HTTP/2: {}", conn_.id,
                          nghttp2_strerror(static_cast<int>(used)));
            break; // nghttp2 has queued its GOAWAY for the writer
        }
    }
    reading_done_ = true;
    want_send();
}

asio::awaitable<void> Connection::write_loop() {
    auto& tls = s_.stream;
    std::string out;
    for (;;) {
        out.clear();
        while (out.size() < write_gather_bytes) {
            const std::uint8_t* data = nullptr;
            const auto n = nghttp2_session_mem_send(session_, &data);
            if (n <= 0) break;
            out.append(reinterpret_cast<const char*>(data), static_cast<std::size_t>(n));
        }
        if (!out.empty()) {
            tls.expires_after(s_.ctx.config.limits().idle_timeout);
            auto [ec, n] = co_await asio::async_write(tls, asio::buffer(out), use_tuple);
            if (ec) break;
            continue;
        }
        if (reading_done_ ||
            (!nghttp2_session_want_read(session_) && !nghttp2_session_want_write(session_)))
            break;
        wake_.expires_at(std::chrono::steady_clock::time_point::max());
        co_await wake_.async_wait(use_tuple);
    }
    writing_done_ = true;
    // The reader may be waiting for the client: it has nothing more to do.
    beast::error_code ignored;
    tls.socket().cancel(ignored);
}

asio::awaitable<void> Connection::run() {
    using namespace asio::experimental::awaitable_operators;
    co_await (read_loop() && write_loop());
    // The connection is over: streams still running stop, and are waited for
    // (they hold references to this connection).
    for (auto& [id, st] : streams_) {
        st->closed = true;
        st->channel.reset();
    }
    streams_.clear();
    while (running_ > 0) {
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
