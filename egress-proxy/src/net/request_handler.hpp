// One request whose head has been read, from admission to the log line.
// Defined in request_handler.cpp for the three stream kinds a request arrives
// on: plain TCP (the proxy-facing connection, or plain HTTP in a tunnel), the
// TLS of an intercepted tunnel, and an HTTP/2 stream in one (h2_session.hpp).
#pragma once

#include "net/h2_stream_channel.hpp"
#include "net/session_types.hpp"
#include "net/tls_stream.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/parser.hpp>

namespace osf::net {

// Handles the request; true when the client connection may carry another.
template <class Stream>
boost::asio::awaitable<bool>
handle_request(ClientSession<Stream>& session,
               boost::beast::http::request_parser<boost::beast::http::empty_body>& head);

extern template boost::asio::awaitable<bool>
handle_request(ClientSession<boost::beast::tcp_stream>&,
               boost::beast::http::request_parser<boost::beast::http::empty_body>&);
extern template boost::asio::awaitable<bool>
handle_request(ClientSession<TlsStream>&,
               boost::beast::http::request_parser<boost::beast::http::empty_body>&);
extern template boost::asio::awaitable<bool>
handle_request(ClientSession<H2StreamChannel>&,
               boost::beast::http::request_parser<boost::beast::http::empty_body>&);

} // namespace osf::net
