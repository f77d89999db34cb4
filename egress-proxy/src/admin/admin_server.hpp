// The admin listener, on its own port: /healthz, /readyz, /metrics.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <functional>
#include <string>

namespace osf::admin {

struct AdminHandlers {
    std::function<bool()> ready;          // /readyz: 200 when true, else 503
    std::function<std::string()> metrics; // /metrics body
};

class AdminServer {
public:
    // Binds now (throws boost::system::system_error when it cannot).
    AdminServer(boost::asio::any_io_executor executor, const boost::asio::ip::tcp::endpoint& at,
                AdminHandlers handlers);
    void start();
    void stop();
    boost::asio::ip::tcp::endpoint local_endpoint() const;

private:
    boost::asio::ip::tcp::acceptor acceptor_;
    AdminHandlers handlers_;
};

} // namespace osf::admin
