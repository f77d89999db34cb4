#include "admin/accept_pause.hpp"

#include <boost/asio/error.hpp>
#include <cerrno>

namespace osf::admin {

AcceptNext after_accept_error(const boost::system::error_code& error, bool listening) {
    if (!listening || error == boost::asio::error::operation_aborted) return AcceptNext::stop;
    if (error.category() == boost::system::system_category() ||
        error.category() == boost::system::generic_category()) {
        switch (error.value()) {
        case EMFILE:
        case ENFILE:
        case ENOBUFS:
        case ENOMEM:
            return AcceptNext::pause;
        default:
            break;
        }
    }
    return AcceptNext::retry; // ECONNABORTED and the like: that connection only
}

} // namespace osf::admin
