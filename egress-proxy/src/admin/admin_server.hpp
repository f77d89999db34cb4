// The admin listener, on its own port: /healthz, /readyz, /metrics, and
// POST /policy (a change of what the sandbox may reach, with the bearer token
// in <state-dir>/admin-token: the port is on loopback or a pod's own address,
// and the token keeps other local users and the sandbox out).
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <functional>
#include <string>

namespace osf::admin {

struct AdminAnswer {
    unsigned status = 200;
    std::string body;
    std::string content_type = "text/plain; charset=utf-8";
};

struct AdminHandlers {
    std::function<bool()> ready;          // /readyz: 200 when true, else 503
    std::function<std::string()> metrics; // /metrics body
    // POST /policy: the request's body in, the answer out.
    std::function<AdminAnswer(std::string_view body)> change_policy;
    std::string token;                   // what POST /policy's Authorization: Bearer must say
    std::size_t max_policy_bytes = 4096; // the most POST /policy's body may hold
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
