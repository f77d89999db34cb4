// The Prometheus text: one egress_requests_total series per outcome and per
// refusal reason of the contract, each counted under its own name.
#include "admin/metrics.hpp"

#include <catch2/catch.hpp>
#include <string>

TEST_CASE("every refusal reason has its own counter, named as in the log", "[metrics]") {
    osf::admin::Metrics metrics;
    metrics.allowed = 3;
    metrics.errors = 2;
    for (const auto reason : osf::all_refusal_reasons)
        metrics.count_refusal(reason);
    metrics.count_refusal(osf::RefusalReason::limit);
    const auto text = osf::admin::render_prometheus(metrics, {});
    CHECK(text.find("egress_requests_total{outcome=\"allowed\",reason=\"\"} 3\n") !=
          std::string::npos);
    CHECK(text.find("egress_requests_total{outcome=\"error\",reason=\"\"} 2\n") !=
          std::string::npos);
    CHECK(text.find("egress_requests_total{outcome=\"refused\",reason=\"limit\"} 2\n") !=
          std::string::npos);
    for (const auto reason : osf::all_refusal_reasons) {
        const auto count = reason == osf::RefusalReason::limit ? "2" : "1";
        const auto series = "egress_requests_total{outcome=\"refused\",reason=\"" +
                            std::string(osf::to_string(reason)) + "\"} " + count + "\n";
        CAPTURE(series);
        CHECK(text.find(series) != std::string::npos);
    }
}
