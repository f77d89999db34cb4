#include "log/refusal_folding.hpp"

#include <algorithm>

namespace osf::log {

RefusalFolder::RefusalFolder(FoldingLimits limits) : limits_(limits) {}

RefusalFolder::Folding RefusalFolder::folding_of(const LogRecord& r) {
    // A folded line already; or a request that went out (a bodiless GET is
    // whole once its head is sent, whatever happened to its answer).
    if (r.count > 0 || r.reached_upstream || r.bytes_up != 0) return Folding::whole;
    if (r.outcome == Outcome::refused) return Folding::fold;
    if (r.outcome != Outcome::error || !r.upgrade.empty()) return Folding::whole;
    switch (r.error.value_or(ErrorKind::aborted)) {
    case ErrorKind::client_closed:
    case ErrorKind::client_timeout:
    case ErrorKind::client_tls:
    case ErrorKind::no_request:
        return Folding::fold;
    case ErrorKind::upstream_connect: // refused by a closed port: no byte of the request left
        return Folding::fold_named;
    default:
        return Folding::whole; // the proxy reached an upstream (or DNS): each attempt is evidence
    }
}

RefusalFolder::Kind RefusalFolder::kind_of(const LogRecord& r) {
    const int reason = r.outcome == Outcome::refused
                           ? static_cast<int>(r.refused_by.value_or(RefusalReason::bad_request))
                           : static_cast<int>(r.error.value_or(ErrorKind::aborted));
    return {static_cast<int>(r.outcome), reason, r.host, r.port,
            // A SOCKS5 refusal and a CONNECT's are kinds apart.
            r.via.empty() ? r.scheme : r.scheme + "+" + r.via, r.method, r.mcp_server, r.tool,
            r.secrets, r.rule};
}

void RefusalFolder::fold_into(Tally& tally, const LogRecord& r) {
    LogRecord& f = tally.folded;
    if (f.count == 0) {
        f = r;
        f.path.clear(); // many paths: the whole lines before it show some
        f.mcp_method.clear();
        f.since = r.time;
        f.bytes_down = 0;
        f.duration_ms = 0;
        f.mcp_events_dropped = -1;
        f.tools_removed = -1;
        f.rule_index = -1; // a rule keeps its name across policy changes, not its place
        tally.order = folded_kinds_++;
    }
    ++f.count;
    f.time = std::max(f.time, r.time);
    f.since = std::min(*f.since, r.time);
    f.connection = r.connection;
    f.client = r.client;
    f.status = r.status;
    f.bytes_down += r.bytes_down;
    f.duration_ms = std::max(f.duration_ms, r.duration_ms);
    f.policy = std::max(f.policy, r.policy); // the newest rules among those it counts
}

bool RefusalFolder::admit(const LogRecord& r) {
    const Folding folding = folding_of(r);
    if (folding == Folding::whole) return true;
    if (!open_) {
        open_ = true;
        window_start_ = r.time;
    }
    Kind kind = kind_of(r);
    auto it = tallies_.find(kind);
    if (whole_ < limits_.whole_per_window &&
        (it == tallies_.end() || it->second.whole < limits_.whole_per_kind)) {
        if (it == tallies_.end()) it = tallies_.emplace(std::move(kind), Tally{}).first;
        ++it->second.whole;
        ++whole_;
        return true;
    }
    const bool has_fold = it != tallies_.end() && it->second.folded.count > 0;
    if (!has_fold && folded_kinds_ >= limits_.kinds_per_window) {
        if (folding == Folding::fold_named) return true; // its name is never hidden
        // Too many kinds this window: one line per outcome and reason holds the rest.
        auto& [outcome, reason, host, port, scheme, method, server, tool, secrets, rule] = kind;
        host.clear();
        port = 0;
        method.clear();
        server.clear();
        tool.clear();
        secrets.clear();
        rule.clear();
        it = tallies_.find(kind);
        if (it == tallies_.end()) it = tallies_.emplace(std::move(kind), Tally{}).first;
        LogRecord rest = r;
        rest.host.clear();
        rest.port = 0;
        rest.method.clear();
        rest.mcp_server.clear();
        rest.tool.clear();
        rest.secrets.clear();
        rest.rule.clear();
        rest.rule_index = -1;
        fold_into(it->second, rest);
        return false;
    }
    if (it == tallies_.end()) it = tallies_.emplace(std::move(kind), Tally{}).first;
    fold_into(it->second, r);
    return false;
}

std::vector<LogRecord> RefusalFolder::take_due(time_point now, bool all) {
    std::vector<LogRecord> due;
    if (!open_ || (!all && now < window_start_ + limits_.window)) return due;
    std::vector<Tally*> folded;
    for (auto& [_, tally] : tallies_)
        if (tally.folded.count > 0) folded.push_back(&tally);
    std::sort(folded.begin(), folded.end(),
              [](const Tally* a, const Tally* b) { return a->order < b->order; });
    due.reserve(folded.size());
    for (Tally* tally : folded)
        due.push_back(std::move(tally->folded));
    tallies_.clear();
    open_ = false;
    whole_ = 0;
    folded_kinds_ = 0;
    return due;
}

} // namespace osf::log
