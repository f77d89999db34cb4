// A policy change on the running proxy (POST /policy on the admin port): the
// decision is config/policy_change's; this applies it. In order: a CA for the
// names no CA may sign for yet (and ca.crt rewritten with it), the new rules
// swapped in for what is admitted next, the policy lines and a checkpoint
// written to the egress log, one line on the proxy's output.
#pragma once

#include "admin/admin_server.hpp"
#include "net/proxy_runtime.hpp"

#include <string_view>

namespace osf::net {

admin::AdminAnswer update_policy(ProxyRuntime& ctx, std::string_view body);

} // namespace osf::net
