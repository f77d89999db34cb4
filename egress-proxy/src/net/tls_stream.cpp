#include "net/tls_stream.hpp"

#include <boost/asio/ssl/error.hpp>
#include <cstdint>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <stdexcept>
#include <sys/socket.h>

namespace osf::net {

namespace asio = boost::asio;

namespace {

// A socket BIO that sends with MSG_NOSIGNAL: OpenSSL's own BIO_s_socket uses
// plain writes, and a client that has gone away would kill the whole proxy
// with SIGPIPE (Asio's sockets never raise it; the process does not ignore it).
int socket_of(BIO* b) {
    return static_cast<int>(reinterpret_cast<std::intptr_t>(BIO_get_data(b)));
}

int nosignal_write(BIO* b, const char* data, int size) {
    BIO_clear_retry_flags(b);
    const auto n = ::send(socket_of(b), data, static_cast<std::size_t>(size), MSG_NOSIGNAL);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        BIO_set_retry_write(b);
    return static_cast<int>(n);
}

int nosignal_read(BIO* b, char* data, int size) {
    BIO_clear_retry_flags(b);
    const auto n = ::recv(socket_of(b), data, static_cast<std::size_t>(size), 0);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) BIO_set_retry_read(b);
    return static_cast<int>(n);
}

long nosignal_ctrl(BIO*, int cmd, long, void*) {
    return cmd == BIO_CTRL_FLUSH ? 1 : 0; // writes are never buffered here
}

int nosignal_create(BIO* b) {
    BIO_set_init(b, 1);
    return 1;
}

const BIO_METHOD* nosignal_socket_method() {
    static BIO_METHOD* method = [] {
        BIO_METHOD* m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "osf-socket");
        if (!m || !BIO_meth_set_write(m, nosignal_write) || !BIO_meth_set_read(m, nosignal_read) ||
            !BIO_meth_set_ctrl(m, nosignal_ctrl) || !BIO_meth_set_create(m, nosignal_create))
            throw std::runtime_error("BIO_meth_new failed");
        return m;
    }();
    return method;
}

BIO* new_socket_bio(int fd) {
    BIO* b = BIO_new(nosignal_socket_method());
    if (b) BIO_set_data(b, reinterpret_cast<void*>(static_cast<std::intptr_t>(fd)));
    return b;
}

} // namespace

TlsStream::TlsStream(asio::ip::tcp::socket socket, asio::ssl::context& context,
                     std::string_view already_read, TlsRole role)
    : socket_(std::move(socket)), timer_(socket_.get_executor()) {
    ssl_.reset(SSL_new(context.native_handle()));
    if (!ssl_) throw std::runtime_error("SSL_new failed");
    socket_.non_blocking(true);
    socket_bio_.reset(new_socket_bio(static_cast<int>(socket_.native_handle())));
    if (!socket_bio_) throw std::runtime_error("BIO_new failed");
    if (already_read.empty()) {
        // One BIO as both rbio and wbio: SSL_set_bio takes our one reference and
        // adds the second itself (an extra BIO_up_ref here leaked the BIO per stream).
        BIO* socket_bio = socket_bio_.release();
        SSL_set_bio(ssl_.get(), socket_bio, socket_bio);
    } else {
        // The bytes read before come from memory; once they are used up
        // (switch_to_socket) OpenSSL reads the socket. Its record layer keeps a
        // partly read record across the switch.
        OpenSslPtr<BIO, BIO_free> copy(BIO_new(BIO_s_mem()));
        if (!copy ||
            BIO_write(copy.get(), already_read.data(), static_cast<int>(already_read.size())) !=
                static_cast<int>(already_read.size()))
            throw std::runtime_error("BIO_s_mem failed");
        BIO_set_mem_eof_return(copy.get(), -1); // empty means "retry", not end of stream
        BIO_up_ref(socket_bio_.get());
        // SSL takes `copy` and one socket reference; socket_bio_ keeps the other.
        SSL_set_bio(ssl_.get(), copy.release(), socket_bio_.get());
    }
    if (role == TlsRole::server)
        SSL_set_accept_state(ssl_.get());
    else
        SSL_set_connect_state(ssl_.get());
    // Short writes are fine (Beast loops); a retried write may come from another
    // address; buffers go back to the heap whenever they are empty.
    SSL_set_mode(ssl_.get(), SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER |
                                 SSL_MODE_RELEASE_BUFFERS);
    // A whole record (and what follows it) in one recv rather than a header and a body.
    SSL_set_read_ahead(ssl_.get(), 1);
}

// SSL_free and BIO_free (the members' deleters) do not close the descriptor: the socket owns it.
TlsStream::~TlsStream() = default;

bool TlsStream::has_pending() const {
    if (SSL_has_pending(ssl_.get()) == 1) return true;
    return socket_bio_ && BIO_ctrl_pending(SSL_get_rbio(ssl_.get())) > 0; // bytes read before
}

bool TlsStream::switch_to_socket() {
    if (!socket_bio_ || BIO_ctrl_pending(SSL_get_rbio(ssl_.get())) > 0) return false;
    SSL_set0_rbio(ssl_.get(), socket_bio_.release()); // frees the memory BIO, takes our reference
    return true;
}

void TlsStream::shutdown() {
    ERR_clear_error();
    if (SSL_is_init_finished(ssl_.get())) SSL_shutdown(ssl_.get());
    ERR_clear_error();
}

TlsStream::Result TlsStream::check(int ok, std::size_t bytes) {
    if (ok > 0) return {Step::done, bytes};
    const int saved_errno = errno; // before anything else can change it
    const int err = SSL_get_error(ssl_.get(), ok);
    switch (err) {
    case SSL_ERROR_WANT_READ:
        return {Step::want_read};
    case SSL_ERROR_WANT_WRITE:
        return {Step::want_write};
    case SSL_ERROR_ZERO_RETURN: // close_notify: the client is done
        return {Step::failed, 0, asio::error::eof};
    case SSL_ERROR_SYSCALL: {
        ERR_clear_error();
        if (saved_errno == 0) return {Step::failed, 0, asio::ssl::error::stream_truncated};
        if (saved_errno == ECONNRESET || saved_errno == EPIPE)
            return {Step::failed, 0, asio::error::connection_reset};
        return {Step::failed, 0,
                boost::system::error_code(saved_errno, boost::system::system_category())};
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

void TlsStream::watch_deadline() {
    if (deadline_ == std::chrono::steady_clock::time_point::max() || timer_at_ <= deadline_)
        return; // no deadline, or the timer fires before it anyway
    timer_at_ = deadline_;
    timer_.expires_at(deadline_); // a setting still pending ends with operation_aborted
    timer_.async_wait([weak = std::weak_ptr<TlsStream*>(self_),
                       generation = ++timer_generation_](const boost::system::error_code& ec) {
        if (ec) return;
        auto alive = weak.lock();
        if (!alive) return;
        TlsStream& s = **alive;
        // A firing already queued when the timer was set again belongs to the
        // old setting: the new one is pending and decides.
        if (generation != s.timer_generation_) return;
        s.timer_at_ = std::chrono::steady_clock::time_point::max();
        if (s.waits_ == 0) return; // nothing to time out; the next wait sets it again
        if (s.expired()) {
            boost::system::error_code ignored;
            s.socket_.cancel(ignored); // every pending wait ends, as a timeout
            return;
        }
        s.watch_deadline(); // the deadline moved on while the timer ran
    });
}

} // namespace osf::net
