// Folding a flood of refusals: the log stays bounded by window, and every
// request is still counted (the sum of count over the lines written).
#include "log/log_record.hpp"
#include "log/refusal_folding.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

using namespace osf::log;
using namespace std::chrono_literals;

namespace {

const RefusalFolder::time_point t0{std::chrono::milliseconds(1796064372000)};

LogRecord refused(std::string host, std::chrono::milliseconds at = 0ms) {
    LogRecord r;
    r.time = t0 + at;
    r.connection = 7;
    r.client = "127.0.0.1:4000";
    r.host = std::move(host);
    r.port = 443;
    r.method = "GET";
    r.path = "/x";
    r.outcome = Outcome::refused;
    r.refused_by = RefusalReason::host_not_allowed;
    r.status = 403;
    r.bytes_down = 100;
    return r;
}

// Feeds records as the proxy does; returns the whole and folded lines written.
struct Feed {
    RefusalFolder folder;
    std::vector<LogRecord> written;
    explicit Feed(FoldingLimits limits) : folder(limits) {}
    void operator()(const LogRecord& r) {
        for (auto& f : folder.take_due(r.time))
            written.push_back(std::move(f));
        if (folder.admit(r)) written.push_back(r);
    }
    void finish() {
        for (auto& f : folder.take_due(t0, true))
            written.push_back(std::move(f));
    }
    std::uint64_t requests() const {
        std::uint64_t n = 0;
        for (const auto& r : written)
            n += r.count ? r.count : 1;
        return n;
    }
};

FoldingLimits small() {
    FoldingLimits l;
    l.window = 10s;
    l.whole_per_kind = 3;
    l.whole_per_window = 5;
    l.kinds_per_window = 2;
    return l;
}

} // namespace

TEST_CASE("only what was decided before anything reached an origin may fold") {
    using F = RefusalFolder::Folding;
    struct Row {
        const char* what;
        Outcome outcome;
        std::optional<ErrorKind> error;
        bool reached_upstream;
        std::uint64_t bytes_up;
        const char* upgrade;
        F expected;
    };
    const Row rows[] = {
        {"refused before anything left", Outcome::refused, {}, false, 0, "", F::fold},
        {"refused once the answer came (secret-echo)", Outcome::refused, {}, true, 0, "", F::whole},
        {"refused mid-upload", Outcome::refused, {}, true, 10, "", F::whole},
        {"allowed", Outcome::allowed, {}, true, 0, "", F::whole},
        {"allowed, never sent (cannot be)", Outcome::allowed, {}, false, 0, "", F::whole},
        {"client left before sending", Outcome::error, ErrorKind::client_closed, false, 0, "",
         F::fold},
        {"client left after a bodiless GET went out", Outcome::error, ErrorKind::client_closed,
         true, 0, "", F::whole},
        {"client timed out after the GET went out", Outcome::error, ErrorKind::client_timeout, true,
         0, "", F::whole},
        {"client left mid-body", Outcome::error, ErrorKind::client_closed, false, 1, "", F::whole},
        {"client TLS failed", Outcome::error, ErrorKind::client_tls, false, 0, "", F::fold},
        {"CONNECT without a request", Outcome::error, ErrorKind::no_request, false, 0, "", F::fold},
        {"closed port", Outcome::error, ErrorKind::upstream_connect, false, 0, "", F::fold_named},
        {"closed port on the retry after a sent attempt", Outcome::error,
         ErrorKind::upstream_connect, true, 0, "", F::whole},
        {"name did not resolve (the name went to DNS)", Outcome::error, ErrorKind::dns, false, 0,
         "", F::whole},
        {"upstream TLS", Outcome::error, ErrorKind::upstream_tls, false, 0, "", F::whole},
        {"upstream reset", Outcome::error, ErrorKind::upstream_reset, true, 0, "", F::whole},
        {"upstream timeout", Outcome::error, ErrorKind::upstream_timeout, true, 0, "", F::whole},
        {"aborted", Outcome::error, ErrorKind::aborted, false, 0, "", F::whole},
        {"a WebSocket that ended", Outcome::error, ErrorKind::client_closed, false, 0, "websocket",
         F::whole},
    };
    for (const auto& row : rows) {
        INFO(row.what);
        LogRecord r = refused("a.example");
        r.outcome = row.outcome;
        if (row.outcome != Outcome::refused) r.refused_by.reset();
        r.error = row.error;
        r.reached_upstream = row.reached_upstream;
        r.bytes_up = row.bytes_up;
        r.upgrade = row.upgrade;
        CHECK(RefusalFolder::folding_of(r) == row.expected);
        CHECK(RefusalFolder::foldable(r) == (row.expected != F::whole));
    }
    LogRecord folded = refused("a.example");
    folded.count = 3;
    CHECK(RefusalFolder::folding_of(folded) == F::whole); // already a folded line
}

TEST_CASE("connections to a closed port fold per host, and past the kinds stay whole") {
    Feed feed(small());
    auto closed = [](std::string host, std::chrono::milliseconds at) {
        LogRecord r = refused(std::move(host), at);
        r.outcome = Outcome::error;
        r.refused_by.reset();
        r.error = ErrorKind::upstream_connect;
        r.status = 502;
        return r;
    };
    for (int i = 0; i < 1000; ++i)
        feed(closed("one.example", std::chrono::milliseconds(i)));
    CHECK(feed.written.size() == 3); // bounded: the rest counted
    for (int i = 0; i < 10; ++i)
        feed(closed("h" + std::to_string(i) + ".example", 1s));
    feed.finish();
    CHECK(feed.requests() == 1010);
    for (const auto& line : feed.written)
        CHECK_FALSE(line.host.empty()); // never the host-less line of the rest
}

TEST_CASE("repeated refusals of one kind: the first whole, the rest in one counted line") {
    Feed feed(small());
    for (int i = 0; i < 100; ++i)
        feed(refused("a.example", std::chrono::milliseconds(i)));
    REQUIRE(feed.written.size() == 3);
    feed.finish();
    REQUIRE(feed.written.size() == 4);
    const LogRecord& folded = feed.written.back();
    CHECK(folded.count == 97);
    CHECK(folded.host == "a.example");
    CHECK(folded.path.empty());
    CHECK(*folded.since == t0 + 3ms);
    CHECK(folded.time == t0 + 99ms);
    CHECK(folded.bytes_down == 9700);
    CHECK(feed.requests() == 100);
    const auto line = nlohmann::json::parse(to_json_line(folded));
    CHECK(line["count"] == 97);
    CHECK(line["since"] == "2026-11-30T18:46:12.003Z");
    CHECK(line["refusedBy"] == "host-not-allowed");
}

TEST_CASE("a window that ends writes its folded lines and starts afresh") {
    Feed feed(small());
    for (int i = 0; i < 10; ++i)
        feed(refused("a.example", std::chrono::milliseconds(i)));
    CHECK(feed.written.size() == 3);
    feed(refused("a.example", 10s)); // the next window: its folded line first, then whole again
    REQUIRE(feed.written.size() == 5);
    CHECK(feed.written[3].count == 7);
    CHECK(feed.written[4].count == 0);
    CHECK(feed.requests() == 11);
    RefusalFolder folder(small());
    CHECK(folder.take_due(t0 + 1h).empty()); // nothing seen, nothing due
}

TEST_CASE("a flood over many hosts stays bounded per window and loses no count") {
    Feed feed(small());
    for (int i = 0; i < 1000; ++i)
        feed(refused("h" + std::to_string(i) + ".example", std::chrono::milliseconds(i)));
    feed.finish();
    // 5 whole (one per new host), 2 kinds folded of their own, one line for the rest.
    REQUIRE(feed.written.size() == 5 + 2 + 1);
    CHECK(feed.written[5].host == "h5.example");
    CHECK(feed.written[6].host == "h6.example");
    const LogRecord& rest = feed.written[7];
    CHECK(rest.host.empty());
    CHECK(rest.method.empty());
    CHECK(rest.port == 0);
    CHECK(rest.count == 1000 - 7);
    CHECK(feed.requests() == 1000);
}

TEST_CASE("kinds differ by reason, tool and secrets; other lines pass untouched") {
    Feed feed(small());
    LogRecord tool = refused("mcp.example");
    tool.refused_by = RefusalReason::mcp_tool;
    tool.mcp_server = "docs";
    tool.tool = "delete";
    LogRecord other_tool = tool;
    other_tool.tool = "drop";
    for (int i = 0; i < 4; ++i) {
        feed(tool);
        feed(other_tool);
    }
    LogRecord allowed = refused("a.example");
    allowed.outcome = Outcome::allowed;
    allowed.refused_by.reset();
    for (int i = 0; i < 20; ++i)
        feed(allowed);
    feed.finish();
    std::map<std::string, std::uint64_t> refusals_by_tool;
    std::size_t allowed_lines = 0;
    for (const auto& r : feed.written) {
        if (r.outcome == Outcome::allowed)
            ++allowed_lines;
        else
            refusals_by_tool[r.tool] += r.count ? r.count : 1;
    }
    CHECK(allowed_lines == 20);
    CHECK(refusals_by_tool == std::map<std::string, std::uint64_t>{{"delete", 4}, {"drop", 4}});
}

TEST_CASE("SOCKS5 refusals fold apart from CONNECT refusals, and keep their way in") {
    Feed feed({60s, 1, 100, 100});
    for (int i = 0; i < 5; ++i) {
        auto connect = refused("github.com");
        connect.method = "CONNECT";
        connect.port = 22;
        auto socks = connect;
        socks.scheme = "tcp";
        socks.via = "socks5";
        socks.status = 0;
        socks.refused_by = RefusalReason::tcp_destination_not_allowed;
        feed(connect);
        feed(socks);
    }
    feed.finish();
    CHECK(feed.requests() == 10);
    REQUIRE(feed.written.size() == 4); // one whole line and one folded line of each kind
    std::size_t socks_lines = 0;
    for (const auto& r : feed.written)
        if (r.via == "socks5") {
            ++socks_lines;
            CHECK(r.scheme == "tcp");
            CHECK(to_json_line(r).find(R"("via":"socks5")") != std::string::npos);
        }
    CHECK(socks_lines == 2);
}
