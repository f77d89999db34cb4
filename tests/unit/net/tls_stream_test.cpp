// TlsStream in both roles on a loopback TCP connection: the proxy's client
// side (server role, a minted leaf) and its upstream side (client role,
// verifying the peer's name). Under the sanitizer preset these also check that
// a stream frees everything it holds (a leaked BIO per stream was found so).
#include "ca/certificate_authority.hpp"
#include "config/upstream_tls.hpp"
#include "net/tls_contexts.hpp"
#include "net/tls_stream.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <unistd.h>

namespace asio = boost::asio;
using asio::ip::tcp;
using osf::net::TlsRole;
using osf::net::TlsStream;

namespace {

// A loopback TCP connection made of two TlsStreams: `server` presents a leaf
// for `certificate_name` minted by a fresh CA; `client` trusts that CA.
struct Tunnel {
    std::unique_ptr<osf::ca::CertificateAuthority> ca = osf::ca::CertificateAuthority::create({});
    std::string bundle = (std::filesystem::temp_directory_path() /
                          ("osf-tls-stream-test-" + std::to_string(::getpid()) + ".pem"))
                             .string();
    asio::io_context io;
    std::shared_ptr<asio::ssl::context> server_context;
    std::shared_ptr<asio::ssl::context> client_context;
    std::optional<TlsStream> server;
    std::optional<TlsStream> client;

    explicit Tunnel(const std::string& certificate_name)
        : server_context(osf::net::make_leaf_context(ca->mint_leaf(certificate_name),
                                                     ca->certificate(), false)),
          client_context(write_bundle()) {
        tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
        tcp::socket server_socket(io), client_socket(io);
        client_socket.connect(acceptor.local_endpoint());
        acceptor.accept(server_socket);
        server.emplace(std::move(server_socket), *server_context);
        client.emplace(std::move(client_socket), *client_context, std::string_view{},
                       TlsRole::client);
    }
    ~Tunnel() { std::remove(bundle.c_str()); }

    // Handshakes both ends, the client expecting `name`; returns {server, client} results.
    std::pair<boost::system::error_code, boost::system::error_code>
    handshake(const std::string& name) {
        SSL_set_tlsext_host_name(client->native_handle(), name.c_str());
        SSL_set1_host(client->native_handle(), name.c_str());
        server->expires_after(std::chrono::seconds(20));
        client->expires_after(std::chrono::seconds(20));
        boost::system::error_code server_ec = asio::error::would_block, client_ec = server_ec;
        server->async_handshake([&](boost::system::error_code ec) { server_ec = ec; });
        client->async_handshake([&](boost::system::error_code ec) {
            client_ec = ec;
            if (ec) server->socket().close(); // the server would otherwise wait for its deadline
        });
        // Until both are done, not until the loop runs dry: a stream's deadline
        // timer stays set after its operations (it is only moved, never cancelled).
        while (server_ec == asio::error::would_block || client_ec == asio::error::would_block)
            io.run_one();
        return {server_ec, client_ec};
    }

private:
    std::shared_ptr<asio::ssl::context> write_bundle() {
        std::ofstream(bundle) << ca->certificate_pem();
        return osf::config::make_upstream_tls(bundle);
    }
};

} // namespace

TEST_CASE("a client-role stream verifies the server and both carry bytes each way") {
    Tunnel t("upstream.test");
    auto [server_ec, client_ec] = t.handshake("upstream.test");
    REQUIRE_FALSE(client_ec);
    REQUIRE_FALSE(server_ec);
    CHECK(SSL_get_verify_result(t.client->native_handle()) == X509_V_OK);
    const char* sni = SSL_get_servername(t.server->native_handle(), TLSEXT_NAMETYPE_host_name);
    REQUIRE(sni);
    CHECK(std::string(sni) == "upstream.test");

    std::string request = "GET / HTTP/1.1\r\n\r\n", got(64, '\0'), answer(64, '\0');
    std::size_t got_n = 0, answer_n = 0;
    t.client->async_write_some(asio::buffer(request),
                               [](boost::system::error_code, std::size_t) {});
    t.server->async_read_some(asio::buffer(got), [&](boost::system::error_code ec, std::size_t n) {
        REQUIRE_FALSE(ec);
        got_n = n;
        t.server->async_write_some(asio::buffer(std::string_view("pong")),
                                   [](boost::system::error_code, std::size_t) {});
    });
    t.client->async_read_some(asio::buffer(answer),
                              [&](boost::system::error_code ec, std::size_t n) {
                                  REQUIRE_FALSE(ec);
                                  answer_n = n;
                              });
    while (got_n == 0 || answer_n == 0) // a failure ends the loop through REQUIRE
        t.io.run_one();
    CHECK(got.substr(0, got_n) == request);
    CHECK(answer.substr(0, answer_n) == "pong");
}

TEST_CASE("a client-role stream refuses a server certificate for another name") {
    Tunnel t("other.test");
    auto [server_ec, client_ec] = t.handshake("upstream.test");
    CHECK(client_ec);
    CHECK(SSL_get_verify_result(t.client->native_handle()) == X509_V_ERR_HOSTNAME_MISMATCH);
}
