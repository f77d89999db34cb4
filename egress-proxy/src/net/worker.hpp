// One worker thread: its io_context, its upstream pool and the client
// connections it serves (so a drain can close the idle ones).
#pragma once

#include "net/upstream.hpp"
#include "policy/policy.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <unordered_map>

namespace osf::net {

struct ClientHandle {
    boost::asio::ip::tcp::socket* socket = nullptr; // the lowest layer, wherever the stream moved
    bool idle = true;                               // waiting for a request head
    // A CONNECT tunnel's or a WebSocket's destination (empty host: neither):
    // a policy change that revokes it ends the connection.
    std::string host;
    std::uint16_t port = 0;
    bool raw = false;     // a raw TCP tunnel: its destination is judged against `tcp`
    bool revoked = false; // a policy change ended it
};

struct Worker {
    // Declaration order is destruction order reversed: pooled sockets go
    // while `io` lives; coroutine frames that `io` destroys still find `clients`.
    std::unordered_map<std::uint64_t, ClientHandle> clients;
    boost::asio::io_context io{1};
    UpstreamPool pool;
    std::thread thread;

    // Called on the worker's thread: closes every connection waiting for its next request.
    void close_idle_clients();
    // Called on the worker's thread: ends every tunnel and WebSocket whose
    // destination `policy` no longer admits; returns how many.
    std::size_t end_revoked(const policy::Policy& policy);
};

// Registers a client connection with its worker for as long as it lives.
class ClientRegistration {
public:
    ClientRegistration(Worker& worker, std::uint64_t id, boost::asio::ip::tcp::socket* socket);
    ~ClientRegistration();
    ClientRegistration(const ClientRegistration&) = delete;
    ClientRegistration& operator=(const ClientRegistration&) = delete;
    void set_socket(boost::asio::ip::tcp::socket* socket);
    void set_idle(bool idle);
    void set_destination(std::string host, std::uint16_t port, bool raw = false);
    // True once a policy change has ended the connection.
    bool revoked() const;

private:
    Worker& worker_;
    std::uint64_t id_;
};

} // namespace osf::net
