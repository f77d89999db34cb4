#include "request_fixture.hpp"
#include "sandbox/lifetime.hpp"
#include "sandbox/settings.hpp"
#include "settings_fixture.hpp"

#include <catch2/catch.hpp>
#include <map>

using namespace osf::sandbox;
using namespace std::chrono_literals;

using osf::testing::settings_with;

TEST_CASE("settings: defaults and variables") {
    std::map<std::string, std::string> env;
    EnvLookup lookup = [&](const std::string& name) -> std::optional<std::string> {
        auto it = env.find(name);
        return it == env.end() ? std::nullopt : std::optional<std::string>(it->second);
    };
    Settings defaults = read_settings(lookup);
    CHECK(defaults.ns == "default");
    CHECK(defaults.proxy_image == "ghcr.io/opensoftware/egress-proxy:0.1.0");
    CHECK(defaults.snapshot_size == "1Gi");
    CHECK(defaults.start_timeout_seconds == 300);
    CHECK(defaults.secrets_dir == "/run/secrets");
    CHECK_FALSE(defaults.host_aliases);

    env = {{"OSF_SANDBOX_NAMESPACE", "agents"},
           {"OSF_EGRESS_PROXY_IMAGE", "r/p:2"},
           {"OSF_SANDBOX_SNAPSHOT_SIZE", "5Gi"},
           {"OSF_SANDBOX_START_TIMEOUT", "30"},
           {"OSF_SECRETS_DIR", "/s"},
           {"OSF_SANDBOX_HOST_ALIASES", "a=1.2.3.4"},
           {"OSF_OPENBAO_ADDR", "http://b:8200"},
           {"OSF_OPENBAO_MOUNT", "kv"},
           {"OSF_SANDBOX_SNAPSHOT_STORAGE_CLASS", "fast-ssd.example"},
           {"OSF_UPSTREAM_CA_BUNDLE", "/etc/corp/ca.pem"}};
    Settings s = read_settings(lookup);
    CHECK(s.snapshot_storage_class == "fast-ssd.example");
    CHECK(s.upstream_ca_bundle == "/etc/corp/ca.pem");
    CHECK_FALSE(defaults.snapshot_storage_class);
    CHECK_FALSE(defaults.upstream_ca_bundle);
    CHECK(s.ns == "agents");
    CHECK(s.proxy_image == "r/p:2");
    CHECK(s.snapshot_size == "5Gi");
    CHECK(s.start_timeout_seconds == 30);
    CHECK(s.secrets_dir == "/s");
    CHECK(s.host_aliases == "a=1.2.3.4");
    CHECK(s.openbao_addr == "http://b:8200");
    CHECK(s.openbao_mount == "kv");

    for (const char* bad : {"0", "-1", "ten", "5s"}) {
        env = {{"OSF_SANDBOX_START_TIMEOUT", bad}};
        CHECK_THROWS_AS(read_settings(lookup), SettingsError);
    }
    for (const char* bad : {"Fast", "-fast", "fast-", "fa st", "fast/ssd"}) {
        env = {{"OSF_SANDBOX_SNAPSHOT_STORAGE_CLASS", bad}};
        CHECK_THROWS_WITH(read_settings(lookup), "OSF_SANDBOX_SNAPSHOT_STORAGE_CLASS: '" +
                                                     std::string(bad) +
                                                     "' is not a StorageClass name");
    }
}

TEST_CASE("lifetime variables: defaults, durations, and a default beyond the maximum") {
    const Settings defaults = settings_with({});
    CHECK(defaults.default_lifetime == 8h);
    CHECK(defaults.max_lifetime == 168h);
    CHECK(defaults.exec_timeout == 1h);
    CHECK(defaults.gc_grace == 15min);
    const Settings set = settings_with({{"OSF_SANDBOX_DEFAULT_LIFETIME", "90m"},
                                        {"OSF_SANDBOX_MAX_LIFETIME", "1d"},
                                        {"OSF_SANDBOX_EXEC_TIMEOUT", "10m"},
                                        {"OSF_SANDBOX_GC_GRACE", "1h"}});
    CHECK(set.default_lifetime == 90min);
    CHECK(set.max_lifetime == 24h);
    CHECK(set.exec_timeout == 10min);
    CHECK(set.gc_grace == 1h);
    // A maximum below the built-in default lowers the default with it.
    CHECK(settings_with({{"OSF_SANDBOX_MAX_LIFETIME", "2h"}}).default_lifetime == 2h);
    CHECK_THROWS_WITH(
        settings_with({{"OSF_SANDBOX_DEFAULT_LIFETIME", "3h"}, {"OSF_SANDBOX_MAX_LIFETIME", "2h"}}),
        "OSF_SANDBOX_DEFAULT_LIFETIME 3h is longer than OSF_SANDBOX_MAX_LIFETIME 2h");
    CHECK_THROWS_WITH(settings_with({{"OSF_SANDBOX_EXEC_TIMEOUT", "0s"}}),
                      Catch::StartsWith("OSF_SANDBOX_EXEC_TIMEOUT '0s' is zero"));
    CHECK(settings_with({{"OSF_SANDBOX_POD_LABELS", "team=a,example.com/cost=42"}}).pod_labels ==
          std::vector<std::pair<std::string, std::string>>{{"team", "a"},
                                                           {"example.com/cost", "42"}});
    CHECK_THROWS_WITH(settings_with({{"OSF_SANDBOX_POD_LABELS", "team"}}),
                      "OSF_SANDBOX_POD_LABELS: 'team' is not key=value");
    CHECK_THROWS_WITH(settings_with({{"OSF_SANDBOX_POD_LABELS", "osf.sandbox.id=x"}}),
                      "OSF_SANDBOX_POD_LABELS: osf.sandbox.id is a label the sandbox adapters set "
                      "themselves");
    CHECK_THROWS_WITH(settings_with({{"OSF_SANDBOX_GC_GRACE", "15"}}),
                      Catch::StartsWith("OSF_SANDBOX_GC_GRACE '15' has no unit"));
}
