#include "kubernetes/manifests/egress_objects.hpp"
#include "request_fixture.hpp"

#include <catch2/catch.hpp>

using nlohmann::json;
using namespace osf::kubernetes::manifests;
using namespace osf::sandbox;

namespace {

const json labels = {{"osf.sandbox.id", "0123456789ab"},
                     {"app.kubernetes.io/managed-by", "sandbox-kubernetes"}};

json env_named(const json& env, const std::string& name) {
    for (const auto& var : env)
        if (var["name"] == name) return var;
    return nullptr;
}

} // namespace

TEST_CASE("egress pod: name, labels, image, arguments") {
    const json pod = egress_pod(osf::testing::sample_request());
    CHECK(pod["apiVersion"] == "v1");
    CHECK(pod["kind"] == "Pod");
    CHECK(pod["metadata"]["name"] == "osf-sandbox-0123456789ab-egress");
    CHECK(pod["metadata"]["namespace"] == "agents");
    json expected_labels = labels;
    expected_labels["osf.sandbox.role"] = "egress";
    expected_labels["app.kubernetes.io/component"] = "egress-proxy";
    CHECK(pod["metadata"]["labels"] == expected_labels);
    // OSF_SANDBOX_POD_LABELS are added; they never replace the adapter's.
    auto labelled = osf::testing::sample_request();
    labelled.settings.pod_labels = {{"team", "a"}, {"example.com/cost-center", "42"}};
    json with_extra = expected_labels;
    with_extra["team"] = "a";
    with_extra["example.com/cost-center"] = "42";
    CHECK(egress_pod(labelled)["metadata"]["labels"] == with_extra);
    REQUIRE(pod["spec"]["containers"].size() == 1);
    const json& c = pod["spec"]["containers"][0];
    CHECK(c["name"] == "egress-proxy");
    CHECK(c["image"] == "registry.example/egress-proxy:1");
    CHECK(c["command"] == json::array({"/usr/local/bin/egress-proxy"}));
    CHECK(c["args"] == json::array({"--spec", "/etc/osf/spec/spec.json", "--listen", "0.0.0.0:8080",
                                    "--admin-listen", "0.0.0.0:9090", "--state-dir",
                                    "/var/lib/egress-proxy", "--log-stdout"}));
    CHECK(c["readinessProbe"]["httpGet"] == json{{"path", "/readyz"}, {"port", 9090}});
    CHECK(c["ports"][0] == json{{"name", "proxy"}, {"containerPort", 8080}, {"protocol", "TCP"}});
}

TEST_CASE("egress pod: hardened") {
    const json pod = egress_pod(osf::testing::sample_request());
    const json& spec = pod["spec"];
    CHECK(spec["automountServiceAccountToken"] == false);
    CHECK(spec["enableServiceLinks"] == false);
    CHECK(spec["restartPolicy"] == "Never");
    CHECK(spec["securityContext"]["runAsNonRoot"] == true);
    CHECK(spec["securityContext"]["runAsUser"] == 65532);
    CHECK(spec["securityContext"]["seccompProfile"]["type"] == "RuntimeDefault");
    const json& sc = spec["containers"][0]["securityContext"];
    CHECK(sc["allowPrivilegeEscalation"] == false);
    CHECK(sc["privileged"] == false);
    CHECK(sc["readOnlyRootFilesystem"] == true);
    CHECK(sc["runAsNonRoot"] == true);
    CHECK(sc["capabilities"] == json{{"drop", json::array({"ALL"})}});
    CHECK(sc["seccompProfile"]["type"] == "RuntimeDefault");
}

TEST_CASE("egress pod: state emptyDir, spec and secret files mounted") {
    const json pod = egress_pod(osf::testing::sample_request());
    const json& volumes = pod["spec"]["volumes"];
    CHECK(volumes[0] == json{{"name", "state"}, {"emptyDir", {{"sizeLimit", "1Gi"}}}});
    CHECK(volumes[1]["configMap"]["name"] == "osf-sandbox-0123456789ab-spec");
    CHECK(volumes[2]["secret"]["secretName"] == "osf-sandbox-0123456789ab-secrets");
    CHECK(volumes[2]["secret"]["items"] ==
          json::array({json{{"key", "file.npm-token"}, {"path", "npm-token"}}}));
    const json& mounts = pod["spec"]["containers"][0]["volumeMounts"];
    CHECK(mounts[0] == json{{"name", "state"}, {"mountPath", "/var/lib/egress-proxy"}});
    CHECK(mounts[1] == json{{"name", "spec"}, {"mountPath", "/etc/osf/spec"}, {"readOnly", true}});
    CHECK(mounts[2] ==
          json{{"name", "secrets"}, {"mountPath", "/run/secrets/osf"}, {"readOnly", true}});
}

TEST_CASE("egress pod: no secret volume without file secrets") {
    auto request = osf::testing::sample_request();
    request.secrets.file_names.clear();
    const json pod = egress_pod(request);
    CHECK(pod["spec"]["volumes"].size() == 2);
    CHECK(pod["spec"]["containers"][0]["volumeMounts"].size() == 2);
}

TEST_CASE("egress pod: variables from the Secret, OpenBao and aliases for the proxy only") {
    const json env = egress_pod(osf::testing::sample_request())["spec"]["containers"][0]["env"];
    CHECK(env_named(env, "OSF_SECRETS_DIR")["value"] == "/run/secrets/osf");
    CHECK(env_named(env, "OSF_SECRET_LINEAR_TOKEN")["valueFrom"]["secretKeyRef"] ==
          json{{"name", "osf-sandbox-0123456789ab-secrets"}, {"key", "env.LINEAR_TOKEN"}});
    CHECK(env_named(env, "OSF_OPENBAO_ADDR")["value"] == "https://bao.example:8200");
    CHECK(env_named(env, "OSF_OPENBAO_TOKEN")["valueFrom"]["secretKeyRef"]["key"] ==
          "openbao-token");
    CHECK(env_named(env, "OSF_OPENBAO_MOUNT")["value"] == "kv");
    CHECK(env_named(env, "OSF_SANDBOX_HOST_ALIASES")["value"] == "api.test=127.0.0.1");
    // No value is ever written into the pod itself.
    CHECK(env.dump().find("sekrit") == std::string::npos);
}

TEST_CASE("egress pod: no OpenBao variables when no secret uses it") {
    auto request = osf::testing::sample_request();
    request.secrets.openbao = false;
    request.settings.host_aliases.reset();
    const json env = egress_pod(request)["spec"]["containers"][0]["env"];
    CHECK(env_named(env, "OSF_OPENBAO_ADDR").is_null());
    CHECK(env_named(env, "OSF_OPENBAO_TOKEN").is_null());
    CHECK(env_named(env, "OSF_SANDBOX_HOST_ALIASES").is_null());
}

TEST_CASE("egress service selects the egress pod on 8080, for HTTP and for SOCKS5") {
    const json service = egress_service(osf::testing::sample_request());
    CHECK(service["kind"] == "Service");
    CHECK(service["metadata"]["name"] == "osf-sandbox-0123456789ab-egress");
    CHECK(service["metadata"]["labels"] == labels);
    CHECK(service["spec"]["selector"] ==
          json{{"osf.sandbox.id", "0123456789ab"}, {"osf.sandbox.role", "egress"}});
    // One container port: the proxy tells SOCKS5 from HTTP by the first byte, so the
    // network policies (which match the pod's port) open nothing more for 1080.
    CHECK(
        service["spec"]["ports"] ==
        json::array(
            {json{{"name", "proxy"}, {"port", 8080}, {"targetPort", 8080}, {"protocol", "TCP"}},
             json{{"name", "socks"}, {"port", 1080}, {"targetPort", 8080}, {"protocol", "TCP"}}}));
    CHECK(socks_url("0123456789ab") == "socks5h://osf-sandbox-0123456789ab-egress:1080");
}

TEST_CASE("egress network policy admits only its own sandbox on 8080, ingress only") {
    const json policy = egress_network_policy(osf::testing::sample_request());
    CHECK(policy["apiVersion"] == "networking.k8s.io/v1");
    CHECK(policy["kind"] == "NetworkPolicy");
    CHECK(policy["metadata"]["name"] == "osf-sandbox-0123456789ab-egress");
    CHECK(policy["metadata"]["labels"] == labels);
    CHECK(policy["spec"]["podSelector"]["matchLabels"] ==
          json{{"osf.sandbox.id", "0123456789ab"}, {"osf.sandbox.role", "egress"}});
    CHECK(policy["spec"]["policyTypes"] == json::array({"Ingress"}));
    REQUIRE(policy["spec"]["ingress"].size() == 1);
    const json& rule = policy["spec"]["ingress"][0];
    CHECK(rule["from"] ==
          json::array(
              {json{{"podSelector",
                     {{"matchLabels",
                       {{"osf.sandbox.id", "0123456789ab"}, {"osf.sandbox.role", "sandbox"}}}}}}}));
    CHECK(rule["ports"] == json::array({json{{"protocol", "TCP"}, {"port", 8080}}}));
}

TEST_CASE("spec ConfigMap holds the spec text unchanged") {
    const json config = spec_config_map(osf::testing::sample_request());
    CHECK(config["metadata"]["name"] == "osf-sandbox-0123456789ab-spec");
    CHECK(config["data"]["spec.json"] == R"({"template":"node:24-alpine"})");
}

TEST_CASE("secret preview shows placeholders, never values") {
    const json secret = egress_secret_preview(osf::testing::sample_request());
    CHECK(secret["kind"] == "Secret");
    CHECK(secret["metadata"]["name"] == "osf-sandbox-0123456789ab-secrets");
    CHECK(secret["metadata"]["labels"] == labels);
    CHECK(secret["stringData"] ==
          json{{"env.LINEAR_TOKEN", "osf-secret-placeholder-LINEAR_TOKEN"},
               {"file.npm-token", "osf-secret-placeholder-npm-token"},
               {"openbao-token", "osf-secret-placeholder-OSF_OPENBAO_TOKEN"}});
}

TEST_CASE("egress pod: its own small requests and limits") {
    const json pod = egress_pod(osf::testing::sample_request());
    CHECK(pod["spec"]["containers"][0]["resources"] ==
          json{{"requests", {{"cpu", "100m"}, {"memory", "64Mi"}, {"ephemeral-storage", "64Mi"}}},
               {"limits", {{"cpu", "1"}, {"memory", "512Mi"}, {"ephemeral-storage", "1Gi"}}}});
}

TEST_CASE("spec ConfigMap: allow and revoke patch its spec file and read it back") {
    const std::string text = "{\"egress\": [\"a.test\", \"b.test\"]}\n";
    const json patch = spec_config_patch(text);
    CHECK(patch == json{{"data", {{"spec.json", text}}}});
    CHECK(spec_text_of(json{{"kind", "ConfigMap"}, {"data", {{"spec.json", text}}}}) == text);
    // What create writes is what allow reads.
    const auto request = osf::testing::sample_request();
    CHECK(spec_text_of(spec_config_map(request)) == request.spec_text);
    CHECK_FALSE(spec_text_of(json{{"kind", "ConfigMap"}}));
    CHECK_FALSE(spec_text_of(json{{"data", {{"other", "x"}}}}));
    CHECK_FALSE(spec_text_of(json{{"data", {{"spec.json", 1}}}}));
    CHECK_FALSE(spec_text_of(json()));
}

TEST_CASE("egress pod: the upstream CA bundle from its own ConfigMap, and the pull policy") {
    auto request = osf::testing::sample_request();
    const json plain = egress_pod(request);
    CHECK_FALSE(plain["spec"]["containers"][0].contains("imagePullPolicy"));
    CHECK(plain.dump().find("upstream-ca") == std::string::npos);

    request.upstream_ca_pem = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
    request.settings.image_pull_policy = "IfNotPresent";
    const json pod = egress_pod(request);
    const json& container = pod["spec"]["containers"][0];
    CHECK(container["imagePullPolicy"] == "IfNotPresent");
    const json args = container["args"];
    REQUIRE(args.size() >= 2);
    CHECK(args[args.size() - 2] == "--upstream-ca");
    CHECK(args.back() == "/etc/osf/upstream-ca/upstream-ca.crt");
    CHECK(container["volumeMounts"].back() ==
          json{{"name", "upstream-ca"}, {"mountPath", "/etc/osf/upstream-ca"}, {"readOnly", true}});
    CHECK(pod["spec"]["volumes"].back() ==
          json{{"name", "upstream-ca"},
               {"configMap", {{"name", "osf-sandbox-0123456789ab-upstream-ca"}}}});
    const json map = upstream_ca_config_map(request);
    CHECK(map["kind"] == "ConfigMap");
    CHECK(map["metadata"]["name"] == "osf-sandbox-0123456789ab-upstream-ca");
    CHECK(map["metadata"]["labels"] == labels);
    CHECK(map["data"] == json{{"upstream-ca.crt", request.upstream_ca_pem}});
}
