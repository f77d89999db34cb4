// The proxy's own answers, written to an in-memory sandbox stream: a refusal
// (logged first, then answered), a failure upstream (502/504 while the sandbox
// has no answer yet, a cut connection once it has one).
#include "net/local_reply.hpp"
#include "pipeline_fixture.hpp"

#include <boost/beast/http.hpp>
#include <catch2/catch.hpp>
#include <string>

namespace http = boost::beast::http;
using namespace net_test;
using osf::ErrorKind;
using osf::RefusalReason;
using osf::net::Exchange;

namespace {

struct Reply {
    Runtime runtime;
    osf::net::ConnectionInfo info{5, "10.0.0.2:40003"};
    asio::io_context io;
    ScriptStream client{io};
    beast::test::stream sandbox{io};
    std::optional<Exchange> ex;

    Reply() {
        runtime.start();
        client.connect(sandbox);
        ex.emplace(*runtime.ctx, info, "GET");
        ex->rec.host = "blocked.example";
        ex->client_keep = true;
    }

    template <class T> T run(asio::awaitable<T> task) {
        auto result = spawn(io, std::move(task));
        step(io);
        REQUIRE(*result);
        return **result;
    }
    std::string sandbox_got() const { return std::string(sandbox.str()); }
    nlohmann::json line() const { // a copy: a missing field reads as null
        const auto lines = runtime.lines();
        REQUIRE(lines.size() == 1);
        return lines[0];
    }
};

} // namespace

TEST_CASE("a refusal: logged, then answered with its reason and the host") {
    Reply r;
    const bool keep = r.run(osf::net::refuse(r.client, *r.ex, http::status::forbidden,
                                             RefusalReason::host_not_allowed, "not in the spec"));
    CHECK(keep); // nothing of the request left unread: the connection goes on
    const auto answer = parse_answer(r.sandbox_got());
    REQUIRE(answer);
    CHECK(answer->result() == http::status::forbidden);
    CHECK((*answer)["X-Osf-Refused-By"] == "host-not-allowed");
    CHECK((*answer)[http::field::cache_control] == "no-store");
    CHECK((*answer)[http::field::content_type] == "text/plain; charset=utf-8");
    CHECK(answer->body() == "egress-proxy refused blocked.example: not in the spec\n");
    CHECK(answer->keep_alive());
    auto line = r.line();
    CHECK(line["outcome"] == "refused");
    CHECK(line["refusedBy"] == "host-not-allowed");
    CHECK(line["status"] == 403);
}

TEST_CASE("a refusal is on record even when the sandbox is gone before its answer") {
    Reply r;
    hang_up(r.sandbox);
    const bool keep = r.run(osf::net::refuse(r.client, *r.ex, http::status::forbidden,
                                             RefusalReason::limit, "too large"));
    CHECK_FALSE(keep);
    CHECK(r.line()["refusedBy"] == "limit");
}

TEST_CASE("an HTTP/1.0 sandbox gets an HTTP/1.0 answer that says keep-alive") {
    Reply r;
    r.ex->client_version = 10;
    r.run(osf::net::refuse(r.client, *r.ex, http::status::forbidden,
                           RefusalReason::host_not_allowed, "no"));
    CHECK(r.sandbox_got().rfind("HTTP/1.0 403 Forbidden\r\n", 0) == 0);
    CHECK(r.sandbox_got().find("Connection: keep-alive\r\n") != std::string::npos);
}

TEST_CASE("a failure upstream before any answer: 502 or 504, the connection closed") {
    const auto check = [](ErrorKind error, int status, const char* kind) {
        INFO(kind);
        Reply r;
        const bool go_on = r.run(osf::net::fail(r.client, *r.ex, error, "what happened"));
        CHECK_FALSE(go_on);
        CHECK_FALSE(r.ex->client_keep);
        const auto answer = parse_answer(r.sandbox_got());
        REQUIRE(answer);
        CHECK(answer->result_int() == static_cast<unsigned>(status));
        CHECK_FALSE(answer->keep_alive());
        CHECK(answer->body() == "egress-proxy: " + std::string(kind) + ": what happened\n");
        auto line = r.line();
        CHECK(line["outcome"] == "error");
        CHECK(line["error"] == kind);
        CHECK(line["status"] == status);
    };
    check(ErrorKind::upstream_reset, 502, "upstream-reset");
    check(ErrorKind::upstream_timeout, 504, "upstream-timeout");
    check(ErrorKind::dns, 502, "dns");
}

TEST_CASE("a failure once the sandbox has the answer's head: cut, no second answer") {
    Reply r;
    r.ex->responded = true;
    r.ex->rec.status = 200;
    const bool go_on =
        r.run(osf::net::fail(r.client, *r.ex, ErrorKind::upstream_reset, "cut mid-body"));
    CHECK_FALSE(go_on);
    CHECK(r.sandbox_got().empty());
    auto line = r.line();
    CHECK(line["error"] == "upstream-reset");
    CHECK(line["status"] == 200);
}
