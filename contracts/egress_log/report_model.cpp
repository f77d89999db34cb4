#include "egress_log/report_model.hpp"

#include "osf/log_fields.hpp"

#include <algorithm>
#include <array>
#include <deque>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <unordered_map>
#include <utility>

namespace osf::egress_log {

using nlohmann::json;
namespace f = osf::log_field;

void LineRefs::add(std::size_t line, std::size_t max_ranges) {
    ++lines;
    if (!ranges.empty() && ranges.back().last + 1 == line)
        ranges.back().last = line;
    else if (ranges.size() < max_ranges)
        ranges.push_back({line, line});
}

namespace {

std::string_view text_of(const json& line, std::string_view name) {
    const auto it = line.find(name);
    return it != line.end() && it->is_string() ? std::string_view(it->get_ref<const std::string&>())
                                               : std::string_view();
}

std::uint64_t count_of(const json& line, std::string_view name) {
    const auto it = line.find(name);
    return it != line.end() && it->is_number_unsigned() ? it->get<std::uint64_t>() : 0;
}

// What a line says about requests, whatever its kind: a request line stands
// for one request, a folded line (log/refusal_folding.hpp) for `count`.
struct RequestFacts {
    std::string_view time, host, outcome, reason, server, tool;
    std::string_view rule, would_refuse; // a host with rules: the rule that decided
    std::string_view scheme, via;        // "tcp": a raw TCP tunnel's line
    std::uint64_t port = 0;
    const json* secrets = nullptr;
    std::uint64_t count = 1, bytes_up = 0, bytes_down = 0, tools_removed = 0;
};

RequestFacts request_facts(const json& line) {
    RequestFacts r;
    r.time = text_of(line, f::time);
    r.host = text_of(line, f::host);
    r.outcome = text_of(line, f::outcome);
    r.reason = r.outcome == to_string(Outcome::refused) ? text_of(line, f::refused_by)
                                                        : text_of(line, f::error);
    r.server = text_of(line, f::mcp_server);
    r.tool = text_of(line, f::tool);
    r.rule = text_of(line, f::rule);
    r.would_refuse = text_of(line, f::would_refuse);
    r.scheme = text_of(line, f::scheme);
    r.via = text_of(line, f::via);
    r.port = count_of(line, f::port);
    if (const auto it = line.find(f::secrets); it != line.end() && it->is_array()) r.secrets = &*it;
    r.bytes_up = count_of(line, f::bytes_up);
    r.bytes_down = count_of(line, f::bytes_down);
    r.tools_removed = count_of(line, f::tools_removed);
    r.count = std::max<std::uint64_t>(1, count_of(line, f::count));
    return r;
}

struct Event {
    std::int64_t ms;
    std::uint32_t host;
    Outcome outcome;
    std::uint64_t count;
};

class Aggregator {
public:
    Aggregator(const ReportLimits& limits) : limits_(limits) {}

    void request(const RequestFacts& r, std::size_t line) {
        model_.requests += r.count;
        if (!r.time.empty()) { // RFC 3339 UTC with a fixed width: text order is time order
            if (model_.first_time.empty() || r.time < model_.first_time)
                model_.first_time = std::string(r.time);
            if (r.time > model_.last_time) model_.last_time = std::string(r.time);
        }
        const std::uint32_t host = host_id(r.host);
        auto& h = hosts_[host];
        h.counts.requests += r.count;
        h.counts.bytes_up += r.bytes_up;
        h.counts.bytes_down += r.bytes_down;
        h.lines.add(line, limits_.ranges_per_row);
        const Outcome outcome = r.outcome == to_string(Outcome::allowed)   ? Outcome::allowed
                                : r.outcome == to_string(Outcome::refused) ? Outcome::refused
                                                                           : Outcome::error;
        switch (outcome) {
        case Outcome::allowed:
            h.counts.allowed += r.count;
            model_.allowed += r.count;
            break;
        case Outcome::refused:
            h.counts.refused += r.count;
            model_.refused += r.count;
            count(refusals_, r.reason, host, r.count, line);
            break;
        case Outcome::error:
            h.counts.errors += r.count;
            model_.errors += r.count;
            count(failures_, r.reason, host, r.count, line);
            break;
        }
        if (!r.rule.empty()) {
            // The rule and what it decided: "read-widgets: allowed", "x#none: path-not-allowed".
            const std::string_view decision = outcome == Outcome::refused ? r.reason
                                              : !r.would_refuse.empty()   ? r.would_refuse
                                                                          : r.outcome;
            count(rules_,
                  std::string(r.rule) + ": " + (r.would_refuse.empty() ? "" : "audit, would be ") +
                      std::string(decision),
                  host, r.count, line);
        }
        if (r.scheme == "tcp")
            count(tunnels_,
                  "port " + std::to_string(r.port) +
                      (r.via.empty() ? std::string() : " via " + std::string(r.via)) + ": " +
                      std::string(outcome == Outcome::allowed ? r.outcome : r.reason),
                  host, r.count, line);
        if (r.secrets)
            for (const auto& name : *r.secrets)
                if (name.is_string())
                    count(secrets_, name.get_ref<const std::string&>(), host, r.count, line);
        if (!r.server.empty()) {
            if (!r.tool.empty()) {
                auto& tool = tool_row(r.server, r.tool);
                (outcome == Outcome::refused ? tool.refused : tool.called) += r.count;
                tool.lines.add(line, limits_.ranges_per_row);
            }
            if (r.tools_removed) {
                auto& list = tool_row(r.server, {});
                list.hidden += r.tools_removed;
                list.lines.add(line, limits_.ranges_per_row);
            }
        }
        if (const auto at = parse_log_time(r.time))
            events_.push_back({*at, host, outcome, r.count});
        else
            model_.timeline.untimed += r.count;
    }

    void start(const json& line, std::size_t number) {
        model_.runs.push_back({number, std::string(text_of(line, log_evidence_field::public_key))});
    }

    void policy(const json& line, std::size_t number) {
        if (model_.policy.size() >= limits_.policy_changes) {
            ++model_.policy_left_out;
            return;
        }
        PolicyChange change;
        change.line = number;
        change.time = std::string(text_of(line, f::time));
        change.at_ms = parse_log_time(change.time);
        change.change = std::string(text_of(line, "change"));
        change.by = std::string(text_of(line, "by"));
        if (const auto it = line.find("entries"); it != line.end() && it->is_array())
            for (const auto& entry : *it)
                if (entry.is_string() && change.entries.size() < limits_.names_per_line)
                    change.entries.push_back(entry.get<std::string>());
        // A rotation changes no entry: what it names is the secret.
        if (const auto secret = text_of(line, "secret"); !secret.empty())
            change.entries.push_back("secret " + std::string(secret));
        model_.policy.push_back(std::move(change));
    }

    void unknown_kind(std::string_view kind, std::size_t number) {
        auto it = other_kinds_.find(std::string(kind));
        if (it == other_kinds_.end()) {
            if (other_kinds_.size() >= limits_.other_kinds) {
                ++model_.other_kinds_left_out;
                return;
            }
            it = other_kinds_.emplace(std::string(kind), KindRow{std::string(kind), {}}).first;
        }
        it->second.lines.add(number, limits_.ranges_per_row);
    }

    void unreadable(std::size_t number) { model_.unreadable.add(number, limits_.ranges_per_row); }

    ReportModel finish(const std::vector<std::string_view>& lines,
                       const egress_log::VerifyReport& verification, std::string_view source);

private:
    std::uint32_t host_id(std::string_view host) {
        if (const auto it = host_ids_.find(host); it != host_ids_.end()) return it->second;
        const auto id = static_cast<std::uint32_t>(hosts_.size());
        hosts_.push_back(HostRow{std::string(host), {}, {}});
        host_ids_.emplace(hosts_.back().host, id);
        return id;
    }

    // Rows are counted without their names; only the rows a table keeps get them.
    struct Counted {
        std::uint64_t count = 0;
        LineRefs lines;
    };
    using CountKey = std::pair<std::string, std::uint32_t>; // name, host
    void count(std::map<CountKey, Counted>& table, std::string_view name, std::uint32_t host,
               std::uint64_t n, std::size_t line) {
        auto& row = table[CountKey(std::string(name), host)];
        row.count += n;
        row.lines.add(line, limits_.ranges_per_row);
    }

    struct ToolCounts {
        std::uint64_t called = 0, refused = 0, hidden = 0;
        LineRefs lines;
    };
    using ToolKey = std::pair<std::string, std::string>; // server, tool
    ToolCounts& tool_row(std::string_view server, std::string_view tool) {
        return tools_[ToolKey(std::string(server), std::string(tool))];
    }

    // The table of the `items` with the biggest counts (ties in the items'
    // order), made into rows by `make`; the rest counted.
    template <class Row, class Item, class Count, class Make>
    ReportTable<Row> biggest_first(std::vector<Item> items, Count count, Make make) const {
        std::stable_sort(items.begin(), items.end(),
                         [&](const Item& a, const Item& b) { return count(a) > count(b); });
        ReportTable<Row> table;
        const std::size_t kept = std::min(items.size(), limits_.table_rows);
        table.rows_left_out = items.size() - kept;
        for (std::size_t i = kept; i < items.size(); ++i)
            table.count_left_out += count(items[i]);
        table.rows.reserve(kept);
        for (std::size_t i = 0; i < kept; ++i)
            table.rows.push_back(make(items[i]));
        return table;
    }

    ReportTable<CountRow> count_table(std::map<CountKey, Counted>& table) {
        using Entry = std::map<CountKey, Counted>::value_type*;
        std::vector<Entry> entries;
        entries.reserve(table.size());
        for (auto& entry : table)
            entries.push_back(&entry);
        return biggest_first<CountRow>(
            std::move(entries), [](Entry e) { return e->second.count; },
            [&](Entry e) {
                return CountRow{e->first.first, hosts_[e->first.second].host, e->second.count,
                                std::move(e->second.lines)};
            });
    }

    void build_timeline();
    void choose_shown_lines(const std::vector<std::string_view>& lines);

    const ReportLimits& limits_;
    ReportModel model_;
    std::deque<HostRow> hosts_; // by host id; a deque, so that host_ids_ may view the names
    std::unordered_map<std::string_view, std::uint32_t> host_ids_;
    std::map<CountKey, Counted> refusals_, failures_, secrets_, rules_, tunnels_;
    std::map<ToolKey, ToolCounts> tools_;
    std::map<std::string, KindRow> other_kinds_;
    std::vector<Event> events_;
};

void Aggregator::build_timeline() {
    auto& timeline = model_.timeline;
    if (events_.empty()) return;
    const auto [first, last] = std::minmax_element(
        events_.begin(), events_.end(), [](const Event& a, const Event& b) { return a.ms < b.ms; });
    timeline.buckets = choose_buckets(first->ms, last->ms, limits_.timeline_buckets);
    // Lanes for the hosts with most requests, the rest in one.
    std::vector<std::uint32_t> order(hosts_.size());
    for (std::uint32_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
        return hosts_[a].counts.requests > hosts_[b].counts.requests;
    });
    const std::size_t own = std::min(order.size(), limits_.timeline_lanes);
    std::vector<std::size_t> lane_of(hosts_.size(), own);
    for (std::size_t i = 0; i < own; ++i) {
        lane_of[order[i]] = i;
        timeline.lanes.push_back({hosts_[order[i]].host, false, {}, 0, 0, 0});
    }
    if (order.size() > own) {
        timeline.lanes.push_back({{}, true, {}, 0, 0, 0});
        timeline.hosts_in_other_lane = order.size() - own;
    }
    for (auto& lane : timeline.lanes)
        lane.buckets.resize(timeline.buckets.count);
    for (const auto& e : events_) {
        auto& lane = timeline.lanes[lane_of[e.host]];
        auto& bucket = lane.buckets[timeline.buckets.index(e.ms)];
        (e.outcome == Outcome::allowed   ? bucket.allowed
         : e.outcome == Outcome::refused ? bucket.refused
                                         : bucket.errors) += e.count;
        lane.requests += e.count;
        if (e.outcome == Outcome::refused) lane.refused += e.count;
    }
    for (auto& lane : timeline.lanes)
        for (const auto& bucket : lane.buckets)
            lane.busiest = std::max(lane.busiest, bucket.total());
    // Lanes with no timed request (every line of the host had a bad time) go.
    std::erase_if(timeline.lanes, [](const TimelineLane& l) { return l.requests == 0; });
}

// The lines the rows link to, in the order a reviewer checks them line by
// line: policy changes, refusals, failures, MCP tools, secrets, hosts, then
// lines the report could not read.
void Aggregator::choose_shown_lines(const std::vector<std::string_view>& lines) {
    std::set<std::size_t> chosen;
    const auto take = [&](const LineRefs& refs) {
        for (const auto& range : refs.ranges)
            for (std::size_t n = range.first;
                 n <= range.last && n < range.first + limits_.lines_per_range; ++n) {
                if (chosen.size() >= limits_.shown_lines) return;
                chosen.insert(n);
            }
    };
    for (const auto& change : model_.policy)
        if (chosen.size() < limits_.shown_lines) chosen.insert(change.line);
    for (const auto* table : {&model_.refusals, &model_.failures})
        for (const auto& row : table->rows)
            take(row.lines);
    for (const auto& row : model_.tools.rows)
        take(row.lines);
    for (const auto& row : model_.secrets.rows)
        take(row.lines);
    for (const auto& row : model_.tunnels.rows)
        take(row.lines);
    for (const auto& row : model_.hosts.rows)
        take(row.lines);
    for (const auto& row : model_.other_kinds)
        take(row.lines);
    take(model_.unreadable);

    for (const std::size_t number : chosen) {
        const std::string_view raw = lines[number - 1];
        ShownLine shown;
        shown.number = number;
        const json line = json::parse(raw, nullptr, false);
        if (line.is_object() && !line.contains(log_evidence_field::kind)) {
            shown.request = true;
            shown.time = text_of(line, f::time);
            shown.method = text_of(line, f::method);
            shown.host = text_of(line, f::host);
            shown.port = count_of(line, f::port);
            shown.path = text_of(line, f::path);
            shown.outcome = text_of(line, f::outcome);
            shown.status = count_of(line, f::status);
            const auto facts = request_facts(line);
            shown.reason = facts.reason;
            shown.server = facts.server;
            shown.tool = facts.tool;
            if (facts.secrets)
                for (const auto& name : *facts.secrets)
                    if (name.is_string() && shown.secrets.size() < limits_.names_per_line)
                        shown.secrets.push_back(name.get<std::string>());
        } else {
            if (line.is_object()) {
                const auto kind = line.find(log_evidence_field::kind);
                shown.kind = kind->is_string() ? kind->get<std::string>() : kind->dump();
                shown.time = text_of(line, f::time);
            }
            shown.raw = std::string(raw.substr(0, max_raw_bytes));
        }
        model_.shown_lines.push_back(std::move(shown));
    }
}

ReportModel Aggregator::finish(const std::vector<std::string_view>& lines,
                               const egress_log::VerifyReport& verification,
                               std::string_view source) {
    model_.source = std::string(source);
    model_.verification = verification;
    model_.limits = limits_;
    build_timeline(); // before the tables take the rows
    model_.refusals = count_table(refusals_);
    model_.failures = count_table(failures_);
    model_.secrets = count_table(secrets_);
    model_.rules = count_table(rules_);
    model_.tunnels = count_table(tunnels_);
    std::vector<std::uint32_t> ids(hosts_.size());
    for (std::uint32_t i = 0; i < ids.size(); ++i)
        ids[i] = i;
    model_.hosts = biggest_first<HostRow>(
        std::move(ids), [&](std::uint32_t id) { return hosts_[id].counts.requests; },
        [&](std::uint32_t id) { return std::move(hosts_[id]); });
    using Tool = std::map<ToolKey, ToolCounts>::value_type*;
    std::vector<Tool> tools;
    for (auto& entry : tools_)
        tools.push_back(&entry);
    model_.tools = biggest_first<ToolRow>(
        std::move(tools),
        [](Tool t) { return t->second.called + t->second.refused + t->second.hidden; },
        [](Tool t) {
            return ToolRow{t->first.first,    t->first.second,  t->second.called,
                           t->second.refused, t->second.hidden, std::move(t->second.lines)};
        });
    for (auto& [_, row] : other_kinds_)
        model_.other_kinds.push_back(std::move(row));
    choose_shown_lines(lines);
    return std::move(model_);
}

// What each kind of line adds to the report. A new kind is one reader here.
using LineReader = void (*)(Aggregator&, const json&, std::size_t);
struct LineKind {
    std::string_view kind;
    LineReader read;
};
constexpr std::array<LineKind, 3> line_kinds = {{
    {log_kind::start, [](Aggregator& a, const json& line, std::size_t n) { a.start(line, n); }},
    {log_kind::checkpoint, [](Aggregator&, const json&, std::size_t) {}}, // the verifier's
    {policy_kind, [](Aggregator& a, const json& line, std::size_t n) { a.policy(line, n); }},
}};

} // namespace

ReportModel build_report(std::string_view text, const egress_log::VerifyReport& verification,
                         std::string_view source, const ReportLimits& limits) {
    Aggregator aggregator(limits);
    const auto lines = egress_log::whole_lines(text);
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::size_t number = i + 1;
        const json line = json::parse(lines[i], nullptr, false);
        if (!line.is_object()) {
            aggregator.unreadable(number);
            continue;
        }
        const auto kind = line.find(log_evidence_field::kind);
        if (kind == line.end()) {
            aggregator.request(request_facts(line), number);
            continue;
        }
        const std::string name = kind->is_string() ? kind->get<std::string>() : kind->dump();
        const auto known = std::find_if(line_kinds.begin(), line_kinds.end(),
                                        [&](const LineKind& k) { return k.kind == name; });
        if (known != line_kinds.end())
            known->read(aggregator, line, number);
        else
            aggregator.unknown_kind(name, number);
    }
    return aggregator.finish(lines, verification, source);
}

std::string signing_key(const ReportModel& model) {
    const auto signed_through = model.verification.last_checkpoint;
    if (!signed_through) return {};
    std::string key;
    for (const auto& run : model.runs)
        if (run.line < signed_through) key = run.public_key;
    return key;
}

bool is_shown(const ReportModel& model, std::size_t number) {
    const auto it =
        std::lower_bound(model.shown_lines.begin(), model.shown_lines.end(), number,
                         [](const ShownLine& line, std::size_t n) { return line.number < n; });
    return it != model.shown_lines.end() && it->number == number;
}

} // namespace osf::egress_log
