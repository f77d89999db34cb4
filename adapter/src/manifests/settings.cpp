#include "manifests/settings.hpp"

#include "manifests/image_policy.hpp"
#include "policy/policy.hpp"

#include <charconv>

namespace osf::manifests {

namespace {

std::optional<std::string> non_empty(const EnvLookup& getenv, const std::string& name) {
    auto value = getenv(name);
    if (value && value->empty()) return std::nullopt;
    return value;
}

} // namespace

Settings read_settings(const EnvLookup& getenv) {
    Settings settings;
    if (auto v = non_empty(getenv, "OSF_SANDBOX_NAMESPACE")) settings.ns = *v;
    if (auto v = non_empty(getenv, "OSF_EGRESS_PROXY_IMAGE")) settings.proxy_image = *v;
    if (auto v = non_empty(getenv, "OSF_SANDBOX_SNAPSHOT_SIZE")) settings.snapshot_size = *v;
    if (auto v = non_empty(getenv, "OSF_SECRETS_DIR")) settings.secrets_dir = *v;
    if (auto v = non_empty(getenv, "OSF_SANDBOX_START_TIMEOUT")) {
        int seconds = 0;
        const auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), seconds);
        if (ec != std::errc() || end != v->data() + v->size() || seconds <= 0)
            throw SettingsError(
                "OSF_SANDBOX_START_TIMEOUT must be a positive number of seconds, not '" + *v + "'");
        settings.start_timeout_seconds = seconds;
    }
    settings.host_aliases = non_empty(getenv, "OSF_SANDBOX_HOST_ALIASES");
    if (settings.host_aliases) {
        // The proxy would exit on a value it cannot read, long after the
        // sandbox started: refuse it here with the proxy's own words.
        const auto aliases = osf::policy::parse_host_aliases(*settings.host_aliases);
        if (!aliases.error.empty()) throw SettingsError(aliases.error);
    }
    if (auto v = non_empty(getenv, "OSF_SANDBOX_ALLOWED_IMAGES"))
        settings.allowed_images = split_image_patterns(*v);
    if (auto v = non_empty(getenv, "OSF_SANDBOX_IMAGE_PULL_POLICY")) {
        if (*v != "Always" && *v != "IfNotPresent" && *v != "Never")
            throw SettingsError("OSF_SANDBOX_IMAGE_PULL_POLICY must be Always, IfNotPresent or "
                                "Never, not '" +
                                *v + "'");
        settings.image_pull_policy = *v;
    }
    settings.openbao_addr = non_empty(getenv, "OSF_OPENBAO_ADDR");
    settings.openbao_mount = non_empty(getenv, "OSF_OPENBAO_MOUNT");
    return settings;
}

} // namespace osf::manifests
