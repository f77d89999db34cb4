#include "local/protocol/admin_client.hpp"

#include "local/protocol/unix_socket.hpp"
#include "osf/proxy_state.hpp"
#include "osf/whole_file.hpp"

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace osf::local {

namespace {

std::string read_proxy_state(const std::string& path) {
    auto text = osf::read_whole_file(path);
    if (!text) throw std::runtime_error("cannot read " + path + " (is the sandbox running?)");
    return std::move(*text);
}

} // namespace

AdminAnswer post_policy(const SandboxPaths& paths, const std::string& body) {
    namespace beast = boost::beast;
    namespace http = beast::http;
    using boost::asio::ip::tcp;
    const auto listen = osf::proxy_state::parse_listen(read_proxy_state(paths.listen_file()));
    if (!listen || listen->admin.empty())
        throw std::runtime_error(paths.listen_file() + " names no admin address");
    std::string token = read_proxy_state(
        osf::proxy_state::path_in(paths.proxy_state, osf::proxy_state::admin_token));
    while (!token.empty() && (token.back() == '\n' || token.back() == '\r'))
        token.pop_back();
    // Only the Unix socket the supervisor told it to listen on (launch_plan.hpp).
    if (listen->admin != "unix:" + paths.admin_socket)
        throw std::runtime_error(paths.listen_file() + " names another admin address than " +
                                 paths.admin_socket);

    boost::asio::io_context io;
    beast::tcp_stream stream(io);
    stream.expires_after(std::chrono::seconds(30));
    // The Unix connection inside the tcp_stream: Beast only reads and writes it.
    stream.socket().assign(tcp::v4(), connect_unix(paths.admin_socket).release());
    http::request<http::string_body> request{http::verb::post, "/policy", 11};
    request.set(http::field::host, "localhost");
    request.set(http::field::authorization, "Bearer " + token);
    request.set(http::field::content_type, "application/json");
    request.body() = body;
    request.prepare_payload();
    http::write(stream, request);
    beast::flat_buffer buffer;
    http::response<http::string_body> response;
    http::read(stream, buffer, response);
    beast::error_code ignored;
    stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
    return {response.result_int(), response.body()};
}

} // namespace osf::local
