#include "admin/metrics.hpp"

#include <sstream>

namespace osf::admin {

void Metrics::observe_upstream_latency(double seconds) {
    std::size_t i = 0;
    while (i < latency_buckets.size() && seconds > latency_buckets[i])
        ++i;
    latency_counts[i].fetch_add(1, std::memory_order_relaxed);
    latency_sum_us.fetch_add(static_cast<std::uint64_t>(seconds * 1e6), std::memory_order_relaxed);
}

std::string render_prometheus(const Metrics& m, const CacheFigures& cache) {
    std::ostringstream o;
    auto load = [](const auto& a) { return a.load(std::memory_order_relaxed); };
    const auto requests = [&o](osf::Outcome outcome, std::string_view reason, std::uint64_t count) {
        o << "egress_requests_total{outcome=\"" << to_string(outcome) << "\",reason=\"" << reason
          << "\"} " << count << "\n";
    };
    o << "# HELP egress_requests_total Requests by outcome and refusal reason.\n"
      << "# TYPE egress_requests_total counter\n";
    requests(osf::Outcome::allowed, "", load(m.allowed));
    requests(osf::Outcome::error, "", load(m.errors));
    for (const auto reason : osf::all_refusal_reasons)
        requests(osf::Outcome::refused, to_string(reason),
                 load(m.refused[static_cast<std::size_t>(reason)]));
    o << "# HELP egress_open_connections Client connections open now.\n"
      << "# TYPE egress_open_connections gauge\n"
      << "egress_open_connections " << load(m.open_connections) << "\n"
      << "# HELP egress_open_tunnels CONNECT tunnels open now.\n"
      << "# TYPE egress_open_tunnels gauge\n"
      << "egress_open_tunnels " << load(m.open_tunnels) << "\n"
      << "# HELP egress_connections_total Client connections accepted.\n"
      << "# TYPE egress_connections_total counter\n"
      << "egress_connections_total " << load(m.connections_total) << "\n"
      << "# HELP egress_upstream_connections_total Upstream connections opened, and reused from "
         "the pool.\n"
      << "# TYPE egress_upstream_connections_total counter\n"
      << "egress_upstream_connections_total{kind=\"new\"} " << load(m.upstream_connects) << "\n"
      << "egress_upstream_connections_total{kind=\"reused\"} " << load(m.upstream_reused) << "\n"
      << "# HELP egress_certificate_cache_total Leaf certificate cache lookups.\n"
      << "# TYPE egress_certificate_cache_total counter\n"
      << "egress_certificate_cache_total{result=\"hit\"} " << cache.hits << "\n"
      << "egress_certificate_cache_total{result=\"miss\"} " << cache.misses << "\n"
      << "# HELP egress_certificate_cache_entries Leaf certificates cached.\n"
      << "# TYPE egress_certificate_cache_entries gauge\n"
      << "egress_certificate_cache_entries " << cache.size << "\n"
      << "# HELP egress_log_write_failures_total Egress log lines the kernel refused.\n"
      << "# TYPE egress_log_write_failures_total counter\n"
      << "egress_log_write_failures_total " << load(m.log_write_failures) << "\n"
      << "# HELP egress_log_folded_requests_total Refused requests counted in a folded egress "
         "log line instead of a line of their own.\n"
      << "# TYPE egress_log_folded_requests_total counter\n"
      << "egress_log_folded_requests_total " << load(m.log_lines_folded) << "\n"
      << "# HELP egress_upstream_latency_seconds Time from sending a request upstream to its "
         "response head.\n"
      << "# TYPE egress_upstream_latency_seconds histogram\n";
    std::uint64_t cumulative = 0;
    for (std::size_t i = 0; i < latency_buckets.size(); ++i) {
        cumulative += load(m.latency_counts[i]);
        o << "egress_upstream_latency_seconds_bucket{le=\"" << latency_buckets[i] << "\"} "
          << cumulative << "\n";
    }
    cumulative += load(m.latency_counts[latency_buckets.size()]);
    o << "egress_upstream_latency_seconds_bucket{le=\"+Inf\"} " << cumulative << "\n"
      << "egress_upstream_latency_seconds_sum " << static_cast<double>(load(m.latency_sum_us)) / 1e6
      << "\n"
      << "egress_upstream_latency_seconds_count " << cumulative << "\n";
    return o.str();
}

} // namespace osf::admin
