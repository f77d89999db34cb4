#include "admin/stream_listener.hpp"

#include "osf/host_port.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <fcntl.h>
#include <stdexcept>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

namespace osf::admin {

namespace asio = boost::asio;
using asio::ip::tcp;
using Local = asio::local::stream_protocol;

namespace {

[[noreturn]] void fail(int error, const char* what) {
    throw boost::system::system_error(
        boost::system::error_code(error, boost::system::system_category()), what);
}

} // namespace

StreamListener::StreamListener(asio::any_io_executor executor) : executor_(std::move(executor)) {}

std::unique_ptr<StreamListener> StreamListener::on_tcp(asio::any_io_executor executor,
                                                       const tcp::endpoint& at) {
    std::unique_ptr<StreamListener> listener(new StreamListener(executor));
    auto& acceptor = listener->tcp_.emplace(executor);
    acceptor.open(at.protocol());
    acceptor.set_option(tcp::acceptor::reuse_address(true));
    acceptor.bind(at);
    acceptor.listen(asio::socket_base::max_listen_connections);
    return listener;
}

std::unique_ptr<StreamListener> StreamListener::on_unix(asio::any_io_executor executor,
                                                        const std::string& unix_path) {
    std::unique_ptr<StreamListener> listener(new StreamListener(executor));
    struct stat existing {};
    if (::lstat(unix_path.c_str(), &existing) == 0) {
        if (!S_ISSOCK(existing.st_mode)) fail(EEXIST, "a file that is not a socket is there");
        if (::unlink(unix_path.c_str()) != 0) fail(errno, "cannot remove the old socket");
    }
    auto& acceptor = listener->unix_.emplace(executor);
    acceptor.open(Local());
    // Bound with no permission for anyone, then opened to the owner only: no
    // moment when another user could connect.
    const mode_t before = ::umask(0777);
    boost::system::error_code bound;
    acceptor.bind(Local::endpoint(unix_path), bound);
    ::umask(before);
    if (bound) throw boost::system::system_error(bound);
    if (::chmod(unix_path.c_str(), 0600) != 0) fail(errno, "chmod");
    acceptor.listen(asio::socket_base::max_listen_connections);
    listener->unix_path_ = unix_path;
    return listener;
}

std::unique_ptr<StreamListener> StreamListener::on_inherited(asio::any_io_executor executor,
                                                             int fd) {
    int domain = 0, type = 0, listening = 0;
    socklen_t size = sizeof(int);
    const char* not_a_listener = "not a listening Unix stream socket";
    if (::getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &size) != 0) {
        if (errno == ENOTSOCK) throw std::invalid_argument(not_a_listener);
        fail(errno, "the inherited listener");
    }
    size = sizeof(int);
    ::getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &size);
    size = sizeof(int);
    ::getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &size);
    if (domain != AF_UNIX || type != SOCK_STREAM || listening != 1)
        throw std::invalid_argument(not_a_listener);
    sockaddr_un bound{};
    socklen_t bound_size = sizeof(bound);
    if (::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &bound_size) != 0)
        fail(errno, "the inherited listener");
    ::fcntl(fd, F_SETFD, FD_CLOEXEC); // no program the proxy starts holds it
    std::unique_ptr<StreamListener> listener(new StreamListener(executor));
    auto& acceptor = listener->unix_.emplace(executor);
    boost::system::error_code assigned;
    acceptor.assign(Local(), fd, assigned);
    if (assigned) throw boost::system::system_error(assigned);
    // Its path, for listen.json: what the starter bound (and keeps there).
    const auto path_bytes = bound_size > offsetof(sockaddr_un, sun_path)
                                ? bound_size - offsetof(sockaddr_un, sun_path)
                                : 0;
    listener->unix_path_ = std::string(bound.sun_path, ::strnlen(bound.sun_path, path_bytes));
    return listener;
}

asio::awaitable<StreamListener::Accepted> StreamListener::accept(asio::io_context& into) {
    co_return co_await accept_on(into.get_executor());
}

asio::awaitable<StreamListener::Accepted> StreamListener::accept() {
    co_return co_await accept_on(executor_);
}

asio::awaitable<StreamListener::Accepted> StreamListener::accept_on(asio::any_io_executor into) {
    if (tcp_) {
        tcp::endpoint remote;
        auto [error, socket] =
            co_await tcp_->async_accept(into, remote, asio::as_tuple(asio::use_awaitable));
        std::string client;
        if (!error) client = osf::host_port(remote.address().to_string(), remote.port());
        co_return Accepted{error, std::move(socket), std::move(client)};
    }
    auto [error, local] = co_await unix_->async_accept(asio::as_tuple(asio::use_awaitable));
    tcp::socket socket(into);
    if (!error) {
        const int fd = local.release(error);
        if (!error) {
            socket.assign(tcp::v4(), fd, error);
            if (error) ::close(fd);
        }
    }
    co_return Accepted{error, std::move(socket), "unix"};
}

bool StreamListener::is_open() const {
    return tcp_ ? tcp_->is_open() : unix_->is_open();
}

void StreamListener::close() {
    boost::system::error_code ignored;
    if (tcp_) tcp_->close(ignored);
    if (unix_) unix_->close(ignored);
}

std::string StreamListener::address_text() const {
    if (unix_) return "unix:" + unix_path_;
    const auto at = tcp_->local_endpoint();
    return osf::host_port(at.address().to_string(), at.port());
}

std::optional<tcp::endpoint> StreamListener::tcp_endpoint() const {
    if (tcp_) return tcp_->local_endpoint();
    return std::nullopt;
}

} // namespace osf::admin
