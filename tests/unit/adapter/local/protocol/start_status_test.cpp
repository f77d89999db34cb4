#include "local/protocol/start_status.hpp"

#include <catch2/catch.hpp>

using namespace osf::local;

TEST_CASE("start status: the lines create reads from the supervisor") {
    struct Row {
        const char* line;
        StartStatus kind;
        const char* message;
    };
    const Row rows[] = {
        {"ready", StartStatus::Ready, ""},
        {"warning: no pids cgroup here", StartStatus::Warning, "no pids cgroup here"},
        {"warning: ", StartStatus::Warning, ""},
        {"error: the egress proxy exited: bad spec", StartStatus::Error,
         "the egress proxy exited: bad spec"},
        {"error: warning: nested", StartStatus::Error, "warning: nested"},
        // Only the exact words: anything else the supervisor's log may hold is ignored.
        {"ready ", StartStatus::Other, "ready "},
        {"Ready", StartStatus::Other, "Ready"},
        {"readyish", StartStatus::Other, "readyish"},
        {"warning:no space", StartStatus::Other, "warning:no space"},
        {"ERROR: shouted", StartStatus::Other, "ERROR: shouted"},
        {"", StartStatus::Other, ""},
    };
    for (const auto& row : rows) {
        INFO(row.line);
        const StatusLine parsed = parse_status_line(row.line);
        CHECK(parsed.kind == row.kind);
        CHECK(parsed.message == row.message);
    }
}

TEST_CASE("start status: what the supervisor writes reads back as written") {
    for (const auto kind : {StartStatus::Ready, StartStatus::Warning, StartStatus::Error}) {
        const std::string message = kind == StartStatus::Ready ? "" : "cannot place: no cgroup";
        const StatusLine parsed = parse_status_line(status_line(kind, message));
        CHECK(parsed.kind == kind);
        CHECK(parsed.message == message);
    }
    CHECK(status_line(StartStatus::Ready) == "ready");
    CHECK(status_line(StartStatus::Warning, "w") == "warning: w");
    CHECK(status_line(StartStatus::Error, "e") == "error: e");
}
