#include "sandbox/settings.hpp"

#include "hosts/host_aliases.hpp"
#include "osf/duration.hpp"
#include "sandbox/image_policy.hpp"
#include "sandbox/labels.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace osf::sandbox {

namespace {

std::optional<std::string> non_empty(const EnvLookup& getenv, const std::string& name) {
    auto value = getenv(name);
    if (value && value->empty()) return std::nullopt;
    return value;
}

// A duration variable ("90m", "8h"); SettingsError names the variable.
std::optional<std::chrono::seconds> duration_variable(const EnvLookup& getenv,
                                                      const std::string& name) {
    const auto text = non_empty(getenv, name);
    if (!text) return std::nullopt;
    const auto parsed = osf::parse_duration(*text);
    if (const auto* problem = std::get_if<std::string>(&parsed))
        throw SettingsError(name + " '" + *text + "' " + *problem);
    return std::get<std::chrono::seconds>(parsed);
}

// A StorageClass name: a DNS subdomain (lower-case letters, digits, '-' and
// '.', starting and ending with a letter or digit).
std::string storage_class_variable(const std::string& value) {
    const bool name =
        value.size() <= 253 && std::isalnum(static_cast<unsigned char>(value.front())) &&
        std::isalnum(static_cast<unsigned char>(value.back())) &&
        value.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-.") == std::string::npos;
    if (!name)
        throw SettingsError("OSF_SANDBOX_SNAPSHOT_STORAGE_CLASS: '" + value +
                            "' is not a StorageClass name");
    return value;
}

int start_timeout_variable(const std::string& value) {
    int seconds = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), seconds);
    if (ec != std::errc() || end != value.data() + value.size() || seconds <= 0)
        throw SettingsError(
            "OSF_SANDBOX_START_TIMEOUT must be a positive number of seconds, not '" + value + "'");
    return seconds;
}

// The comma-separated items of `value`, each as written (empty ones included).
std::vector<std::string> comma_items(const std::string& value) {
    std::vector<std::string> items;
    std::size_t start = 0;
    while (start <= value.size()) {
        const auto end = std::min(value.find(',', start), value.size());
        items.push_back(value.substr(start, end - start));
        start = end + 1;
    }
    return items;
}

// OSF_SANDBOX_POD_LABELS: "key=value,key=value".
std::vector<std::pair<std::string, std::string>> pod_labels_variable(const std::string& value) {
    std::vector<std::pair<std::string, std::string>> labels;
    for (const auto& item : comma_items(value)) {
        const auto equals = item.find('=');
        if (equals == std::string::npos)
            throw SettingsError("OSF_SANDBOX_POD_LABELS: '" + item + "' is not key=value");
        const std::string key = item.substr(0, equals);
        const std::string label_value = item.substr(equals + 1);
        if (const auto problem = pod_label_problem(key, label_value))
            throw SettingsError("OSF_SANDBOX_POD_LABELS: " + *problem);
        labels.emplace_back(key, label_value);
    }
    return labels;
}

// OSF_SANDBOX_REQUIRED_TOOLS: program names, comma-separated.
std::vector<std::string> required_tools_variable(const std::string& value) {
    std::vector<std::string> tools = comma_items(value);
    for (const auto& tool : tools) {
        // A program's name: it goes into the check's shell script as it is.
        const bool plain =
            !tool.empty() && tool.size() <= 64 && tool.front() != '-' &&
            tool.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                   "0123456789._+-") == std::string::npos;
        if (!plain)
            throw SettingsError("OSF_SANDBOX_REQUIRED_TOOLS: '" + tool + "' is not a program name");
    }
    return tools;
}

// The lifetimes: OSF_SANDBOX_MAX_LIFETIME, OSF_SANDBOX_DEFAULT_LIFETIME (at most
// the maximum), OSF_SANDBOX_EXTEND_WINDOW.
void read_lifetimes(const EnvLookup& getenv, Settings& settings) {
    if (auto v = duration_variable(getenv, "OSF_SANDBOX_MAX_LIFETIME")) settings.max_lifetime = *v;
    if (auto v = duration_variable(getenv, "OSF_SANDBOX_DEFAULT_LIFETIME"))
        settings.default_lifetime = *v;
    else if (settings.default_lifetime > settings.max_lifetime)
        settings.default_lifetime = settings.max_lifetime;
    if (settings.default_lifetime > settings.max_lifetime)
        throw SettingsError("OSF_SANDBOX_DEFAULT_LIFETIME " +
                            osf::format_duration(settings.default_lifetime) +
                            " is longer than OSF_SANDBOX_MAX_LIFETIME " +
                            osf::format_duration(settings.max_lifetime));
    if (auto v = non_empty(getenv, "OSF_SANDBOX_EXTEND_WINDOW")) {
        // "0" is allowed here (no extension at all), unlike other durations.
        if (*v == "0")
            settings.extend_window = std::chrono::seconds(0);
        else
            settings.extend_window = *duration_variable(getenv, "OSF_SANDBOX_EXTEND_WINDOW");
    }
}

} // namespace

Settings read_settings(const EnvLookup& getenv) {
    Settings settings;
    if (auto v = non_empty(getenv, "OSF_SANDBOX_NAMESPACE")) settings.ns = *v;
    if (auto v = non_empty(getenv, "OSF_EGRESS_PROXY_IMAGE")) settings.proxy_image = *v;
    if (auto v = non_empty(getenv, "OSF_SANDBOX_DEFAULT_IMAGE")) {
        if (v->find_first_of("/:@") == std::string::npos)
            throw SettingsError("OSF_SANDBOX_DEFAULT_IMAGE '" + *v +
                                "' is not an image reference (it holds '/', ':' or '@')");
        settings.default_image = *v;
    }
    if (auto v = non_empty(getenv, "OSF_SANDBOX_REQUIRE_ALLOWED_IMAGES")) {
        if (*v != "true" && *v != "false")
            throw SettingsError("OSF_SANDBOX_REQUIRE_ALLOWED_IMAGES must be true or false, not '" +
                                *v + "'");
        settings.require_allowed_images = *v == "true";
    }
    if (auto v = non_empty(getenv, "OSF_SANDBOX_SNAPSHOT_SIZE")) settings.snapshot_size = *v;
    if (auto v = non_empty(getenv, "OSF_SANDBOX_SNAPSHOT_STORAGE_CLASS"))
        settings.snapshot_storage_class = storage_class_variable(*v);
    if (auto v = non_empty(getenv, "OSF_SECRETS_DIR")) settings.secrets_dir = *v;
    if (auto v = non_empty(getenv, "OSF_SANDBOX_START_TIMEOUT"))
        settings.start_timeout_seconds = start_timeout_variable(*v);
    read_lifetimes(getenv, settings);
    if (auto v = duration_variable(getenv, "OSF_SANDBOX_EXEC_TIMEOUT")) settings.exec_timeout = *v;
    if (auto v = duration_variable(getenv, "OSF_SANDBOX_GC_GRACE")) settings.gc_grace = *v;
    if (auto v = non_empty(getenv, "OSF_SANDBOX_POD_LABELS"))
        settings.pod_labels = pod_labels_variable(*v);
    if (auto v = non_empty(getenv, "OSF_SANDBOX_REQUIRED_TOOLS"))
        settings.required_tools = required_tools_variable(*v);
    settings.host_aliases = non_empty(getenv, "OSF_SANDBOX_HOST_ALIASES");
    if (settings.host_aliases) {
        // The proxy would exit on a value it cannot read, long after the
        // sandbox started: refuse it here with the proxy's own words.
        const auto aliases = osf::hosts::parse_host_aliases(*settings.host_aliases);
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
    settings.upstream_ca_bundle = non_empty(getenv, "OSF_UPSTREAM_CA_BUNDLE");
    settings.openbao_addr = non_empty(getenv, "OSF_OPENBAO_ADDR");
    settings.openbao_mount = non_empty(getenv, "OSF_OPENBAO_MOUNT");
    return settings;
}

} // namespace osf::sandbox
