// The local egress proxy's command line: what the supervisor runs and
// `create --dry-run` shows.
#include "local/proxy_launch.hpp"

#include <catch2/catch.hpp>
#include <map>

using namespace osf::local;

TEST_CASE("the proxy listens on kernel-chosen loopback ports and never reaches another sandbox's") {
    const auto paths = sandbox_paths("/var/lib/osf-sandbox", "abc123def456");
    const auto argv = proxy_argv("/usr/bin/egress-proxy", paths, "/var/lib/osf-sandbox");
    REQUIRE(argv.size() % 2 == 1);
    CHECK(argv.front() == "/usr/bin/egress-proxy");
    std::map<std::string, std::string> flags;
    for (std::size_t i = 1; i + 1 < argv.size(); i += 2)
        CHECK(flags.emplace(argv[i], argv[i + 1]).second);
    CHECK(flags.size() == 5);
    CHECK(flags["--listen"] == "127.0.0.1:0");
    CHECK(flags["--admin-listen"] == "127.0.0.1:0");
    CHECK(flags["--spec"] == paths.spec);
    CHECK(flags["--state-dir"] == paths.proxy_state);
    CHECK(flags["--peer-listeners"] == listeners_dir("/var/lib/osf-sandbox"));
    CHECK(paths.spec.starts_with(paths.dir + "/"));
    CHECK(paths.proxy_state.starts_with(paths.dir + "/"));
}
