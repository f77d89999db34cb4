#include "kubernetes/manifests/network_isolation.hpp"

#include <catch2/catch.hpp>

using nlohmann::json;
using namespace osf::kubernetes::manifests;

TEST_CASE("network isolation: the template's policy, or a default-deny for every sandbox pod") {
    CHECK(template_network_policy_name("osf-sandbox-0123456789ab") ==
          "osf-sandbox-0123456789ab-network-policy");
    const json deny = {{"metadata", {{"name", "deny"}}},
                       {"spec",
                        {{"podSelector", {{"matchLabels", {{"osf.sandbox.role", "sandbox"}}}}},
                         {"policyTypes", json::array({"Ingress", "Egress"})}}}};
    const json allow_dns = {
        {"metadata", {{"name", "dns"}}},
        {"spec",
         {{"podSelector", json::object()},
          {"policyTypes", json::array({"Egress"})},
          {"egress", json::array({json{{"ports", json::array({json{{"port", 53}}})}}})}}}};
    CHECK(default_deny_policy(json{{"items", json::array({allow_dns, deny})}}) == "deny");
    CHECK_FALSE(default_deny_policy(json{{"items", json::array({allow_dns})}}));
    CHECK_FALSE(default_deny_policy(json::array()));
}
