// Socket-free harness for the net/ pipeline's tests: the proxy's two streams are
// Beast's in-memory test streams, each connected to a peer the test scripts (the
// sandbox, the upstream server). A test writes the peer's bytes, steps the
// io_context until nothing more can happen (poll: never waits on a clock), and
// reads what reached the other peer and the egress log lines written.
#pragma once

#include "ca/certificate_authority.hpp"
#include "config/proxy_config.hpp"
#include "log/egress_log_writer.hpp"
#include "net/exchange.hpp"
#include "net/forwarding.hpp"
#include "net/proxy_runtime.hpp"

#include <atomic>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/_experimental/test/stream.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <exception>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <unistd.h>
#include <utility>
#include <vector>

namespace net_test {

namespace asio = boost::asio;
namespace beast = boost::beast;

// The proxy's end of an in-memory connection. It takes the deadlines the
// pipeline sets (nothing expires in memory) and can be told to fail its next
// read as a passed deadline would (beast::error::timeout), so a timeout is a
// scripted event, not a wait.
class ScriptStream : public beast::test::stream {
public:
    using beast::test::stream::stream;

    void expires_after(std::chrono::seconds) {}
    void fail_next_read(beast::error_code ec) { read_failure_ = ec; }

    template <class MutableBuffers, class Handler>
    auto async_read_some(const MutableBuffers& buffers, Handler&& handler) {
        if (read_failure_) {
            const auto ec = std::exchange(read_failure_, {});
            return asio::async_initiate<Handler, void(beast::error_code, std::size_t)>(
                [ec](auto h, executor_type ex) {
                    asio::post(ex, [h = std::move(h), ec]() mutable { std::move(h)(ec, 0); });
                },
                handler, get_executor());
        }
        return beast::test::stream::async_read_some(buffers, std::forward<Handler>(handler));
    }

private:
    beast::error_code read_failure_;
};

// The overloads stream_kinds.hpp has for TCP and TLS, found by ADL: like plain
// TCP, nothing beyond what a read returned is waiting to be taken.
inline std::size_t read_arrived(ScriptStream&, beast::flat_buffer&, std::size_t) {
    return 0;
}
inline void expect_answer_later(ScriptStream&) {}

// Parses what a peer received as one answer (the body whole); nullopt when it
// is not one well-framed, complete answer.
inline std::optional<boost::beast::http::response<boost::beast::http::string_body>>
parse_answer(std::string_view bytes) {
    namespace http = boost::beast::http;
    http::response_parser<http::string_body> parser;
    parser.eager(true);
    beast::error_code ec;
    const auto used = parser.put(asio::buffer(bytes.data(), bytes.size()), ec);
    if (ec || !parser.is_done() || used != bytes.size()) return std::nullopt;
    return parser.release();
}

// The peer is gone: its end is destroyed (replaced by an unconnected stream),
// so the proxy's reads end and its writes fail (connection_reset).
inline void hang_up(beast::test::stream& peer) {
    peer = beast::test::stream(peer.get_executor());
}

// Runs everything that can run now without waiting; bounded (no clock involved).
inline void step(asio::io_context& io) {
    io.restart();
    io.poll();
}

// Starts `task` on `io`; the returned value is set once it has completed.
template <class T>
std::shared_ptr<std::optional<T>> spawn(asio::io_context& io, asio::awaitable<T> task) {
    auto result = std::make_shared<std::optional<T>>();
    asio::co_spawn(io, std::move(task), [result](std::exception_ptr e, T value) {
        if (e) std::rethrow_exception(e);
        *result = std::move(value);
    });
    return result;
}
inline std::shared_ptr<bool> spawn(asio::io_context& io, asio::awaitable<void> task) {
    auto done = std::make_shared<bool>(false);
    asio::co_spawn(io, std::move(task), [done](std::exception_ptr e) {
        if (e) std::rethrow_exception(e);
        *done = true;
    });
    return done;
}

// A ProxyRuntime with the default configuration (adjust `config` before
// `start`), its egress log in a temporary file read back by `lines`.
struct Runtime {
    // An empty spec: nothing here admits requests (forward() is past admission).
    osf::config::ProxyConfig config{
        {}, osf::config::make_egress_rules("{}", osf::Spec{}, {}, {}, 0), {}, nullptr, {}};
    std::filesystem::path log_path;
    std::optional<osf::net::ProxyRuntime> ctx;

    Runtime() {
        static std::atomic<int> counter{0};
        log_path = std::filesystem::temp_directory_path() /
                   ("osf-net-test-" + std::to_string(::getpid()) + "-" +
                    std::to_string(counter.fetch_add(1)) + ".jsonl");
        config.options.fold_refusals = false; // one line per exchange, as written
    }
    ~Runtime() {
        ctx.reset();
        std::error_code ignored;
        std::filesystem::remove(log_path, ignored);
    }
    Runtime(const Runtime&) = delete;
    Runtime& operator=(const Runtime&) = delete;

    osf::net::ProxyRuntime& start() {
        if (!ctx)
            ctx.emplace(config, osf::ca::CertificateAuthority::create({}),
                        std::vector<std::string>{},
                        std::make_unique<osf::log::EgressLogWriter>(log_path.string(), false));
        return *ctx;
    }

    // The exchange lines written so far (the run's start line left out).
    std::vector<nlohmann::json> lines() const {
        std::vector<nlohmann::json> out;
        std::ifstream in(log_path);
        std::string line;
        while (std::getline(in, line)) {
            auto j = nlohmann::json::parse(line);
            if (j.contains("outcome")) out.push_back(std::move(j));
        }
        return out;
    }
};

// One exchange's two legs: the proxy's `client` stream with the scripted
// `sandbox` at its other end, its `up` stream with the scripted `server`.
struct Legs {
    asio::io_context io; // first: outlives the streams and coroutine frames
    ScriptStream client{io};
    beast::test::stream sandbox{io};
    ScriptStream up{io};
    beast::test::stream server{io};
    beast::flat_buffer client_buffer;
    osf::net::UpstreamConnection conn;
    osf::net::OutgoingRequest out;

    explicit Legs(std::size_t read_buffer_bytes) : client_buffer(read_buffer_bytes) {
        client.connect(sandbox);
        up.connect(server);
        conn.buffer.max_size(read_buffer_bytes);
    }

    osf::net::ExchangeLeg<ScriptStream, ScriptStream> leg(osf::net::Exchange& ex) {
        return {ex, client, client_buffer, conn, up, out};
    }
};

} // namespace net_test
