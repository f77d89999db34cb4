#include "commands/command_errors.hpp"
#include "local/state/local_layout.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <sys/wait.h>

using namespace osf::local;

TEST_CASE("state root: the variable, root's, XDG's or HOME's") {
    auto env = [](std::map<std::string, std::string> values) {
        return [values](const std::string& name) {
            auto it = values.find(name);
            return it == values.end() ? std::nullopt : std::optional<std::string>(it->second);
        };
    };
    CHECK(state_root(env({{"OSF_SANDBOX_LOCAL_STATE_DIR", "/x"}}), true) == "/x");
    CHECK(state_root(env({}), true) == "/var/lib/osf-sandbox-local");
    CHECK(state_root(env({{"XDG_STATE_HOME", "/h/s"}, {"HOME", "/h"}}), false) ==
          "/h/s/osf-sandbox-local");
    CHECK(state_root(env({{"HOME", "/h"}}), false) == "/h/.local/state/osf-sandbox-local");
    CHECK_THROWS_AS(state_root(env({}), false), osf::sandbox::SettingsError);
    CHECK_THROWS_AS(state_root(env({{"OSF_SANDBOX_LOCAL_STATE_DIR", "rel"}}), true),
                    osf::sandbox::SettingsError);
    const auto paths = sandbox_paths("/r", "0123456789ab");
    CHECK(paths.egress_socket == "/r/sandboxes/0123456789ab/run/egress.sock");
    CHECK(paths.ca() == "/r/sandboxes/0123456789ab/proxy/ca.crt");
}
