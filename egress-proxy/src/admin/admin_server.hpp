// The admin listener, on its own port or Unix socket: /healthz, /readyz,
// /metrics, and POST /policy (a change of what the sandbox may reach, with the
// bearer token in <state-dir>/admin-token: the port is on loopback or a pod's
// own address, and the token keeps other local users and the sandbox out;
// sandbox-local's is a Unix socket only its user can reach).
#pragma once

#include "admin/stream_listener.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <functional>
#include <memory>
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
    // On a listener bound already (StreamListener: TCP or a Unix socket).
    AdminServer(std::unique_ptr<StreamListener> listener, AdminHandlers handlers);
    void start();
    void stop();
    const StreamListener& listener() const { return *listener_; }

private:
    std::unique_ptr<StreamListener> listener_;
    AdminHandlers handlers_;
};

} // namespace osf::admin
