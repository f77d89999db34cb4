#include "cli/policy_command.hpp"

#include "cli/exit_codes.hpp"
#include "cli/policy_request.hpp"
#include "osf/proxy_state.hpp"
#include "osf/whole_file.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <iostream>
#include <sstream>

namespace osf::cli {

namespace {

// The spec the proxy takes: POST /policy's body is at most 2 MiB
// (config::max_policy_request_bytes) and the spec is most of it.
constexpr std::size_t kMaxSpecBytes = 2 * 1024 * 1024 - 64 * 1024;

// One line of the proxy's answer, for stderr.
std::string one_line(std::string text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r'))
        text.pop_back();
    for (char& c : text)
        if (c == '\n' || c == '\r') c = ' ';
    return text;
}

struct Answer {
    unsigned status = 0;
    std::string body;
};

Answer post(const AdminEndpoint& at, const std::string& token, const std::string& body,
            std::chrono::seconds timeout) {
    namespace beast = boost::beast;
    namespace http = beast::http;
    using boost::asio::ip::tcp;
    boost::asio::io_context io;
    beast::tcp_stream stream(io);
    stream.expires_after(timeout);
    if (!at.unix_path.empty()) {
        // The Unix connection in the tcp_stream, as the proxy's own listener
        // hands it on (admin/stream_listener.hpp): only read and written.
        boost::asio::local::stream_protocol::socket local(io);
        local.connect(boost::asio::local::stream_protocol::endpoint(at.unix_path));
        stream.socket().assign(tcp::v4(), local.release());
    } else {
        stream.connect(tcp::endpoint(boost::asio::ip::make_address(at.host), at.port));
    }
    http::request<http::string_body> request{http::verb::post, "/policy", 11};
    request.set(http::field::host, !at.unix_path.empty() ? std::string("localhost")
                                   : at.host.find(':') == std::string::npos ? at.host
                                                                            : "[" + at.host + "]");
    request.set(http::field::authorization, "Bearer " + token);
    request.set(http::field::content_type, "application/json");
    request.keep_alive(false);
    request.body() = body;
    request.prepare_payload();
    http::write(stream, request);
    beast::flat_buffer buffer;
    http::response_parser<http::string_body> parser;
    parser.body_limit(1024 * 1024);
    http::read(stream, buffer, parser);
    beast::error_code ignored;
    stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
    return {parser.get().result_int(), parser.get().body()};
}

} // namespace

PolicyCommand::PolicyCommand(CLI::App& app, std::string& state_dir) : state_dir_(state_dir) {
    policy_ = app.add_subcommand(
        "policy", "Give the running proxy a new spec (on stdin) through its admin port: only "
                  "egress and the MCP servers' tools may differ; prints its JSON answer");
    policy_->add_option("--state-dir", state_dir_, "The running proxy's state directory")
        ->capture_default_str();
    policy_->add_option("--by", by_, "Who asks, for the egress log's policy line");
    policy_->add_option("--timeout", timeout_seconds_, "Seconds to wait for the proxy's answer")
        ->capture_default_str()
        ->check(CLI::Range(1, 3600));
}

std::optional<int> PolicyCommand::run() const {
    if (!policy_->parsed()) return std::nullopt;
    std::string spec;
    {
        std::ostringstream text;
        text << std::cin.rdbuf();
        spec = text.str();
    }
    if (spec.find_first_not_of(" \t\r\n") == std::string::npos) {
        std::cerr << "egress-proxy: policy reads the new spec on stdin; it was empty\n";
        return exit_usage;
    }
    if (spec.size() > kMaxSpecBytes) {
        std::cerr << "egress-proxy: the new spec is over " << kMaxSpecBytes << " bytes\n";
        return exit_usage;
    }
    const auto listen_path = proxy_state::path_in(state_dir_, proxy_state::listen);
    const auto listen_text = osf::read_whole_file(listen_path);
    const auto listen = listen_text ? proxy_state::parse_listen(*listen_text) : std::nullopt;
    if (!listen) {
        std::cerr << "egress-proxy: no running proxy named in " << listen_path << "\n";
        return exit_failure;
    }
    const auto at = admin_endpoint(listen->admin);
    if (!at) {
        std::cerr << "egress-proxy: " << listen_path << " names no admin address\n";
        return exit_failure;
    }
    const auto token_path = proxy_state::path_in(state_dir_, proxy_state::admin_token);
    auto token = osf::read_whole_file(token_path);
    while (token && !token->empty() && (token->back() == '\n' || token->back() == '\r'))
        token->pop_back();
    if (!token || token->empty()) {
        std::cerr << "egress-proxy: cannot read the admin token " << token_path << "\n";
        return exit_failure;
    }
    Answer answer;
    try {
        answer = post(*at, *token, policy_body(spec, by_), std::chrono::seconds(timeout_seconds_));
    } catch (const std::exception& e) {
        std::cerr << "egress-proxy: the proxy's admin port " << listen->admin
                  << " did not answer: " << e.what() << "\n";
        return exit_failure;
    }
    const int code = policy_exit_code(answer.status);
    if (code == exit_ok) {
        std::cout << answer.body;
        if (!answer.body.empty() && answer.body.back() != '\n') std::cout << '\n';
        std::cout.flush();
        return code;
    }
    std::cerr << "egress-proxy: the proxy refused the new policy (" << answer.status
              << "): " << one_line(answer.body) << "\n";
    return code;
}

} // namespace osf::cli
