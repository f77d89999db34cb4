// The completion token of the proxy's coroutines: an operation's error comes
// back as a value (`auto [ec, n] = co_await ...`), never as an exception.
#pragma once

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace osf::net {

constexpr auto use_tuple = boost::asio::as_tuple(boost::asio::use_awaitable);

} // namespace osf::net
