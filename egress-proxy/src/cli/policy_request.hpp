// What `egress-proxy policy` sends to the running proxy and what its answer
// means: the POST /policy body, the admin address to connect to (a wildcard
// listener is reached on loopback), and the exit code of each answer. Pure.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace osf::cli {

// {"spec": <spec_text>, "by": <by>}, as POST /policy reads it.
std::string policy_body(const std::string& spec_text, const std::string& by);

struct AdminEndpoint {
    std::string host; // an address, never a name: "127.0.0.1", "::1"
    unsigned short port = 0;
    std::string unix_path; // set for "unix:PATH" (host and port then unused)
};

// listen.json's "admin" ("0.0.0.0:9090", "127.0.0.1:41234", "[::]:9090") as
// this machine reaches it: a wildcard address becomes its loopback address
// (the proxy pod listens on all of its addresses; the subcommand runs beside
// it); "unix:/PATH" is a Unix socket. nullopt when it is neither ADDR:PORT with
// a port in 1..65535 nor unix: and an absolute path.
std::optional<AdminEndpoint> admin_endpoint(std::string_view admin);

// The subcommand's exit code for the proxy's HTTP status: 0 applied (200);
// 2 the new spec was refused (400 invalid, 409 a field that cannot change
// live: the input's fault, nothing changed); 1 anything else (401 a token
// that is not the running proxy's, 500 no CA could be made).
int policy_exit_code(unsigned status);

} // namespace osf::cli
