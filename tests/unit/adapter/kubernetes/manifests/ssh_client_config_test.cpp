#include "kubernetes/manifests/ssh_client_config.hpp"

#include <catch2/catch.hpp>

using namespace osf::kubernetes::manifests;

TEST_CASE("kubernetes ssh config: every host through the proxy's HTTP port by bash's /dev/tcp") {
    const std::string config = ssh_client_config("osf-sandbox-0123456789ab-egress", 8080);
    CHECK(config.starts_with("# Written by sandbox-kubernetes"));
    const auto line = config.find("Host *\n    ProxyCommand /bin/bash -c '");
    REQUIRE(line != std::string::npos);
    // The proxy, then ssh's own tokens, as bash's $0..$3.
    CHECK(config.ends_with("' osf-sandbox-0123456789ab-egress 8080 %h %p\n"));
    const std::size_t open = config.find("-c '") + 4;
    const std::string script = config.substr(open, config.rfind('\'') - open);
    // In single quotes for the shell ssh starts: none inside.
    CHECK(script.find('\'') == std::string::npos);
    CHECK(script.find("exec 3<>/dev/tcp/$0/$1") == 0);
    // ssh expands %h and %p only: every other % is doubled.
    for (std::size_t at = script.find('%'); at != std::string::npos;
         at = script.find('%', at + 2)) {
        INFO(script.substr(at, 8));
        REQUIRE(at + 1 < script.size());
        CHECK(script[at + 1] == '%');
    }
    CHECK(script.find("CONNECT %%s:%%s HTTP/1.1") != std::string::npos);
    // Nothing weakens the host key check.
    CHECK(config.find("StrictHostKeyChecking") == std::string::npos);
}
