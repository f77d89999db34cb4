// An exchange's egress log line: written exactly once, on every way out,
// including the ones that never call finish (an early return, a coroutine
// destroyed at shutdown). Read back from the log file the runtime writes.
#include "net/exchange.hpp"
#include "pipeline_fixture.hpp"

#include <catch2/catch.hpp>
#include <string>

using namespace net_test;
using osf::ErrorKind;
using osf::Outcome;
using osf::RefusalReason;
using osf::net::Exchange;

namespace {
const osf::net::ConnectionInfo info{3, "10.0.0.2:40002"};
}

TEST_CASE("an exchange ended by finish writes one line, whatever follows") {
    Runtime runtime;
    auto& ctx = runtime.start();
    {
        Exchange ex(ctx, info, "GET");
        ex.rec.host = "example.com";
        ex.rec.path = "/search?q=secret";
        ex.finish(Outcome::allowed, 200);
        CHECK(ex.finished());
        ex.finish_error(ErrorKind::client_closed, 200); // too late: already on record
        ex.finish(Outcome::refused, 403);
    }
    const auto lines = runtime.lines();
    REQUIRE(lines.size() == 1);
    CHECK(lines[0]["outcome"] == "allowed");
    CHECK(lines[0]["status"] == 200);
    CHECK(lines[0]["method"] == "GET");
    CHECK(lines[0]["connection"] == 3);
    CHECK(lines[0]["client"] == "10.0.0.2:40002");
    CHECK(lines[0]["path"] == "/search"); // the query string never reaches the log
    CHECK_FALSE(lines[0].contains("error"));
    CHECK(ctx.metrics.allowed.load() == 1);
    CHECK(ctx.metrics.errors.load() == 0);
}

TEST_CASE("an exchange left without a line writes one as an error when it goes") {
    Runtime runtime;
    auto& ctx = runtime.start();
    SECTION("nothing recorded: aborted, no status") {
        { Exchange ex(ctx, info, "GET"); }
        const auto lines = runtime.lines();
        REQUIRE(lines.size() == 1);
        CHECK(lines[0]["outcome"] == "error");
        CHECK(lines[0]["error"] == "aborted");
        CHECK(lines[0]["status"] == 0);
    }
    SECTION("the reason recorded so far, and the status the client already has") {
        {
            Exchange ex(ctx, info, "GET");
            ex.rec.error = ErrorKind::upstream_reset;
            ex.rec.status = 200;
            ex.responded = true;
        }
        const auto lines = runtime.lines();
        REQUIRE(lines.size() == 1);
        CHECK(lines[0]["error"] == "upstream-reset");
        CHECK(lines[0]["status"] == 200);
    }
    CHECK(ctx.metrics.errors.load() == 1);
}

TEST_CASE("finish_error records its kind and the status the client got") {
    Runtime runtime;
    auto& ctx = runtime.start();
    {
        Exchange ex(ctx, info, "POST");
        ex.finish_error(ErrorKind::client_timeout, 0);
    }
    const auto lines = runtime.lines();
    REQUIRE(lines.size() == 1);
    CHECK(lines[0]["outcome"] == "error");
    CHECK(lines[0]["error"] == "client-timeout");
    CHECK(lines[0]["status"] == 0);
}

TEST_CASE("an MCP call refused in place is logged refused, though its answer was allowed") {
    Runtime runtime;
    auto& ctx = runtime.start();
    {
        Exchange ex(ctx, info, "POST");
        ex.refused_in_place = RefusalReason::mcp_tool; // the server got a ping instead of the call
        ex.finish(Outcome::allowed, 200);
    }
    const auto lines = runtime.lines();
    REQUIRE(lines.size() == 1);
    CHECK(lines[0]["outcome"] == "refused");
    CHECK(lines[0]["refusedBy"] == "mcp-tool");
    CHECK(ctx.metrics.allowed.load() == 0);
}

TEST_CASE("a CONNECT carried by the requests inside it has no line of its own") {
    Runtime runtime;
    runtime.start();
    {
        Exchange ex(*runtime.ctx, info, "CONNECT");
        ex.carried_by_requests();
        CHECK(ex.finished());
        ex.finish(Outcome::allowed, 200); // does nothing: not to be logged
    }
    CHECK(runtime.lines().empty());
}
