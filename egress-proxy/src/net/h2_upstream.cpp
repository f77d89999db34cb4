#include "net/h2_upstream.hpp"

#include "h2/origin_error.hpp"
#include "net/h2_connection_io.hpp"
#include "net/use_tuple.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/http/error.hpp>
#include <nghttp2/nghttp2.h>
#include <spdlog/spdlog.h>

namespace osf::net {

namespace asio = boost::asio;
namespace beast = boost::beast;

namespace {
// Request bytes waiting for the origin's window, per stream, before forward()'s write waits.
constexpr std::size_t request_queue_bytes = 64 * 1024;
} // namespace

H2UpstreamConnection::H2UpstreamConnection(std::string key, TlsStream& tls,
                                           std::shared_ptr<const void> holder,
                                           std::function<void(const H2UpstreamConnection*)> on_over,
                                           std::chrono::seconds idle_age,
                                           const config::Limits& limits)
    : key_(std::move(key)), tls_(tls), holder_(std::move(holder)), on_over_(std::move(on_over)),
      idle_age_(idle_age), limits_(limits), codec_(*this, limits.max_header_bytes),
      wake_(tls_.socket().get_executor()) {}

H2UpstreamConnection::~H2UpstreamConnection() = default;

bool H2UpstreamConnection::launch() {
    if (!codec_.start()) return false;
    auto self = shared_from_this();
    asio::co_spawn(tls_.socket().get_executor(), run(self), asio::detached);
    return true;
}

asio::awaitable<void> H2UpstreamConnection::run(std::shared_ptr<H2UpstreamConnection> self) {
    using namespace asio::experimental::awaitable_operators;
    co_await (read_loop() && write_loop());
    over_ = true;
    // Streams still open end: their exchanges see the connection reset, or
    // the origin's fault when that is why the proxy ended it.
    const auto end =
        codec_.ended_for_origin_fault() ? h2::StreamEnd::origin_fault : h2::StreamEnd::reset;
    auto streams = streams_;
    for (auto& [id, stream] : streams)
        stream->on_closed(end);
    on_over_(self.get());
}

asio::awaitable<void> H2UpstreamConnection::read_loop() {
    auto& stream = tls();
    std::unique_ptr<std::uint8_t[]> buf(new std::uint8_t[h2_read_bytes]);
    while (!writing_done_ && codec_.want_read()) {
        // Idle, the connection waits as a pooled one does; busy, answers may
        // be slow (each exchange has its own timeouts).
        stream.expires_after(streams_.empty() ? idle_age_ : limits_.idle_timeout);
        auto [ec, n] =
            co_await stream.async_read_some(asio::buffer(buf.get(), h2_read_bytes), use_tuple);
        if (ec == beast::error::timeout && !streams_.empty()) continue;
        if (ec) break;
        const bool more = codec_.receive(buf.get(), n);
        want_send();
        if (!more) break;
    }
    over_ = true;
    reading_done_ = true;
    want_send();
}

asio::awaitable<void> H2UpstreamConnection::write_loop() {
    co_await write_h2_output(tls(), codec_, wake_, reading_done_, limits_.idle_timeout);
    over_ = true;
    writing_done_ = true;
    beast::error_code ignored;
    tls().socket().cancel(ignored);
}

void H2UpstreamConnection::answer_head(std::int32_t id, const h2::HeaderList& fields) {
    if (auto* s = find(id)) s->on_answer_head(fields);
}
void H2UpstreamConnection::answer_data(std::int32_t id, std::string_view bytes) {
    if (auto* s = find(id)) s->on_answer_data(bytes);
}
void H2UpstreamConnection::answer_end(std::int32_t id, h2::HeaderList trailers) {
    if (auto* s = find(id)) s->on_answer_end(trailers);
}
void H2UpstreamConnection::request_room(std::int32_t id) {
    if (auto* s = find(id)) s->on_request_room();
}
void H2UpstreamConnection::closed(std::int32_t id, h2::StreamEnd end) {
    if (auto* s = find(id)) s->on_closed(end);
}

H2UpstreamStream::H2UpstreamStream(std::shared_ptr<H2UpstreamConnection> connection,
                                   std::size_t max_header_bytes)
    : connection_(std::move(connection)),
      channel_(connection_->tls().socket().get_executor(), *this), reader_(2 * max_header_bytes) {}

H2UpstreamStream::~H2UpstreamStream() {
    if (!attached_) return;
    connection_->detach(id_);
    connection_->codec().cancel(id_);
    connection_->want_send();
}

void H2UpstreamStream::abandon() {
    if (attached_) {
        connection_->detach(id_);
        connection_->codec().cancel(id_);
        connection_->want_send();
        attached_ = false;
    }
    channel_.reset(asio::error::connection_reset);
}

boost::asio::ip::tcp::socket& H2UpstreamStream::socket() {
    return connection_->tls().socket();
}

std::size_t H2UpstreamStream::take(std::span<const std::string_view> written) {
    auto& codec = connection_->codec();
    if (attached_ && codec.request_queued(id_) >= request_queue_bytes) return 0;
    // One write's pieces read together: a request without a body goes as one
    // HEADERS with END_STREAM.
    h2::RequestReader::Pieces pieces;
    std::size_t taken = 0;
    for (const auto piece : written) {
        reader_.feed(piece, pieces);
        taken += piece.size();
    }
    if (pieces.error) { // forward() writes what Beast reads: a bug if not
        channel_.reset(beast::http::error::bad_target);
        return taken;
    }
    if (pieces.head) {
        head_request_ = pieces.head_request;
        const bool end_stream = pieces.end && pieces.body.empty();
        id_ = codec.submit(*pieces.head, end_stream);
        if (id_ < 0) { // never sent (the connection took no more streams): it may go again
            channel_.reset(h2::OriginError::refused_stream);
            return taken;
        }
        attached_ = true;
        connection_->attach(id_, this);
    }
    if (attached_) {
        codec.request_data(id_, pieces.body);
        if (pieces.end) codec.request_end(id_);
    }
    connection_->want_send();
    return taken;
}

void H2UpstreamStream::read_done(std::size_t n) {
    if (!attached_) return;
    connection_->codec().consumed(id_, n);
    connection_->want_send();
}

void H2UpstreamStream::on_answer_head(const h2::HeaderList& fields) {
    auto answer = h2::to_http1_answer(fields, head_request_);
    if (!answer.problem.empty()) {
        channel_.reset(h2::OriginError::bad_answer_head);
        return;
    }
    answer_chunked_ = answer.chunked;
    channel_.push(answer.head);
}

void H2UpstreamStream::on_answer_data(std::string_view bytes) {
    if (!answer_chunked_) return channel_.push(bytes);
    std::string piece;
    piece.reserve(bytes.size() + 16);
    h2::append_chunk(bytes, piece);
    channel_.push(piece);
}

void H2UpstreamStream::on_answer_end(const h2::HeaderList& trailers) {
    answer_whole_ = true;
    if (answer_chunked_) {
        std::string last;
        h2::append_last_chunk(trailers, last);
        channel_.push(last);
    }
    channel_.end();
}

void H2UpstreamStream::on_closed(h2::StreamEnd end) {
    if (attached_) connection_->detach(id_);
    attached_ = false;
    if (answer_whole_) {
        // The origin answered and closed the stream before the whole request
        // body went (nginx's RST_STREAM NO_ERROR): a write waiting for its
        // window is woken, and take() drops the rest of the body from now on.
        channel_.room();
        return;
    }
    switch (end) {
    case h2::StreamEnd::head_too_large:
        return channel_.reset(beast::http::error::header_limit);
    case h2::StreamEnd::origin_fault:
        return channel_.reset(h2::OriginError::broke_protocol);
    case h2::StreamEnd::refused: // a request with a buffered body goes again
        return channel_.reset(h2::OriginError::refused_stream);
    case h2::StreamEnd::closed:
    case h2::StreamEnd::reset: // the origin may have acted on it: never sent again
        return channel_.reset(asio::error::connection_reset);
    }
}

} // namespace osf::net
