// The files egress-proxy keeps in its --state-dir, named once for the proxy,
// its subcommands (`ca`, `log`) and sandbox-local's supervisor, which read them.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace osf::proxy_state {

inline constexpr std::string_view ca_certificate = "ca.crt"; // the runtime CA, PEM
inline constexpr std::string_view log_key = "log-key.pub";   // the checkpoints' key, PEM
inline constexpr std::string_view egress_log = "egress.jsonl";
inline constexpr std::string_view listen = "listen.json"; // written once the proxy listens
// The bearer token POST /policy on the admin port needs (0600, new at each start).
inline constexpr std::string_view admin_token = "admin-token";

// `dir`/`name`.
std::string path_in(std::string_view dir, std::string_view name);

// listen.json: where the running proxy accepts connections (the ports may be
// kernel-chosen) and its pid.
struct Listen {
    std::string proxy; // "127.0.0.1:8080", "[::1]:8080"
    std::string admin;
    long pid = 0;
};

std::string listen_json(const Listen& listen); // one line, newline-terminated
// The fields of a listen.json; nullopt when the text is not a JSON object
// whose "proxy" is a string (a missing "admin" or "pid" is empty or 0).
std::optional<Listen> parse_listen(std::string_view text);

} // namespace osf::proxy_state
