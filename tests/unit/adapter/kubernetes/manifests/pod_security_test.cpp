// Each mode's pods held to the Pod Security Standards, one control per row, and
// the overlay's merge with a template's own settings: it only tightens.
#include "kubernetes/manifests/egress_objects.hpp"
#include "kubernetes/manifests/pod_security.hpp"
#include "kubernetes/manifests/sandbox_objects.hpp"
#include "kubernetes/manifests/snapshot_objects.hpp"
#include "pod_security_standards.hpp"
#include "request_fixture.hpp"

#include <catch2/catch.hpp>

using nlohmann::json;
using namespace osf::kubernetes::manifests;
using namespace osf::sandbox;
namespace pss = osf::testing::pss;

namespace {

json root_pod() {
    return sandbox_pod_template(image_pod_template("node:24-alpine"),
                                osf::testing::sample_request());
}

json non_root_pod() {
    auto request = osf::testing::sample_request();
    request.spec.user = osf::SandboxUser{1000, 1000};
    request.spec.read_only_root = true;
    return sandbox_pod_template(image_pod_template("node:24-alpine"), request);
}

// A named template that already runs hardened: non-root, all dropped, read-only.
json hardened_template() {
    return {{"metadata", json::object()},
            {"spec",
             {{"securityContext", {{"runAsNonRoot", true}, {"runAsUser", 2000}}},
              {"containers", json::array({json{{"name", "dev"},
                                               {"image", "corp/dev:1"},
                                               {"securityContext",
                                                {{"capabilities", {{"drop", json::array({"ALL"})}}},
                                                 {"readOnlyRootFilesystem", true}}}}})}}}};
}

// Everything a template could loosen.
json loose_template() {
    json container = {
        {"name", "dev"},
        {"image", "corp/dev:1"},
        {"ports", json::array({json{{"containerPort", 80}, {"hostPort", 8080}}})},
        {"securityContext",
         {{"privileged", true},
          {"allowPrivilegeEscalation", true},
          {"capabilities", {{"add", json::array({"SYS_ADMIN", "NET_ADMIN", "CHOWN"})}}},
          {"seccompProfile", {{"type", "Unconfined"}}},
          {"appArmorProfile", {{"type", "Unconfined"}}},
          {"procMount", "Unmasked"},
          {"windowsOptions", {{"hostProcess", true}}}}}};
    return {
        {"metadata",
         {{"annotations", {{"container.apparmor.security.beta.kubernetes.io/dev", "unconfined"}}}}},
        {"spec",
         {{"hostNetwork", true},
          {"hostPID", true},
          {"hostIPC", true},
          {"securityContext", {{"seccompProfile", {{"type", "Unconfined"}}}}},
          {"containers", json::array({container})}}}};
}

void check_admitted(const json& pod, pss::Level level) {
    const json metadata = pod.value("metadata", json::object());
    const json& spec = pod["spec"];
    for (const auto& control : pss::controls()) {
        if (control.level == pss::Level::Restricted && level == pss::Level::Baseline) continue;
        INFO("control: " << control.name);
        const auto bad = control.check(metadata, spec);
        for (const auto& what : bad)
            UNSCOPED_INFO(what);
        CHECK(bad.empty());
    }
}

} // namespace

TEST_CASE("each Pod Security control catches what it forbids") {
    // The checker itself: one broken pod per control, so no row passes vacuously.
    struct Row {
        const char* control;
        json spec;
        json metadata = json::object();
    };
    auto with_container_security = [](json security) {
        return json{
            {"containers", json::array({json{{"name", "c"}, {"securityContext", security}}})}};
    };
    const std::vector<Row> rows = {
        {"HostProcess", with_container_security({{"windowsOptions", {{"hostProcess", true}}}})},
        {"Host Namespaces", {{"hostPID", true}, {"containers", json::array()}}},
        {"Privileged Containers", with_container_security({{"privileged", true}})},
        {"Capabilities (baseline)",
         with_container_security({{"capabilities", {{"add", json::array({"SYS_ADMIN"})}}}})},
        {"HostPath Volumes",
         {{"volumes", json::array({json{{"name", "h"}, {"hostPath", {{"path", "/"}}}}})}}},
        {"Host Ports",
         {{"containers",
           json::array({json{{"name", "c"}, {"ports", json::array({json{{"hostPort", 1}}})}}})}}},
        {"AppArmor", with_container_security({{"appArmorProfile", {{"type", "Unconfined"}}}})},
        {"SELinux", with_container_security({{"seLinuxOptions", {{"type", "spc_t"}}}})},
        {"/proc Mount Type", with_container_security({{"procMount", "Unmasked"}})},
        {"Seccomp (baseline)",
         with_container_security({{"seccompProfile", {{"type", "Unconfined"}}}})},
        {"Sysctls",
         {{"securityContext", {{"sysctls", json::array({json{{"name", "kernel.msgmax"}}})}}}}},
        {"Volume Types",
         {{"volumes", json::array({json{{"name", "n"}, {"nfs", json::object()}}})}}},
        {"Privilege Escalation", with_container_security(json::object())},
        {"Running as Non-root", with_container_security(json::object())},
        {"Running as Non-root user", with_container_security({{"runAsUser", 0}})},
        {"Seccomp (restricted)", with_container_security(json::object())},
        {"Capabilities (restricted)", with_container_security(json::object())},
    };
    REQUIRE(rows.size() == pss::controls().size());
    for (const auto& row : rows) {
        INFO(row.control);
        bool found = false;
        for (const auto& control : pss::controls())
            if (std::string(control.name) == row.control) {
                found = true;
                CHECK_FALSE(control.check(row.metadata, row.spec).empty());
            }
        CHECK(found);
    }
    // The annotation form of AppArmor.
    CHECK_FALSE(
        pss::app_armor(
            {{"annotations", {{"container.apparmor.security.beta.kubernetes.io/c", "unconfined"}}}},
            json::object())
            .empty());
}

TEST_CASE("root mode: admitted under baseline, control by control") {
    check_admitted(root_pod(), pss::Level::Baseline);
    // ...and not under restricted: it runs as the image's user, with capabilities.
    const json pod = root_pod();
    CHECK_FALSE(pss::run_as_non_root(pod["metadata"], pod["spec"]).empty());
    CHECK_FALSE(pss::restricted_capabilities(pod["metadata"], pod["spec"]).empty());
}

TEST_CASE("non-root mode: admitted under restricted, control by control") {
    check_admitted(non_root_pod(), pss::Level::Restricted);
}

TEST_CASE("the egress pod: admitted under restricted, control by control") {
    check_admitted(egress_pod(osf::testing::sample_request()), pss::Level::Restricted);
}

TEST_CASE("a hardened named template stays admitted under restricted without a spec user") {
    const json pod = sandbox_pod_template(hardened_template(), osf::testing::sample_request());
    check_admitted(pod, pss::Level::Restricted);
    const json& security = pod["spec"]["containers"][0]["securityContext"];
    CHECK(security["capabilities"] == json{{"drop", json::array({"ALL"})}}); // nothing added back
    CHECK(security["readOnlyRootFilesystem"] == true);
    CHECK(security["runAsNonRoot"] == true);
    CHECK(pod["spec"]["securityContext"]["runAsUser"] == 2000);
}

TEST_CASE("a loose named template is tightened to baseline") {
    const json pod = sandbox_pod_template(loose_template(), osf::testing::sample_request());
    check_admitted(pod, pss::Level::Baseline);
    const json& c = pod["spec"]["containers"][0];
    CHECK(c["securityContext"]["capabilities"]["add"] ==
          json::array({"CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "SETUID", "SETGID", "KILL"}));
    CHECK(c["ports"] == json::array({json{{"containerPort", 80}}}));
    CHECK_FALSE(pod["spec"].contains("hostNetwork"));
}

TEST_CASE("snapshot pods and templates run as the sandbox does") {
    auto request = osf::testing::sample_request();
    request.spec.user = osf::SandboxUser{1000, 1000};
    const json source = sandbox_template(
        request, sandbox_pod_template(image_pod_template("node:24-alpine"), request));
    SnapshotRequest snapshot{"0123456789ab", "agents", "20261201120000", "1Gi", ""};
    take_sandbox_pod_settings(source, snapshot);
    CHECK(snapshot.image == "node:24-alpine");
    check_admitted(snapshot_copy_pod(snapshot), pss::Level::Restricted);
    const json copy = snapshot_template(source, snapshot);
    check_admitted(copy["spec"]["podTemplate"], pss::Level::Restricted);

    // A new sandbox from it, with no user in its spec, stays non-root.
    auto next = osf::testing::sample_request();
    next.id = "fedcba987654";
    const json pod = sandbox_pod_template(copy["spec"]["podTemplate"], next);
    check_admitted(pod, pss::Level::Restricted);
    CHECK(pod["spec"]["initContainers"][0]["name"] == "osf-restore-workspace");
}

TEST_CASE("snapshot of a root sandbox: copy pod and restore container in root mode") {
    const auto request = osf::testing::sample_request();
    const json source = sandbox_template(request, root_pod());
    SnapshotRequest snapshot{"0123456789ab", "agents", "20261201120000", "1Gi", ""};
    take_sandbox_pod_settings(source, snapshot);
    check_admitted(snapshot_copy_pod(snapshot), pss::Level::Baseline);
    CHECK_FALSE(snapshot_copy_pod(snapshot)["spec"]["containers"][0].contains("imagePullPolicy"));
    snapshot.image_pull_policy = "Never";
    CHECK(snapshot_copy_pod(snapshot)["spec"]["containers"][0]["imagePullPolicy"] == "Never");
    const json copy = snapshot_template(source, snapshot);
    check_admitted(copy["spec"]["podTemplate"], pss::Level::Baseline);
}

TEST_CASE("the merge only tightens: capabilities, table") {
    struct Row {
        const char* what;
        json template_security;
        bool spec_user;
        json expected_add; // null: no add at all
    };
    const json root_caps =
        json::array({"CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "SETUID", "SETGID", "KILL"});
    const std::vector<Row> rows = {
        {"no settings: root mode's set", json::object(), false, root_caps},
        {"drop ALL: nothing comes back",
         {{"capabilities", {{"drop", json::array({"ALL"})}}}},
         false,
         nullptr},
        {"drop ALL, add CHOWN: only CHOWN",
         {{"capabilities", {{"drop", json::array({"ALL"})}, {"add", json::array({"CHOWN"})}}}},
         false,
         json::array({"CHOWN"})},
        {"drop SETUID and CAP_KILL: stay dropped",
         {{"capabilities", {{"drop", json::array({"SETUID", "CAP_KILL"})}}}},
         false,
         json::array({"CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "SETGID"})},
        {"add SYS_ADMIN: never added",
         {{"capabilities", {{"add", json::array({"SYS_ADMIN"})}}}},
         false,
         root_caps},
        {"spec user: none at all", json::object(), true, nullptr},
        {"spec user, template adds NET_BIND_SERVICE: none",
         {{"capabilities", {{"add", json::array({"NET_BIND_SERVICE"})}}}},
         true,
         nullptr},
        {"template non-root: none", {{"runAsUser", 1000}}, false, nullptr},
        {"template non-root adding NET_BIND_SERVICE: kept",
         {{"runAsNonRoot", true},
          {"capabilities",
           {{"drop", json::array({"ALL"})}, {"add", json::array({"NET_BIND_SERVICE", "CHOWN"})}}}},
         false,
         json::array({"NET_BIND_SERVICE"})},
    };
    for (const auto& row : rows) {
        INFO(row.what);
        PodHardening hardening;
        if (row.spec_user) {
            hardening.user = osf::SandboxUser{1000, 1000};
            hardening.non_root = true;
        }
        const json security = tighten_container_security(row.template_security, hardening);
        CHECK(security["capabilities"]["drop"] == json::array({"ALL"}));
        if (row.expected_add.is_null())
            CHECK_FALSE(security["capabilities"].contains("add"));
        else
            CHECK(security["capabilities"]["add"] == row.expected_add);
    }
}

TEST_CASE("the merge only tightens: user, root file system, seccomp, table") {
    struct Row {
        const char* what;
        json pod_security;       // the template pod's
        json container_security; // the template container's
        bool spec_user;
        bool spec_read_only;
        json expected; // fields of the container's result
    };
    const std::vector<Row> rows = {
        {"root template, nothing asked: no user set",
         json::object(),
         json::object(),
         false,
         false,
         {{"seccompProfile", {{"type", "RuntimeDefault"}}}}},
        {"read-only template stays read-only",
         json::object(),
         {{"readOnlyRootFilesystem", true}},
         false,
         false,
         {{"readOnlyRootFilesystem", true}}},
        {"spec readOnlyRoot",
         json::object(),
         {{"readOnlyRootFilesystem", false}},
         false,
         true,
         {{"readOnlyRootFilesystem", true}}},
        {"pod-level non-root keeps the container non-root",
         {{"runAsNonRoot", true}},
         {{"runAsNonRoot", false}, {"runAsUser", 0}},
         false,
         false,
         {{"runAsNonRoot", true}}},
        {"spec user overrides a root container",
         json::object(),
         {{"runAsUser", 0}},
         true,
         false,
         {{"runAsUser", 1000}, {"runAsGroup", 1000}, {"runAsNonRoot", true}}},
        {"a Localhost seccomp profile is kept",
         json::object(),
         {{"seccompProfile", {{"type", "Localhost"}, {"localhostProfile", "p.json"}}}},
         false,
         false,
         {{"seccompProfile", {{"type", "Localhost"}, {"localhostProfile", "p.json"}}}}},
        {"Unconfined seccomp becomes RuntimeDefault",
         json::object(),
         {{"seccompProfile", {{"type", "Unconfined"}}}},
         false,
         false,
         {{"seccompProfile", {{"type", "RuntimeDefault"}}}}},
        {"privileged and escalation are off",
         json::object(),
         {{"privileged", true}, {"allowPrivilegeEscalation", true}},
         false,
         false,
         {{"privileged", false}, {"allowPrivilegeEscalation", false}}},
    };
    osf::Spec spec;
    for (const auto& row : rows) {
        INFO(row.what);
        spec.user = row.spec_user ? std::optional(osf::SandboxUser{1000, 1000}) : std::nullopt;
        spec.read_only_root = row.spec_read_only;
        const json pod_spec = {{"securityContext", row.pod_security}};
        const PodHardening hardening = pod_hardening(spec, pod_spec);
        const json security = tighten_container_security(row.container_security, hardening);
        for (const auto& [key, value] : row.expected.items()) {
            INFO(key);
            CHECK(security.value(key, json()) == value);
        }
        if (!row.spec_user && !hardening.non_root && !row.container_security.contains("runAsUser"))
            CHECK_FALSE(security.contains("runAsNonRoot"));
    }
}
