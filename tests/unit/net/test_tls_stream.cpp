// TlsStream in both roles on a loopback TCP connection: the proxy's client
// side (server role, a minted leaf) and its upstream side (client role,
// verifying the peer's name). Under the sanitizer preset these also check that
// a stream frees everything it holds (a leaked BIO per stream was found so).
#include "ca/certificate_authority.hpp"
#include "net/tls_contexts.hpp"
#include "net/tls_stream.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

namespace asio = boost::asio;
using asio::ip::tcp;
using osf::net::TlsRole;
using osf::net::TlsStream;

namespace {

struct Pair {
    asio::io_context io;
    tcp::socket server{io};
    tcp::socket client{io};
    Pair() {
        tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
        client.connect(acceptor.local_endpoint());
        acceptor.accept(server);
    }
};

struct Certificates {
    std::unique_ptr<osf::ca::CertificateAuthority> ca = osf::ca::CertificateAuthority::create({});
    std::string bundle = (std::filesystem::temp_directory_path() /
                          ("osf-tls-stream-test-" + std::to_string(::getpid()) + ".pem"))
                             .string();
    Certificates() { std::ofstream(bundle) << ca->certificate_pem(); }
    ~Certificates() { std::remove(bundle.c_str()); }
};

// Handshakes both ends (the client expecting `name`); returns the two results.
std::pair<boost::system::error_code, boost::system::error_code>
handshake(Pair& pair, TlsStream& server, TlsStream& client, const std::string& name) {
    SSL_set_tlsext_host_name(client.native_handle(), name.c_str());
    SSL_set1_host(client.native_handle(), name.c_str());
    server.expires_after(std::chrono::seconds(20));
    client.expires_after(std::chrono::seconds(20));
    boost::system::error_code server_ec = asio::error::would_block, client_ec = server_ec;
    server.async_handshake([&](boost::system::error_code ec) { server_ec = ec; });
    client.async_handshake([&](boost::system::error_code ec) {
        client_ec = ec;
        if (ec) server.socket().close(); // the server would otherwise wait for its deadline
    });
    pair.io.run();
    pair.io.restart();
    return {server_ec, client_ec};
}

} // namespace

TEST_CASE("a client-role stream verifies the server and both carry bytes each way") {
    Certificates certs;
    auto leaf = certs.ca->mint_leaf("upstream.test");
    auto server_context = osf::net::make_leaf_context(leaf, certs.ca->certificate());
    auto client_context = osf::net::make_upstream_context(certs.bundle);
    Pair pair;
    TlsStream server(std::move(pair.server), *server_context);
    TlsStream client(std::move(pair.client), client_context, {}, TlsRole::client);

    auto [server_ec, client_ec] = handshake(pair, server, client, "upstream.test");
    REQUIRE_FALSE(client_ec);
    REQUIRE_FALSE(server_ec);
    CHECK(SSL_get_verify_result(client.native_handle()) == X509_V_OK);
    const char* sni = SSL_get_servername(server.native_handle(), TLSEXT_NAMETYPE_host_name);
    REQUIRE(sni);
    CHECK(std::string(sni) == "upstream.test");

    std::string request = "GET / HTTP/1.1\r\n\r\n", got(64, '\0'), answer(64, '\0');
    std::size_t got_n = 0, answer_n = 0;
    client.async_write_some(asio::buffer(request), [](boost::system::error_code, std::size_t) {});
    server.async_read_some(asio::buffer(got), [&](boost::system::error_code ec, std::size_t n) {
        REQUIRE_FALSE(ec);
        got_n = n;
        server.async_write_some(asio::buffer(std::string_view("pong")),
                                [](boost::system::error_code, std::size_t) {});
    });
    client.async_read_some(asio::buffer(answer), [&](boost::system::error_code ec, std::size_t n) {
        REQUIRE_FALSE(ec);
        answer_n = n;
    });
    pair.io.run();
    CHECK(got.substr(0, got_n) == request);
    CHECK(answer.substr(0, answer_n) == "pong");
}

TEST_CASE("a client-role stream refuses a server certificate for another name") {
    Certificates certs;
    auto leaf = certs.ca->mint_leaf("other.test");
    auto server_context = osf::net::make_leaf_context(leaf, certs.ca->certificate());
    auto client_context = osf::net::make_upstream_context(certs.bundle);
    Pair pair;
    TlsStream server(std::move(pair.server), *server_context);
    TlsStream client(std::move(pair.client), client_context, {}, TlsRole::client);

    auto [server_ec, client_ec] = handshake(pair, server, client, "upstream.test");
    CHECK(client_ec);
    CHECK(SSL_get_verify_result(client.native_handle()) == X509_V_ERR_HOSTNAME_MISMATCH);
}
