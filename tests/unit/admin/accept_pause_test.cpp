// After a failed accept(2): stop, retry at once, or pause (out of descriptors).
#include "admin/accept_pause.hpp"

#include <boost/asio/error.hpp>
#include <catch2/catch.hpp>
#include <cerrno>

using osf::admin::AcceptNext;
using osf::admin::after_accept_error;

TEST_CASE("an accept loop pauses when out of descriptors and stops when closed") {
    auto sys = [](int e) { return boost::system::error_code(e, boost::system::system_category()); };
    struct Row {
        const char* what;
        boost::system::error_code error;
        bool listening;
        AcceptNext expected;
    };
    const Row rows[] = {
        {"EMFILE", sys(EMFILE), true, AcceptNext::pause},
        {"EMFILE (asio's name)", boost::asio::error::no_descriptors, true, AcceptNext::pause},
        {"ENFILE", sys(ENFILE), true, AcceptNext::pause},
        {"ENOBUFS", sys(ENOBUFS), true, AcceptNext::pause},
        {"ENOMEM", sys(ENOMEM), true, AcceptNext::pause},
        {"ECONNABORTED", sys(ECONNABORTED), true, AcceptNext::retry},
        {"EPROTO", sys(EPROTO), true, AcceptNext::retry},
        {"aborted (closing)", boost::asio::error::operation_aborted, true, AcceptNext::stop},
        {"EMFILE once closed", sys(EMFILE), false, AcceptNext::stop},
        {"generic EMFILE", boost::system::error_code(EMFILE, boost::system::generic_category()),
         true, AcceptNext::pause},
    };
    for (const auto& row : rows) {
        INFO(row.what);
        CHECK(after_accept_error(row.error, row.listening) == row.expected);
    }
}
