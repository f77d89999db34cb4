#include "net/policy_update.hpp"

#include "config/policy_change.hpp"
#include "log/log_record.hpp"
#include "log/policy_record.hpp"
#include "osf/atomic_file.hpp"
#include "osf/proxy_state.hpp"

#include <chrono>
#include <spdlog/spdlog.h>

namespace osf::net {

namespace {

std::string joined(const std::vector<std::string>& names) {
    std::string out;
    for (const auto& name : names)
        out += (out.empty() ? "" : " ") + name;
    return out;
}

} // namespace

admin::AdminAnswer update_policy(ProxyRuntime& ctx, std::string_view body,
                                 const EndRevoked& end_revoked) {
    const auto current = ctx.rules();
    auto change = config::plan_policy_change(*current, body, ctx.config.limits());
    if (change.status != 200) return {static_cast<unsigned>(change.status), change.message + "\n"};
    if (!change.rules)
        return {200, config::policy_answer(change, current->generation), "application/json"};

    // Names the new rules admit that no CA may sign for: a CA of their own first,
    // so that no admitted host ever lacks one.
    const auto uncovered = ctx.issuers->uncovered(change.rules->policy.permitted_names());
    if (!uncovered.empty()) {
        try {
            ctx.issuers->add(uncovered);
            osf::write_file_atomically(
                proxy_state::path_in(ctx.config.options.state_dir, proxy_state::ca_certificate),
                ctx.issuers->bundle_pem());
        } catch (const std::exception& e) {
            spdlog::error("policy change refused: no CA for {}: {}", joined(uncovered), e.what());
            return {500, std::string("cannot make a CA for the new names: ") + e.what() + "\n"};
        }
    }
    const std::string time = log::format_time(std::chrono::system_clock::now());
    const auto& d = change.difference;
    const auto generation = change.rules->generation;
    ctx.write_folded(true); // refusals counted so far belong before the change
    if (!d.allowed_hosts.empty() || !d.allowed_tools.empty())
        ctx.log->write(log::policy_line(
            {"allow", d.allowed_hosts, d.allowed_tools, change.by, generation, {}, {}}, time));
    std::size_t ended = 0;
    const bool ends = !d.revoked_hosts.empty() && end_revoked;
    if (ends) ended = end_revoked(change.rules->policy);
    if (!d.revoked_hosts.empty() || !d.revoked_tools.empty()) {
        log::PolicyRecord revoke{
            "revoke", d.revoked_hosts, d.revoked_tools, change.by, generation, {}, {}};
        if (!d.revoked_hosts.empty()) revoke.ended = ended;
        ctx.log->write(log::policy_line(revoke, time));
    }
    // After its lines: every request admitted under the new rules is logged
    // after them (one admitted before may end, and be logged, after them too;
    // its `policy` field says which rules admitted it).
    ctx.replace_rules(change.rules);
    if (ends) ended += end_revoked(change.rules->policy);
    ctx.log->checkpoint(); // the change is signed now, not at the next checkpoint
    spdlog::info("policy {}: allowed [{}] revoked [{}] tools allowed [{}] revoked [{}] by {}, "
                 "{} open tunnel(s) or WebSocket(s) ended{}",
                 generation, joined(d.allowed_hosts), joined(d.revoked_hosts),
                 joined(d.allowed_tools), joined(d.revoked_tools), change.by, ended,
                 uncovered.empty() ? "" : " (a new CA for " + joined(uncovered) + ")");
    return {200, config::policy_answer(change, generation), "application/json"};
}

} // namespace osf::net
