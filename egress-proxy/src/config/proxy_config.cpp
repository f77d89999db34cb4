#include "config/proxy_config.hpp"

#include "config/upstream_tls.hpp"
#include "osf/whole_file.hpp"
#include "secrets/aws_secret_loader.hpp"
#include "secrets/http_get.hpp"

#include <boost/system/system_error.hpp>
#include <charconv>
#include <fstream>
#include <spdlog/spdlog.h>

namespace osf::config {

std::variant<ListenAddress, std::string> parse_listen(std::string_view text) {
    if (text.starts_with(fd_listen_prefix)) {
        const auto number = text.substr(fd_listen_prefix.size());
        int fd = -1;
        const auto [ptr, ec] = std::from_chars(number.data(), number.data() + number.size(), fd);
        if (ec != std::errc() || ptr != number.data() + number.size() || fd < 3)
            return "\"" + std::string(text) +
                   "\" does not name a descriptor of 3 or more after fd:";
        ListenAddress inherited;
        inherited.inherited_fd = fd;
        return inherited;
    }
    if (text.starts_with(unix_listen_prefix)) {
        const auto path = text.substr(unix_listen_prefix.size());
        if (path.empty() || path.front() != '/')
            return "\"" + std::string(text) + "\" does not name an absolute path after unix:";
        if (path.size() > max_unix_path_bytes)
            return "\"" + std::string(text) + "\" is longer than a Unix socket path may be (" +
                   std::to_string(max_unix_path_bytes) + " bytes)";
        if (path.find('\0') != std::string_view::npos)
            return "\"" + std::string(text) + "\" holds a NUL byte";
        ListenAddress unix_at;
        unix_at.unix_path = std::string(path);
        return unix_at;
    }
    const auto colon = text.rfind(':');
    if (colon == std::string_view::npos || colon == 0)
        return "\"" + std::string(text) + "\" is not ADDRESS:PORT (for example 0.0.0.0:8080)";
    std::string_view host = text.substr(0, colon), port = text.substr(colon + 1);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
        host = host.substr(1, host.size() - 2);
    unsigned value = 0;
    const auto [ptr, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
    if (ec != std::errc() || ptr != port.data() + port.size() || value > 65535)
        return "\"" + std::string(text) + "\" has a bad port (0-65535)";
    boost::system::error_code bad;
    boost::asio::ip::make_address(std::string(host), bad);
    if (bad) return "\"" + std::string(text) + "\" does not start with an IP address";
    return ListenAddress{std::string(host), static_cast<std::uint16_t>(value), {}};
}

std::variant<ProxyConfig, std::string> load_config(ProxyOptions options, const Getenv& getenv,
                                                   const secrets::SourceEnvironment& sources) {
    const auto& limits = options.limits;
    if (limits.header_timeout.count() <= 0 || limits.idle_timeout.count() <= 0 ||
        limits.upstream_timeout.count() <= 0 || options.grace.count() < 0 ||
        options.checkpoint_interval.count() < 0)
        return "--header-timeout, --idle-timeout and --upstream-timeout must be positive, "
               "--grace and --checkpoint-seconds not negative";
    for (const auto& [flag, value] : {std::pair{"--listen", &options.listen},
                                      std::pair{"--admin-listen", &options.admin_listen}}) {
        const auto listen = parse_listen(*value);
        if (const auto* bad = std::get_if<std::string>(&listen)) return flag + (" " + *bad);
    }
    if (options.handoff_fd != -1 && options.handoff_fd < 3)
        return "--handoff-fd " + std::to_string(options.handoff_fd) +
               " does not name a descriptor of 3 or more";
    if (options.listen == options.admin_listen && !options.listen.ends_with(":0"))
        return "--admin-listen must differ from --listen (" + options.listen + ")";

    if (options.spec_path.empty()) return "--spec is required";
    const auto text = osf::read_whole_file(options.spec_path);
    if (!text) return "cannot read spec " + options.spec_path;
    // A restarted egress pod reads a spec a revoke may have narrowed below a
    // secret's binding: that binding is only said, not refused.
    auto parsed = osf::parse_running_spec(*text);
    if (!parsed.ok()) {
        std::string line =
            "invalid spec " + options.spec_path + ": " + parsed.errors.front().to_string();
        if (parsed.errors.size() > 1)
            line += " (and " + std::to_string(parsed.errors.size() - 1) + " more)";
        return line;
    }
    osf::Spec spec = std::move(*parsed.spec);
    for (const auto& error : osf::parse_spec(*text).errors)
        spdlog::warn("spec {}: {} (a secret bound there never goes there)", options.spec_path,
                     error.to_string());

    hosts::HostAliases aliases;
    if (auto text = getenv("OSF_SANDBOX_HOST_ALIASES"); text && !text->empty()) {
        auto result = hosts::parse_host_aliases(*text);
        // The parser's message already names the variable.
        if (!result.error.empty()) return result.error;
        aliases = std::move(result.aliases);
    }
    if (options.upstream_ca.empty())
        if (auto bundle = getenv("OSF_UPSTREAM_CA_BUNDLE")) options.upstream_ca = *bundle;
    if (!options.upstream_ca.empty() && !std::ifstream(options.upstream_ca))
        return "cannot read upstream CA bundle " + options.upstream_ca;
    std::shared_ptr<boost::asio::ssl::context> upstream_tls;
    try {
        upstream_tls = make_upstream_tls(options.upstream_ca);
    } catch (const boost::system::system_error& e) {
        return "cannot load upstream CA bundle " + options.upstream_ca + ": " + e.code().message();
    }

    auto source_env = sources;
    source_env.extra_ca_bundle = options.upstream_ca;
    auto loaded = secrets::SecretStore::load(spec, source_env);
    if (!loaded.error.empty()) return loaded.error;
    auto aws = secrets::load_aws_secrets(spec, source_env, secrets::http_get);
    if (!aws.error.empty()) return aws.error;

    auto rules = make_egress_rules(*text, std::move(spec), std::move(aliases), options.limits, 0);
    return ProxyConfig{std::move(options), std::move(rules),
                       std::make_shared<secrets::LiveSecrets>(std::move(loaded.store)),
                       std::move(upstream_tls), std::move(aws.keys)};
}

} // namespace osf::config
