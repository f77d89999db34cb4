#include "osf/proxy_state.hpp"

#include <nlohmann/json.hpp>

namespace osf::proxy_state {

std::string path_in(std::string_view dir, std::string_view name) {
    std::string path(dir);
    if (!path.empty() && path.back() != '/') path += '/';
    return path + std::string(name);
}

std::string listen_json(const Listen& listen) {
    const nlohmann::ordered_json json = {
        {"proxy", listen.proxy}, {"admin", listen.admin}, {"pid", listen.pid}};
    return json.dump() + "\n";
}

std::optional<Listen> parse_listen(std::string_view text) {
    const auto json = nlohmann::json::parse(text, nullptr, false);
    if (!json.is_object()) return std::nullopt;
    const auto proxy = json.find("proxy");
    if (proxy == json.end() || !proxy->is_string()) return std::nullopt;
    Listen listen;
    listen.proxy = proxy->get<std::string>();
    if (const auto admin = json.find("admin"); admin != json.end() && admin->is_string())
        listen.admin = admin->get<std::string>();
    if (const auto pid = json.find("pid"); pid != json.end() && pid->is_number_integer())
        listen.pid = pid->get<long>();
    return listen;
}

} // namespace osf::proxy_state
