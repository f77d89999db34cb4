// Counters the proxy keeps, and their Prometheus text form. Every outcome
// increments a named counter; all are atomics so any thread may count.
#pragma once

#include "osf/log_fields.hpp"

#include <array>
#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>

namespace osf::admin {

// Upstream latency buckets (seconds), time to the response head.
inline constexpr std::array<double, 12> latency_buckets = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                                                           0.1,   0.25,   0.5,   1,    2.5,   10};

struct Metrics {
    std::atomic<std::uint64_t> allowed{0};
    std::atomic<std::uint64_t> errors{0};
    std::array<std::atomic<std::uint64_t>, osf::all_refusal_reasons.size()> refused{};
    std::atomic<std::int64_t> open_connections{0};
    std::atomic<std::int64_t> open_tunnels{0};
    std::atomic<std::uint64_t> connections_total{0};
    std::atomic<std::uint64_t> upstream_connects{0};
    std::atomic<std::uint64_t> upstream_reused{0};
    std::atomic<std::uint64_t> log_write_failures{0};
    std::atomic<std::uint64_t> log_lines_folded{0}; // requests counted in a folded line
    std::array<std::atomic<std::uint64_t>, latency_buckets.size() + 1> latency_counts{};
    std::atomic<std::uint64_t> latency_sum_us{0};

    // Takes the contract's enum: a reason the contract does not name does not compile.
    void count_refusal(osf::RefusalReason reason) {
        refused[static_cast<std::size_t>(reason)].fetch_add(1, std::memory_order_relaxed);
    }
    void observe_upstream_latency(double seconds);
};

struct CacheFigures {
    std::uint64_t hits = 0;
    std::uint64_t misses = 0;
    std::uint64_t size = 0;
};

std::string render_prometheus(const Metrics& m, const CacheFigures& cache);

} // namespace osf::admin
