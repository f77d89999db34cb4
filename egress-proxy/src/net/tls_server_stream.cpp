#include "net/tls_server_stream.hpp"

#include <boost/asio/ssl/error.hpp>
#include <openssl/err.h>
#include <stdexcept>

namespace osf::net {

namespace asio = boost::asio;

TlsServerStream::TlsServerStream(asio::ip::tcp::socket socket, asio::ssl::context& context)
    : socket_(std::move(socket)), read_timer_(socket_.get_executor()),
      write_timer_(socket_.get_executor()) {
    ssl_ = SSL_new(context.native_handle());
    if (!ssl_) throw std::runtime_error("SSL_new failed");
    socket_.non_blocking(true);
    SSL_set_fd(ssl_, static_cast<int>(socket_.native_handle()));
    SSL_set_accept_state(ssl_);
    // Short writes are fine (Beast loops); a retried write may come from another address.
    SSL_set_mode(ssl_, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
}

TlsServerStream::~TlsServerStream() {
    if (ssl_) SSL_free(ssl_); // does not close the descriptor: the socket owns it
}

void TlsServerStream::shutdown() {
    ERR_clear_error();
    if (SSL_is_init_finished(ssl_)) SSL_shutdown(ssl_);
    ERR_clear_error();
}

TlsServerStream::Result TlsServerStream::check(int ok, std::size_t bytes) {
    if (ok > 0) return {Step::done, bytes};
    const int err = SSL_get_error(ssl_, ok);
    switch (err) {
    case SSL_ERROR_WANT_READ:
        return {Step::want_read};
    case SSL_ERROR_WANT_WRITE:
        return {Step::want_write};
    case SSL_ERROR_ZERO_RETURN:
        return {Step::failed, 0, asio::error::eof};
    case SSL_ERROR_SYSCALL: {
        const int e = errno;
        ERR_clear_error();
        if (e == 0) return {Step::failed, 0, asio::ssl::error::stream_truncated};
        return {Step::failed, 0, boost::system::error_code(e, boost::system::system_category())};
    }
    default: {
        const unsigned long code = ERR_get_error();
        ERR_clear_error();
        if (ERR_GET_REASON(code) == SSL_R_UNEXPECTED_EOF_WHILE_READING)
            return {Step::failed, 0, asio::ssl::error::stream_truncated};
        return {Step::failed, 0,
                boost::system::error_code(static_cast<int>(code), asio::error::get_ssl_category())};
    }
    }
}

void TlsServerStream::arm_timer(bool for_read) {
    if (deadline_ == std::chrono::steady_clock::time_point::max()) return;
    auto& timer = for_read ? read_timer_ : write_timer_;
    timer.expires_at(deadline_);
    timer.async_wait([this](const boost::system::error_code& ec) {
        if (!ec) {
            boost::system::error_code ignored;
            socket_.cancel(ignored);
        }
    });
}

} // namespace osf::net
