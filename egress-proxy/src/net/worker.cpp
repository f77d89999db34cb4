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

ClientRegistration::ClientRegistration(Worker& worker, std::uint64_t id,
                                       boost::asio::ip::tcp::socket* socket)
    : worker_(worker), id_(id) {
    worker_.clients[id_] = ClientHandle{socket, true};
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

} // namespace osf::net
