#include "net/worker.hpp"

namespace osf::net {

void Worker::close_idle_clients() {
    for (auto& [id, handle] : clients) {
        if (handle.idle && handle.socket) {
            boost::system::error_code ignored;
            handle.socket->cancel(ignored);
        }
    }
}

std::size_t Worker::end_revoked(const policy::Policy& policy) {
    std::size_t ended = 0;
    for (auto& [id, handle] : clients) {
        if (handle.host.empty() || !handle.socket) continue;
        const bool allowed = handle.raw
                                 ? policy.is_tcp_destination(handle.host, handle.port)
                                 : policy.check_destination(handle.host, handle.port).allowed;
        if (allowed) continue;
        // Both ways: a relay's pending reads fail, and so does its next write.
        boost::system::error_code ignored;
        handle.socket->shutdown(boost::asio::ip::tcp::socket::shutdown_both, ignored);
        handle.socket->cancel(ignored);
        handle.host.clear(); // counted once
        handle.revoked = true;
        ++ended;
    }
    return ended;
}

ClientRegistration::ClientRegistration(Worker& worker, std::uint64_t id,
                                       boost::asio::ip::tcp::socket* socket)
    : worker_(worker), id_(id) {
    worker_.clients[id_] = ClientHandle{socket, true, {}, 0, false, false};
}

ClientRegistration::~ClientRegistration() {
    worker_.clients.erase(id_);
}

void ClientRegistration::set_socket(boost::asio::ip::tcp::socket* socket) {
    worker_.clients[id_].socket = socket;
}

void ClientRegistration::set_idle(bool idle) {
    worker_.clients[id_].idle = idle;
}

void ClientRegistration::set_destination(std::string host, std::uint16_t port, bool raw) {
    auto& handle = worker_.clients[id_];
    handle.host = std::move(host);
    handle.port = port;
    handle.raw = raw;
}

bool ClientRegistration::revoked() const {
    const auto it = worker_.clients.find(id_);
    return it != worker_.clients.end() && it->second.revoked;
}

} // namespace osf::net
