// One listening socket, on TCP or on a Unix socket path, for the proxy's port
// and its admin port. An accepted Unix connection is handed on as a
// tcp::socket holding the Unix descriptor: the sessions only read, write and
// shut down their socket (never its addresses or TCP options), so one session
// type serves both. A Unix socket is made mode 0600 in whatever directory it
// is bound in: only the proxy's user, through directories that let it, can
// connect (sandbox-local binds it in the sandbox's 0700 state directory).
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <memory>
#include <optional>
#include <string>
#include <tuple>

namespace osf::admin {

class StreamListener {
public:
    struct Accepted {
        boost::system::error_code error;
        boost::asio::ip::tcp::socket socket;
        std::string client; // "ADDR:PORT", or "unix" for a Unix socket's peer
    };

    // Binds and listens now; throws boost::system::system_error when it cannot.
    // A Unix socket already at `unix_path` (an earlier run's) is replaced;
    // anything else there is an error.
    static std::unique_ptr<StreamListener> on_tcp(boost::asio::any_io_executor executor,
                                                  const boost::asio::ip::tcp::endpoint& at);
    static std::unique_ptr<StreamListener> on_unix(boost::asio::any_io_executor executor,
                                                   const std::string& unix_path);
    // A listening Unix stream socket this process was started with; throws
    // std::invalid_argument when `fd` is something else, boost::system::system_error
    // when it is not open.
    static std::unique_ptr<StreamListener> on_inherited(boost::asio::any_io_executor executor,
                                                        int fd);

    // The next connection, its socket on `into`'s executor.
    boost::asio::awaitable<Accepted> accept(boost::asio::io_context& into);
    boost::asio::awaitable<Accepted> accept(); // on the listener's own executor

    const boost::asio::any_io_executor& executor() const { return executor_; }
    bool is_open() const;
    void close();
    // listen.json's form: "ADDR:PORT" (the port the kernel chose) or "unix:PATH".
    std::string address_text() const;
    // The TCP endpoint; none for a Unix socket.
    std::optional<boost::asio::ip::tcp::endpoint> tcp_endpoint() const;

private:
    explicit StreamListener(boost::asio::any_io_executor executor);
    boost::asio::awaitable<Accepted> accept_on(boost::asio::any_io_executor into);

    boost::asio::any_io_executor executor_;
    std::optional<boost::asio::ip::tcp::acceptor> tcp_;
    std::optional<boost::asio::local::stream_protocol::acceptor> unix_;
    std::string unix_path_;
};

} // namespace osf::admin
