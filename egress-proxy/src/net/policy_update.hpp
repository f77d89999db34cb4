// A policy change on the running proxy (POST /policy on the admin port): the
// decision is config/policy_change's; this applies it. In order: a CA for the
// names no CA may sign for yet (and ca.crt rewritten with it), the new rules
// swapped in for what is admitted next, the policy lines and a checkpoint
// written to the egress log, one line on the proxy's output.
#pragma once

#include "admin/admin_server.hpp"
#include "net/proxy_runtime.hpp"

#include <cstddef>
#include <functional>
#include <string_view>

namespace osf::net {

// Ends the open tunnels and WebSockets whose destination `policy` no longer
// admits (on every worker); returns how many.
using EndRevoked = std::function<std::size_t(const policy::Policy& policy)>;

// A revoke ends the open tunnels and WebSockets to what it revoked (counted in
// its line's `ended`): once before its line, once more after the new rules are
// in force (a tunnel admitted in between).
admin::AdminAnswer update_policy(ProxyRuntime& ctx, std::string_view body,
                                 const EndRevoked& end_revoked = {});

} // namespace osf::net
