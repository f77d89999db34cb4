#include "kubernetes/manifests/create_objects.hpp"
#include "kubernetes/manifests/package_cache.hpp"
#include "kubernetes/manifests/sandbox_objects.hpp"
#include "kubernetes/manifests/sandbox_storage.hpp"
#include "kubernetes/manifests/ssh_client_config.hpp"
#include "request_fixture.hpp"

#include <catch2/catch.hpp>

using nlohmann::json;
using namespace osf::kubernetes::manifests;
using namespace osf::sandbox;

namespace {

json env_value(const json& env, const std::string& name) {
    json found = nullptr;
    int count = 0;
    for (const auto& var : env)
        if (var["name"] == name) {
            found = var.contains("value") ? var["value"] : var;
            ++count;
        }
    return count == 1 ? found : json("defined " + std::to_string(count) + " times");
}

json volume_named(const json& pod, const std::string& name) {
    for (const auto& volume : pod["spec"]["volumes"])
        if (volume["name"] == name) return volume;
    return nullptr;
}

json pod_template() {
    const auto request = osf::testing::sample_request();
    return sandbox_pod_template(image_pod_template("node:24-alpine"), request);
}

} // namespace

TEST_CASE("sandbox container: image, sleep infinity in /workspace, resources") {
    const json pod = pod_template();
    REQUIRE(pod["spec"]["containers"].size() == 1);
    const json& c = pod["spec"]["containers"][0];
    CHECK(c["name"] == "sandbox");
    CHECK(c["image"] == "node:24-alpine");
    CHECK(c["command"] == json::array({"sleep", "infinity"}));
    CHECK(c["workingDir"] == "/workspace");
    CHECK(c["resources"] ==
          json{{"requests", {{"cpu", "2"}, {"memory", "4Gi"}, {"ephemeral-storage", "10Gi"}}},
               {"limits", {{"cpu", "2"}, {"memory", "4Gi"}, {"ephemeral-storage", "10Gi"}}}});
}

TEST_CASE("sandbox container: the defaults when the spec has no resources") {
    auto request = osf::testing::sample_request();
    request.spec.cpu.reset();
    request.spec.memory.reset();
    const json pod = sandbox_pod_template(image_pod_template("x/y"), request);
    const json expected = {{"cpu", "1"}, {"memory", "2Gi"}, {"ephemeral-storage", "10Gi"}};
    CHECK(pod["spec"]["containers"][0]["resources"] ==
          json{{"requests", expected}, {"limits", expected}});
}

TEST_CASE("sandbox storage: ephemeral-storage and the /workspace size limit") {
    auto request = osf::testing::sample_request();
    request.spec.storage = "3Gi";
    const json pod = sandbox_pod_template(image_pod_template("x/y"), request);
    const json& resources = pod["spec"]["containers"][0]["resources"];
    CHECK(resources["requests"]["ephemeral-storage"] == "3Gi");
    CHECK(resources["limits"]["ephemeral-storage"] == "3Gi");
    CHECK(pod["spec"]["volumes"][1] ==
          json{{"name", "workspace"}, {"emptyDir", {{"sizeLimit", "3Gi"}}}});
}

TEST_CASE("sandbox resources: spec, else the template's own, else the defaults") {
    osf::Spec spec;
    spec.memory = "8Gi";
    const json from_template = {{"requests", {{"cpu", "500m"}}}, {"limits", {{"cpu", "4"}}}};
    const json resources = sandbox_resources(from_template, spec);
    CHECK(resources["requests"]["cpu"] == "500m"); // the template's, untouched
    CHECK(resources["limits"]["cpu"] == "4");
    CHECK(resources["requests"]["memory"] == "8Gi"); // the spec's
    CHECK(resources["limits"]["memory"] == "8Gi");
    CHECK(resources["limits"]["ephemeral-storage"] == "10Gi"); // the default
}

TEST_CASE("sandbox pod: lifecycle fields") {
    const json pod = pod_template();
    const json& spec = pod["spec"];
    CHECK(spec["restartPolicy"] == "Never");
    CHECK(spec["shareProcessNamespace"] == true);
    CHECK(spec["terminationGracePeriodSeconds"] == 5);
    CHECK(spec["automountServiceAccountToken"] == false);
    CHECK(spec["enableServiceLinks"] == false);
}

TEST_CASE("non-root read-only mode: user ids, no capabilities, /tmp in memory, a home") {
    auto request = osf::testing::sample_request();
    request.spec.user = osf::SandboxUser{1000, 1001};
    request.spec.read_only_root = true;
    const json pod = sandbox_pod_template(image_pod_template("x/y"), request);
    const json& spec = pod["spec"];
    CHECK(spec["securityContext"] == json{{"runAsNonRoot", true},
                                          {"runAsUser", 1000},
                                          {"runAsGroup", 1001},
                                          {"fsGroup", 1001},
                                          {"seccompProfile", {{"type", "RuntimeDefault"}}}});
    const json& c = spec["containers"][0];
    CHECK(c["securityContext"] == json{{"allowPrivilegeEscalation", false},
                                       {"privileged", false},
                                       {"capabilities", {{"drop", json::array({"ALL"})}}},
                                       {"seccompProfile", {{"type", "RuntimeDefault"}}},
                                       {"runAsNonRoot", true},
                                       {"runAsUser", 1000},
                                       {"runAsGroup", 1001},
                                       {"readOnlyRootFilesystem", true}});
    CHECK(spec["volumes"][2] ==
          json{{"name", "osf-tmp"}, {"emptyDir", {{"medium", "Memory"}, {"sizeLimit", "256Mi"}}}});
    CHECK(spec["volumes"][3] == json{{"name", "osf-home"}, {"emptyDir", json::object()}});
    CHECK(c["volumeMounts"][1] == json{{"name", "osf-tmp"}, {"mountPath", "/tmp"}});
    CHECK(c["volumeMounts"][2] == json{{"name", "osf-home"}, {"mountPath", "/home/sandbox"}});
    CHECK(env_value(c["env"], "HOME") == "/home/sandbox");
}

TEST_CASE("a spec's own HOME wins; a root sandbox gets no HOME but /tmp and /home/sandbox") {
    auto request = osf::testing::sample_request();
    request.spec.user = osf::SandboxUser{1000, 1000};
    request.spec.env["HOME"] = "/workspace";
    CHECK(env_value(sandbox_env(request), "HOME") == "/workspace");
    const json root = pod_template();
    CHECK(env_value(root["spec"]["containers"][0]["env"], "HOME") == "defined 0 times");
    CHECK(root["spec"]["volumes"].size() == 5);
}

TEST_CASE("/tmp is in memory in every mode, tmpSize large; /home/sandbox in every mode") {
    auto request = osf::testing::sample_request();
    auto volume = [](const json& pod, const std::string& name) {
        for (const auto& v : pod["spec"]["volumes"])
            if (v["name"] == name) return v;
        return json();
    };
    const json plain = sandbox_pod_template(image_pod_template("a:b"), request);
    CHECK(volume(plain, "osf-tmp") ==
          json{{"name", "osf-tmp"}, {"emptyDir", {{"medium", "Memory"}, {"sizeLimit", "256Mi"}}}});
    CHECK(volume(plain, "osf-home") == json{{"name", "osf-home"}, {"emptyDir", json::object()}});
    request.spec.tmp_size = "2Gi";
    request.spec.user = osf::SandboxUser{1000, 1000};
    request.spec.read_only_root = true;
    const json hardened = sandbox_pod_template(image_pod_template("a:b"), request);
    CHECK(volume(hardened, "osf-tmp")["emptyDir"]["sizeLimit"] == "2Gi");
    CHECK(hardened["spec"]["volumes"].size() == 5);
}

TEST_CASE("sandbox pod: labels select it for the egress policy; hardening") {
    const json pod = pod_template();
    CHECK(pod["metadata"]["labels"] ==
          json{{"osf.sandbox.id", "0123456789ab"},
               {"osf.sandbox.role", "sandbox"},
               {"app.kubernetes.io/component", "sandbox"},
               {"app.kubernetes.io/managed-by", "sandbox-kubernetes"},
               {"osf.sandbox.owned-by-claim", "true"}}); // the pod is the Sandbox's
    CHECK(pod["metadata"]["annotations"]["kubectl.kubernetes.io/default-container"] == "sandbox");
    const json& spec = pod["spec"];
    CHECK(spec["automountServiceAccountToken"] == false);
    CHECK(spec["enableServiceLinks"] == false);
    CHECK(spec["securityContext"] == json{{"seccompProfile", {{"type", "RuntimeDefault"}}}});
    const json& sc = spec["containers"][0]["securityContext"];
    CHECK(sc["allowPrivilegeEscalation"] == false);
    CHECK(sc["privileged"] == false);
    CHECK(sc["seccompProfile"]["type"] == "RuntimeDefault");
    CHECK(sc["capabilities"]["drop"] == json::array({"ALL"}));
    CHECK(sc["capabilities"]["add"] ==
          json::array({"CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "SETUID", "SETGID", "KILL"}));
    CHECK_FALSE(sc.contains("runAsNonRoot"));
    CHECK_FALSE(sc.contains("readOnlyRootFilesystem"));
}

TEST_CASE("sandbox pod: workspace emptyDir and the CA from its ConfigMap") {
    const json pod = pod_template();
    const json& volumes = pod["spec"]["volumes"];
    CHECK(volumes.size() == 5); // and /tmp, /home/sandbox, the ssh client configuration
    CHECK(volumes[0] == json{{"name", "osf-egress-ca"},
                             {"configMap",
                              {{"name", "osf-sandbox-0123456789ab-ca"},
                               {"items", json::array({json{{"key", "egress-ca.crt"},
                                                           {"path", "egress-ca.crt"}}})}}}});
    CHECK(volumes[1] == json{{"name", "workspace"}, {"emptyDir", {{"sizeLimit", "10Gi"}}}});
    const json& mounts = pod["spec"]["containers"][0]["volumeMounts"];
    CHECK(
        mounts ==
        json::array({json{{"name", "workspace"}, {"mountPath", "/workspace"}},
                     json{{"name", "osf-tmp"}, {"mountPath", "/tmp"}},
                     json{{"name", "osf-home"}, {"mountPath", "/home/sandbox"}},
                     json{{"name", "osf-egress-ca"}, {"mountPath", "/etc/osf"}, {"readOnly", true}},
                     json{{"name", "osf-ssh-config"},
                          {"mountPath", "/etc/ssh/ssh_config.d/osf-egress.conf"},
                          {"subPath", "ssh_config"},
                          {"readOnly", true}}}));
    CHECK(volumes[4] ==
          json{{"name", "osf-ssh-config"},
               {"configMap",
                {{"name", "osf-sandbox-0123456789ab-ca"},
                 {"items", json::array({json{{"key", "ssh_config"}, {"path", "ssh_config"}}})}}}});
}

TEST_CASE("sandbox env: spec variables, placeholders, proxy and CA variables") {
    const json env = pod_template()["spec"]["containers"][0]["env"];
    CHECK(env_value(env, "CI") == "1");
    CHECK(env_value(env, "LINEAR_TOKEN") == "osf-secret-placeholder-LINEAR_TOKEN");
    CHECK(env_value(env, "NPM_TOKEN") == "osf-secret-placeholder-NPM_TOKEN");
    CHECK(env_value(env, "WIKI_KEY") == "osf-secret-placeholder-WIKI_KEY");
    for (const char* name : {"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"})
        CHECK(env_value(env, name) ==
              "http://osf-sandbox-0123456789ab-egress:8080"); // the spec cannot override it
    // SOCKS5 on the Service's second port (socks5h: the proxy resolves names).
    for (const char* name : {"ALL_PROXY", "all_proxy"})
        CHECK(env_value(env, name) == "socks5h://osf-sandbox-0123456789ab-egress:1080");
    CHECK(env_value(env, "NO_PROXY") == "");
    CHECK(env_value(env, "no_proxy") == "");
    for (const char* name : {"SSL_CERT_FILE", "NODE_EXTRA_CA_CERTS", "REQUESTS_CA_BUNDLE",
                             "CURL_CA_BUNDLE", "GIT_SSL_CAINFO"})
        CHECK(env_value(env, name) == "/etc/osf/egress-ca.crt");
    // Nothing about OpenBao or the real values reaches the sandbox.
    CHECK(env.dump().find("OSF_OPENBAO") == std::string::npos);
    CHECK(env.dump().find("bao.example") == std::string::npos);
}

TEST_CASE("template network policy: egress to its proxy only (no DNS), no ingress") {
    const json policy = sandbox_network_policy("0123456789ab");
    CHECK(policy["ingress"] == json::array());
    CHECK(policy["egress"] ==
          json::array({json{{"to", json::array({json{{"podSelector",
                                                      {{"matchLabels",
                                                        {{"osf.sandbox.id", "0123456789ab"},
                                                         {"osf.sandbox.role", "egress"}}}}}}})},
                            {"ports", json::array({json{{"protocol", "TCP"}, {"port", 8080}}})}}}));
}

TEST_CASE("the sandbox pod finds its proxy without DNS: hostAliases to the Service's ClusterIP") {
    auto request = osf::testing::sample_request();
    json base = image_pod_template("node:24-alpine");
    // A template's own alias stays; a snapshot source's proxy names go.
    base["spec"]["hostAliases"] =
        json::array({json{{"ip", "10.0.0.9"}, {"hostnames", json::array({"db.internal"})}},
                     json{{"ip", "10.96.0.7"},
                          {"hostnames", json::array({"osf-sandbox-aaaaaaaaaaaa-egress"})}}});
    request.egress_service_ip = "10.96.3.4";
    const json spec = sandbox_pod_template(base, request)["spec"];
    CHECK(spec["dnsPolicy"] == "None");
    CHECK(spec["dnsConfig"] == json{{"nameservers", json::array({"127.0.0.1"})}});
    CHECK(spec["hostAliases"] ==
          json::array(
              {json{{"ip", "10.0.0.9"}, {"hostnames", json::array({"db.internal"})}},
               json{{"ip", "10.96.3.4"},
                    {"hostnames", json::array({"osf-sandbox-0123456789ab-egress",
                                               "osf-sandbox-0123456789ab-egress.agents.svc"})}}}));
    // Unknown until the Service exists (--dry-run): no alias of ours.
    request.egress_service_ip.clear();
    const json dry = sandbox_pod_template(image_pod_template("node:24-alpine"), request)["spec"];
    CHECK_FALSE(dry.contains("hostAliases"));
    CHECK(dry["dnsPolicy"] == "None");
}

TEST_CASE("SandboxTemplate, SandboxWarmPool (0 replicas) and SandboxClaim, v1beta1") {
    const auto request = osf::testing::sample_request();
    const json base = image_pod_template("node:24-alpine");
    json objects = sandbox_side_objects(request, base, "PEM", request.lifetime.created);
    objects.push_back(sandbox_claim_object(request, base));
    REQUIRE(objects.size() == 4);
    CHECK(objects[0]["kind"] == "ConfigMap");
    CHECK(objects[0]["metadata"]["name"] == "osf-sandbox-0123456789ab-ca");
    CHECK(objects[0]["data"] ==
          json{{"egress-ca.crt", "PEM"},
               {"ssh_config", ssh_client_config("osf-sandbox-0123456789ab-egress", 8080)}});
    for (int i = 1; i < 4; ++i) {
        CHECK(objects[i]["apiVersion"] == "extensions.agents.x-k8s.io/v1beta1");
        CHECK(objects[i]["metadata"]["name"] == "osf-sandbox-0123456789ab");
        CHECK(objects[i]["metadata"]["namespace"] == "agents");
        CHECK(objects[i]["metadata"]["labels"]["osf.sandbox.id"] == "0123456789ab");
        CHECK(objects[i]["metadata"]["labels"]["app.kubernetes.io/managed-by"] ==
              "sandbox-kubernetes");
    }
    CHECK(objects[1]["kind"] == "SandboxTemplate");
    json pod_template = with_package_cache(sandbox_pod_template(base, request), request);
    pod_template["spec"]["activeDeadlineSeconds"] = 9 * 3600; // the lifetime and an hour
    CHECK(objects[1]["spec"]["podTemplate"] == pod_template);
    CHECK(objects[1]["spec"]["networkPolicy"] == sandbox_network_policy("0123456789ab"));
    CHECK(objects[1]["spec"]["networkPolicyManagement"] == "Managed");
    CHECK(objects[2]["kind"] == "SandboxWarmPool");
    CHECK(objects[2]["spec"] ==
          json{{"replicas", 0}, {"sandboxTemplateRef", {{"name", "osf-sandbox-0123456789ab"}}}});
    CHECK(objects[3]["kind"] == "SandboxClaim");
    CHECK(objects[3]["spec"] ==
          json{{"warmPoolRef", {{"name", "osf-sandbox-0123456789ab"}}},
               {"lifecycle",
                {{"shutdownTime", "2026-11-30T03:00:00Z"}, {"shutdownPolicy", "Delete"}}}});
    CHECK(objects[3]["metadata"]["annotations"] ==
          json{{"osf.sandbox.image", "node:24-alpine"}, // list reads it, not the template
               {"osf.sandbox.created-at", "2026-11-29T19:00:00Z"},
               {"osf.sandbox.expires-at", "2026-11-30T03:00:00Z"},
               {"osf.sandbox.pods-end-at", "2026-11-30T04:00:00Z"}});
    // A SandboxTemplate's pod template that names no image: no annotation.
    const json named =
        sandbox_claim_object(request, json{{"spec", {{"containers", json::array()}}}});
    CHECK_FALSE(named["metadata"]["annotations"].contains("osf.sandbox.image"));
    CHECK(first_container_image(json::array()) == "");
}

TEST_CASE("a named template's pod template is copied and overlaid") {
    const json base = {
        {"metadata", {{"labels", {{"team", "a"}}}}},
        {"spec",
         {{"containers",
           json::array({json{{"name", "dev"},
                             {"image", "corp/dev:1"},
                             {"env", json::array({json{{"name", "HTTPS_PROXY"}, {"value", "x"}},
                                                  json{{"name", "KEEP"}, {"value", "y"}}})}}})},
          {"initContainers", json::array({json{{"name", "init"}, {"image", "corp/init"}}})}}}};
    const json pod = sandbox_pod_template(base, osf::testing::sample_request());
    CHECK(pod["metadata"]["labels"]["team"] == "a");
    CHECK(pod["metadata"]["labels"]["osf.sandbox.role"] == "sandbox");
    CHECK(pod["metadata"]["annotations"]["kubectl.kubernetes.io/default-container"] == "dev");
    const json& c = pod["spec"]["containers"][0];
    CHECK(c["image"] == "corp/dev:1");
    CHECK_FALSE(c.contains("command")); // the template's own entrypoint stays
    CHECK(env_value(c["env"], "KEEP") == "y");
    CHECK(env_value(c["env"], "HTTPS_PROXY") == "http://osf-sandbox-0123456789ab-egress:8080");
    CHECK(pod["spec"]["initContainers"][0]["securityContext"]["allowPrivilegeEscalation"] == false);
}

TEST_CASE("overlaying twice (a snapshot used as a template) leaves one of everything") {
    auto first = osf::testing::sample_request();
    auto second = first;
    second.id = "fedcba987654";
    const json once = sandbox_pod_template(image_pod_template("x/y"), first);
    const json twice = sandbox_pod_template(once, second);
    CHECK(twice["spec"]["volumes"].size() == 5);
    CHECK(twice["spec"]["containers"][0]["volumeMounts"].size() == 5);
    CHECK(volume_named(twice, "osf-ssh-config")["configMap"]["name"] ==
          "osf-sandbox-fedcba987654-ca");
    CHECK(twice["spec"]["containers"][0]["env"].size() ==
          once["spec"]["containers"][0]["env"].size());
    CHECK(twice["metadata"]["labels"]["osf.sandbox.id"] == "fedcba987654");
    CHECK(volume_named(twice, "osf-egress-ca")["configMap"]["name"] ==
          "osf-sandbox-fedcba987654-ca");
    CHECK(env_value(twice["spec"]["containers"][0]["env"], "HTTP_PROXY") ==
          "http://osf-sandbox-fedcba987654-egress:8080");
}

TEST_CASE("a later overlay drops the earlier spec's variables and placeholders") {
    auto first = osf::testing::sample_request();
    const json once = sandbox_pod_template(image_pod_template("x/y"), first);
    CHECK(once["metadata"]["annotations"]["osf.sandbox.env-names"] ==
          "CI,HTTP_PROXY,LINEAR_TOKEN,NPM_TOKEN,WIKI_KEY");
    auto second = first;
    second.id = "fedcba987654";
    second.spec.env = {{"ONLY_NEW", "1"}};
    second.spec.secrets.clear();
    second.spec.storage = "2Gi";
    const json twice = sandbox_pod_template(once, second);
    const json& env = twice["spec"]["containers"][0]["env"];
    CHECK(env_value(env, "ONLY_NEW") == "1");
    for (const char* gone : {"CI", "LINEAR_TOKEN", "NPM_TOKEN", "WIKI_KEY"})
        CHECK(env_value(env, gone) == "defined 0 times");
    CHECK(twice["metadata"]["annotations"]["osf.sandbox.env-names"] == "ONLY_NEW");
    // Our /workspace volume takes the new size; the resources the first overlay
    // wrote are the template's own now, except what the new spec sets.
    CHECK(volume_named(twice, "workspace")["emptyDir"]["sizeLimit"] == "2Gi");
    CHECK(twice["spec"]["containers"][0]["resources"]["limits"]["cpu"] == "2");
}

TEST_CASE("dry-run List: every object in creation order, CA empty") {
    const json list =
        dry_run_list(osf::testing::sample_request(), image_pod_template("node:24-alpine"));
    CHECK(list["apiVersion"] == "v1");
    CHECK(list["kind"] == "List");
    std::vector<std::string> kinds;
    for (const auto& item : list["items"])
        kinds.push_back(item["kind"]);
    CHECK(kinds == std::vector<std::string>{"SandboxClaim", "Secret", "ConfigMap", "Pod", "Service",
                                            "NetworkPolicy", "ConfigMap", "SandboxTemplate",
                                            "SandboxWarmPool"});
    CHECK(list["items"][6]["data"]["egress-ca.crt"] == "");
}

TEST_CASE("dry-run List has no Secret when the spec has no secrets") {
    auto request = osf::testing::sample_request();
    request.spec.secrets.clear();
    request.secrets = {};
    const json list = dry_run_list(request, image_pod_template("node:24-alpine"));
    CHECK(list["items"][1]["kind"] == "ConfigMap");
    CHECK(list["items"].size() == 8);
}
