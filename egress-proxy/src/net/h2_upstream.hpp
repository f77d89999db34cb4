// HTTP/2 to an origin that chose h2 in ALPN: one connection per origin (per
// worker), shared by the requests on it, each on a stream of its own. A
// request's stream is what forward() writes its HTTP/1.1 request to and reads
// the HTTP/1.1 form of the answer from (H2UpstreamStream, through an
// H2StreamChannel), so the request path is the same whatever the origin
// speaks; h2::ClientCodec does the HTTP/2.
#pragma once

#include "config/limits.hpp"
#include "h2/client_codec.hpp"
#include "h2/request_reader.hpp"
#include "net/h2_stream_channel.hpp"
#include "net/tls_stream.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

namespace osf::net {

class H2UpstreamStream;

class H2UpstreamConnection final : public std::enable_shared_from_this<H2UpstreamConnection>,
                                   public h2::ClientCodec::Events {
public:
    // Runs on `tls`, a TLS connection to `key` whose origin chose h2, kept
    // alive by `holder` (the pool's connection it is part of); `on_over` is
    // called once its loops have ended (the pool forgets it). Idle, it waits
    // `idle_age` for an answer or a request, as a pooled connection does.
    H2UpstreamConnection(std::string key, TlsStream& tls, std::shared_ptr<const void> holder,
                         std::function<void(const H2UpstreamConnection*)> on_over,
                         std::chrono::seconds idle_age, const config::Limits& limits);
    ~H2UpstreamConnection();
    H2UpstreamConnection(const H2UpstreamConnection&) = delete;
    H2UpstreamConnection& operator=(const H2UpstreamConnection&) = delete;

    // Starts the session and its loops; false when nghttp2 could not start.
    bool launch();
    // Whether a new request may go on it now.
    bool can_open() const { return !over_ && codec_.can_open(); }
    const std::string& key() const { return key_; }

    h2::ClientCodec& codec() { return codec_; }
    TlsStream& tls() { return tls_; }
    void want_send() { wake_.cancel(); }
    void attach(std::int32_t id, H2UpstreamStream* stream) { streams_[id] = stream; }
    void detach(std::int32_t id) { streams_.erase(id); }

    // h2::ClientCodec::Events
    void answer_head(std::int32_t id, const h2::HeaderList& fields) override;
    void answer_data(std::int32_t id, std::string_view bytes) override;
    void answer_end(std::int32_t id, h2::HeaderList trailers) override;
    void request_room(std::int32_t id) override;
    void closed(std::int32_t id, h2::StreamEnd end) override;

private:
    boost::asio::awaitable<void> run(std::shared_ptr<H2UpstreamConnection> self);
    boost::asio::awaitable<void> read_loop();
    boost::asio::awaitable<void> write_loop();
    H2UpstreamStream* find(std::int32_t id) {
        auto it = streams_.find(id);
        return it == streams_.end() ? nullptr : it->second;
    }

    std::string key_;
    TlsStream& tls_;
    std::shared_ptr<const void> holder_;
    std::function<void(const H2UpstreamConnection*)> on_over_;
    std::chrono::seconds idle_age_;
    const config::Limits& limits_;
    h2::ClientCodec codec_;
    boost::asio::steady_timer wake_;
    std::map<std::int32_t, H2UpstreamStream*> streams_;
    bool over_ = false; // no new requests: the loops have ended or are ending
    bool reading_done_ = false;
    bool writing_done_ = false;
};

// One request on an HTTP/2 connection to an origin: forward()'s upstream stream.
class H2UpstreamStream : H2StreamChannel::Peer {
public:
    using executor_type = H2StreamChannel::executor_type;

    H2UpstreamStream(std::shared_ptr<H2UpstreamConnection> connection,
                     std::size_t max_header_bytes);
    // A stream not finished is cancelled. Virtual: Asio derives from a stream
    // type to inspect it, so the class cannot be final.
    virtual ~H2UpstreamStream();
    H2UpstreamStream(const H2UpstreamStream&) = delete;
    H2UpstreamStream& operator=(const H2UpstreamStream&) = delete;

    executor_type get_executor() const { return channel_.get_executor(); }
    boost::asio::ip::tcp::socket& socket();
    void expires_after(std::chrono::steady_clock::duration d) { channel_.expires_after(d); }
    void expires_at(std::chrono::steady_clock::time_point t) { channel_.expires_at(t); }
    void expires_never() { channel_.expires_never(); }
    template <class Buffers, class Token>
    auto async_read_some(const Buffers& buffers, Token&& token) {
        return channel_.async_read_some(buffers, std::forward<Token>(token));
    }
    template <class Buffers, class Token>
    auto async_write_some(const Buffers& buffers, Token&& token) {
        return channel_.async_write_some(buffers, std::forward<Token>(token));
    }

    // The exchange gave up on the request (its body could not be sent): the
    // stream is cancelled, and every read and write on it fails.
    void abandon();

    // The connection's side.
    void on_answer_head(const h2::HeaderList& fields);
    void on_answer_data(std::string_view bytes);
    void on_answer_end(const h2::HeaderList& trailers);
    void on_request_room() { channel_.room(); }
    void on_closed(h2::StreamEnd end);

private:
    void read_done(std::size_t n) override;
    std::size_t take(std::span<const std::string_view> pieces) override;

    std::shared_ptr<H2UpstreamConnection> connection_;
    H2StreamChannel channel_;
    h2::RequestReader reader_;
    std::int32_t id_ = -1;
    bool attached_ = false;
    bool head_request_ = false;
    bool answer_chunked_ = false;
    bool answer_whole_ = false;
};

} // namespace osf::net
