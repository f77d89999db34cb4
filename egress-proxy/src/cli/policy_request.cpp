#include "cli/policy_request.hpp"

#include "cli/exit_codes.hpp"

#include <charconv>
#include <nlohmann/json.hpp>

namespace osf::cli {

std::string policy_body(const std::string& spec_text, const std::string& by) {
    return nlohmann::json{{"spec", spec_text}, {"by", by}}.dump();
}

std::optional<AdminEndpoint> admin_endpoint(std::string_view admin) {
    if (constexpr std::string_view prefix = "unix:"; admin.starts_with(prefix)) {
        const auto path = admin.substr(prefix.size());
        if (path.empty() || path.front() != '/') return std::nullopt;
        AdminEndpoint at;
        at.unix_path = std::string(path);
        return at;
    }
    const auto colon = admin.rfind(':');
    if (colon == std::string_view::npos || colon == 0) return std::nullopt;
    std::string host(admin.substr(0, colon));
    const auto port_text = admin.substr(colon + 1);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
        host = host.substr(1, host.size() - 2);
    else if (host.find(':') != std::string::npos)
        return std::nullopt; // an IPv6 address without its brackets
    unsigned port = 0;
    const auto* end = port_text.data() + port_text.size();
    const auto [at, ec] = std::from_chars(port_text.data(), end, port);
    if (ec != std::errc() || at != end || port == 0 || port > 65535 || host.empty())
        return std::nullopt;
    if (host == "0.0.0.0") host = "127.0.0.1";
    if (host == "::") host = "::1";
    return AdminEndpoint{host, static_cast<unsigned short>(port), {}};
}

int policy_exit_code(unsigned status) {
    if (status == 200) return exit_ok;
    if (status == 400 || status == 409) return exit_usage;
    return exit_failure;
}

} // namespace osf::cli
