// A named SandboxTemplate's hardening is never weakened: for each
// security-relevant field, the overlay's result is at least as strict as the
// template and the adapter's own default; what cannot be tightened is refused.
#include "kubernetes/manifests/create_objects.hpp"
#include "kubernetes/manifests/sandbox_objects.hpp"
#include "kubernetes/manifests/template_hardening.hpp"
#include "request_fixture.hpp"

#include <catch2/catch.hpp>

using nlohmann::json;
using namespace osf::kubernetes::manifests;
using namespace osf::sandbox;

namespace {

json named_template(json pod_spec) {
    json pod = {{"metadata", {{"labels", {{"team", "a"}}}}}, {"spec", std::move(pod_spec)}};
    if (!pod["spec"].contains("containers"))
        pod["spec"]["containers"] = json::array({json{{"name", "work"}, {"image", "a:b"}}});
    return pod;
}

// The sandbox pod's spec as create makes it from `pod_spec`.
json overlaid(json pod_spec) {
    const auto request = osf::testing::sample_request();
    return sandbox_side_objects(request, named_template(std::move(pod_spec)), "PEM",
                                request.lifetime.created)[1]["spec"]["podTemplate"]["spec"];
}

} // namespace

TEST_CASE("quantities as Kubernetes reads them") {
    struct Row {
        const char* text;
        std::optional<long double> value;
    };
    const Row rows[] = {
        {"2", 2},
        {"500m", 0.5},
        {"1.5", 1.5},
        {"1Ki", 1024},
        {"1Gi", 1073741824},
        {"64Gi", 68719476736.0L},
        {"1G", 1e9},
        {"1e3", 1000},
        {"1E3", 1000},
        {"+2", 2},
        {"", std::nullopt},
        {"Gi", std::nullopt},
        {"1.Gi", std::nullopt},
        {"-1", std::nullopt},
        {"1x", std::nullopt},
        {"1e", std::nullopt},
        {"0.5Gi", 536870912},
    };
    for (const auto& row : rows) {
        INFO(row.text);
        const auto value = parse_quantity(row.text);
        REQUIRE(value.has_value() == row.value.has_value());
        if (value) CHECK(*value == Approx(static_cast<double>(*row.value)));
    }
}

TEST_CASE("the stricter of the template and the adapter wins, field by field") {
    SECTION("a pod-level Localhost seccomp profile is not overridden on the containers") {
        const json profile = {{"type", "Localhost"}, {"localhostProfile", "profiles/agent.json"}};
        const json spec = overlaid({{"securityContext", {{"seccompProfile", profile}}}});
        CHECK(spec["securityContext"]["seccompProfile"] == profile);
        CHECK(spec["containers"][0]["securityContext"]["seccompProfile"] == profile);
        // A container's own Localhost profile stays its own.
        const json own = {{"type", "Localhost"}, {"localhostProfile", "profiles/own.json"}};
        const json both = overlaid(
            {{"securityContext", {{"seccompProfile", profile}}},
             {"containers", json::array({json{{"name", "work"},
                                              {"image", "a:b"},
                                              {"securityContext", {{"seccompProfile", own}}}}})}});
        CHECK(both["containers"][0]["securityContext"]["seccompProfile"] == own);
        // Unconfined anywhere becomes RuntimeDefault.
        const json unconfined =
            overlaid({{"securityContext", {{"seccompProfile", {{"type", "Unconfined"}}}}}});
        CHECK(unconfined["containers"][0]["securityContext"]["seccompProfile"] ==
              json{{"type", "RuntimeDefault"}});
    }
    SECTION("shareProcessNamespace false stays false; unset becomes true") {
        CHECK(overlaid({{"shareProcessNamespace", false}})["shareProcessNamespace"] == false);
        CHECK(overlaid(json::object())["shareProcessNamespace"] == true);
        CHECK(overlaid({{"shareProcessNamespace", true}})["shareProcessNamespace"] == true);
    }
    SECTION("a shorter activeDeadlineSeconds stays; a longer one is cut to the pods' deadline") {
        CHECK(overlaid({{"activeDeadlineSeconds", 600}})["activeDeadlineSeconds"] == 600);
        CHECK(overlaid({{"activeDeadlineSeconds", 99999999}})["activeDeadlineSeconds"] == 9 * 3600);
        CHECK(overlaid(json::object())["activeDeadlineSeconds"] == 9 * 3600);
    }
    SECTION("host namespaces, privilege and capabilities only tighten") {
        const json spec = overlaid(
            {{"hostNetwork", true},
             {"hostPID", true},
             {"containers",
              json::array({json{{"name", "work"},
                                {"image", "a:b"},
                                {"securityContext",
                                 {{"privileged", true},
                                  {"allowPrivilegeEscalation", true},
                                  {"capabilities", {{"add", json::array({"SYS_ADMIN"})}}}}}}})}});
        CHECK_FALSE(spec.contains("hostNetwork"));
        CHECK_FALSE(spec.contains("hostPID"));
        const json& security = spec["containers"][0]["securityContext"];
        CHECK(security["privileged"] == false);
        CHECK(security["allowPrivilegeEscalation"] == false);
        CHECK(security["capabilities"]["drop"] == json::array({"ALL"}));
        CHECK(security["capabilities"].value("add", json::array()).dump().find("SYS_ADMIN") ==
              std::string::npos);
    }
}

TEST_CASE("volumes Pod Security restricted forbids are refused, naming the volume") {
    const osf::Spec spec;
    for (const char* type : {"hostPath", "nfs", "iscsi", "gitRepo", "cephfs", "flexVolume"}) {
        INFO(type);
        const json pod = named_template(
            {{"volumes", json::array({json{{"name", "data"}, {type, json::object()}}})}});
        const auto refusal = template_refusal(pod, spec);
        REQUIRE(refusal.has_value());
        CHECK(refusal->find("'data'") != std::string::npos);
        CHECK(refusal->find(std::string(type) + " volume") != std::string::npos);
    }
    for (const char* type : kRestrictedVolumeTypes) {
        INFO(type);
        const json pod = named_template(
            {{"volumes", json::array({json{{"name", "data"}, {type, json::object()}}})}});
        CHECK_FALSE(template_refusal(pod, spec).has_value());
    }
}

TEST_CASE("a spec cannot raise a template's limits; a snapshot's template sets none") {
    json pod = named_template(
        {{"containers",
          json::array(
              {json{{"name", "work"},
                    {"image", "a:b"},
                    {"resources",
                     {{"limits",
                       {{"cpu", "2"}, {"memory", "1Gi"}, {"ephemeral-storage", "10Gi"}}}}}}})}});
    osf::Spec spec;
    CHECK_FALSE(template_refusal(pod, spec).has_value());
    spec.memory = "512Mi";
    spec.cpu = "1500m";
    spec.storage = "10Gi";
    CHECK_FALSE(template_refusal(pod, spec).has_value()); // lower or equal: fine
    spec.memory = "64Gi";
    const auto refusal = template_refusal(pod, spec);
    REQUIRE(refusal.has_value());
    CHECK(*refusal == "spec \"memory\": 64Gi is above the template's limit of 1Gi (a spec cannot "
                      "raise a SandboxTemplate's limits): ask for at most 1Gi");
    spec.memory.reset();
    spec.cpu = "3";
    CHECK(template_refusal(pod, spec)->starts_with("spec \"cpu\": 3 is above"));
    spec.cpu.reset();
    spec.storage = "11Gi";
    CHECK(template_refusal(pod, spec)->starts_with("spec \"storage\": 11Gi is above"));
    pod["metadata"]["labels"]["osf.snapshot.of"] = "0123456789ab";
    CHECK_FALSE(template_refusal(pod, spec).has_value());
}
