#include "kubernetes/manifests/doctor_checks.hpp"
#include "kubernetes/manifests/pod_security_refusal.hpp"
#include "kubernetes/manifests/pod_status.hpp"
#include "kubernetes/manifests/required_permissions.hpp"
#include "kubernetes/manifests/sandbox_rows.hpp"
#include "kubernetes/manifests/snapshot_objects.hpp"
#include "kubernetes/tool_check.hpp"
#include "sandbox/image_policy.hpp"
#include "sandbox/labels.hpp"
#include "sandbox/sandbox_id.hpp"
#include "sandbox/sandbox_list.hpp"
#include "sandbox/secret_plan.hpp"
#include "sandbox/settings.hpp"

#include <catch2/catch.hpp>

using nlohmann::json;
using namespace osf::kubernetes::manifests;
using namespace osf::sandbox;

TEST_CASE("sandbox IDs are 12 hex digits, normalised to lower case") {
    CHECK(normalize_sandbox_id("0123456789ab") == "0123456789ab");
    CHECK(normalize_sandbox_id("0123456789AB") == "0123456789ab");
    CHECK_FALSE(normalize_sandbox_id("0123456789a"));
    CHECK_FALSE(normalize_sandbox_id("0123456789abc"));
    CHECK_FALSE(normalize_sandbox_id("0123456789ag"));
    CHECK_FALSE(normalize_sandbox_id(""));
    CHECK_FALSE(normalize_sandbox_id("../../etc/pa"));
    CHECK(sandbox_id_from_bytes({0x00, 0x0f, 0xa0, 0xff, 0x12, 0x34}) == "000fa0ff1234");
}

TEST_CASE("settings: defaults and variables") {
    std::map<std::string, std::string> env;
    EnvLookup lookup = [&](const std::string& name) -> std::optional<std::string> {
        auto it = env.find(name);
        return it == env.end() ? std::nullopt : std::optional<std::string>(it->second);
    };
    Settings defaults = read_settings(lookup);
    CHECK(defaults.ns == "default");
    CHECK(defaults.proxy_image == "ghcr.io/opensoftware/egress-proxy:0.1.0");
    CHECK(defaults.snapshot_size == "1Gi");
    CHECK(defaults.start_timeout_seconds == 300);
    CHECK(defaults.secrets_dir == "/run/secrets");
    CHECK_FALSE(defaults.host_aliases);

    env = {{"OSF_SANDBOX_NAMESPACE", "agents"},
           {"OSF_EGRESS_PROXY_IMAGE", "r/p:2"},
           {"OSF_SANDBOX_SNAPSHOT_SIZE", "5Gi"},
           {"OSF_SANDBOX_START_TIMEOUT", "30"},
           {"OSF_SECRETS_DIR", "/s"},
           {"OSF_SANDBOX_HOST_ALIASES", "a=1.2.3.4"},
           {"OSF_OPENBAO_ADDR", "http://b:8200"},
           {"OSF_OPENBAO_MOUNT", "kv"}};
    Settings s = read_settings(lookup);
    CHECK(s.ns == "agents");
    CHECK(s.proxy_image == "r/p:2");
    CHECK(s.snapshot_size == "5Gi");
    CHECK(s.start_timeout_seconds == 30);
    CHECK(s.secrets_dir == "/s");
    CHECK(s.host_aliases == "a=1.2.3.4");
    CHECK(s.openbao_addr == "http://b:8200");
    CHECK(s.openbao_mount == "kv");

    for (const char* bad : {"0", "-1", "ten", "5s"}) {
        env = {{"OSF_SANDBOX_START_TIMEOUT", bad}};
        CHECK_THROWS_AS(read_settings(lookup), SettingsError);
    }
}

namespace {

osf::Spec spec_with(std::map<std::string, osf::SecretRef> secrets) {
    osf::Spec spec;
    spec.template_name = "alpine:3";
    spec.secrets = std::move(secrets);
    return spec;
}

osf::SecretRef ref(osf::SecretRef::Kind kind, std::string target) {
    const char* prefix = kind == osf::SecretRef::Kind::Env    ? "ref:env/"
                         : kind == osf::SecretRef::Kind::File ? "ref:file/"
                                                              : "ref:openbao/";
    return osf::SecretRef{kind, target, prefix + target};
}

} // namespace

TEST_CASE("secret plan: every kind resolvable") {
    std::map<std::string, std::string> env = {{"OSF_SECRET_A", "value-a"},
                                              {"OSF_OPENBAO_TOKEN", "t"}};
    EnvLookup lookup = [&](const std::string& name) -> std::optional<std::string> {
        auto it = env.find(name);
        return it == env.end() ? std::nullopt : std::optional<std::string>(it->second);
    };
    Settings settings;
    settings.secrets_dir = "/s";
    settings.openbao_addr = "http://bao:8200";
    std::vector<std::string> checked;
    FileExists exists = [&](const std::string& path) {
        checked.push_back(path);
        return path == "/s/b.txt";
    };
    using K = osf::SecretRef::Kind;
    const auto spec = spec_with({{"A", ref(K::Env, "A")},
                                 {"A2", ref(K::Env, "A")},
                                 {"B", ref(K::File, "b.txt")},
                                 {"C", ref(K::OpenBao, "team/c")}});
    const auto result = plan_secrets(spec, settings, lookup, exists);
    CHECK(result.errors.empty());
    CHECK(result.plan.env_names == std::vector<std::string>{"A"});
    CHECK(result.plan.file_names == std::vector<std::string>{"b.txt"});
    CHECK(result.plan.openbao);
    CHECK(checked == std::vector<std::string>{"/s/b.txt"});
}

TEST_CASE("secret plan: each unresolvable secret is named") {
    EnvLookup lookup = [](const std::string&) -> std::optional<std::string> {
        return std::nullopt;
    };
    FileExists exists = [](const std::string&) { return false; };
    Settings settings;
    using K = osf::SecretRef::Kind;
    const auto spec = spec_with({{"A", ref(K::Env, "A")},
                                 {"B", ref(K::File, "b.txt")},
                                 {"C", ref(K::OpenBao, "team/c")},
                                 {"D", ref(K::File, "bad name")}});
    const auto result = plan_secrets(spec, settings, lookup, exists);
    REQUIRE(result.errors.size() == 4);
    CHECK(result.errors[0] == "secret A (ref:env/A): OSF_SECRET_A is not set");
    CHECK(result.errors[1] ==
          "secret B (ref:file/b.txt): no file /run/secrets/b.txt (OSF_SECRETS_DIR)");
    CHECK(result.errors[2] ==
          "secret C (ref:openbao/team/c): OSF_OPENBAO_ADDR and OSF_OPENBAO_TOKEN must be set");
    CHECK(result.errors[3].find("secret D") == 0);
}

TEST_CASE("secret plan: an empty variable counts as unset") {
    EnvLookup lookup = [](const std::string&) -> std::optional<std::string> {
        return std::string();
    };
    FileExists exists = [](const std::string&) { return true; };
    const auto result = plan_secrets(spec_with({{"A", ref(osf::SecretRef::Kind::Env, "A")}}),
                                     Settings{}, lookup, exists);
    CHECK(result.errors.size() == 1);
}

namespace {

json pod_with(const json& status) {
    return {{"metadata", {{"name", "p"}}}, {"status", status}};
}

} // namespace

TEST_CASE("pod status: creating is progress, not failure") {
    const json pod = pod_with(
        {{"phase", "Pending"},
         {"containerStatuses",
          json::array({json{{"name", "sandbox"},
                            {"state", {{"waiting", {{"reason", "ContainerCreating"}}}}}}})}});
    CHECK_FALSE(pod_start_failure(pod));
    CHECK_FALSE(pod_ready(pod));
    CHECK(pod_progress(pod) == "Pending (ContainerCreating)");
    CHECK_FALSE(pod_start_failure(pod_with({{"phase", "Pending"}})));
}

TEST_CASE("pod status: ErrImagePull names container, reason, message") {
    const json pod = pod_with(
        {{"phase", "Pending"},
         {"containerStatuses",
          json::array(
              {json{{"name", "sandbox"},
                    {"state",
                     {{"waiting",
                       {{"reason", "ErrImagePull"}, {"message", "pull access denied"}}}}}}})}});
    const auto failure = pod_start_failure(pod);
    REQUIRE(failure);
    CHECK(failure->container == "sandbox");
    CHECK(failure->reason == "ErrImagePull");
    CHECK(failure->message == "pull access denied");
}

TEST_CASE("pod status: an exited container fails; a completed init container does not") {
    const json exited = pod_with(
        {{"phase", "Failed"},
         {"containerStatuses",
          json::array({json{
              {"name", "egress-proxy"},
              {"state",
               {{"terminated", {{"reason", "Error"}, {"exitCode", 2}, {"message", "bad"}}}}}}})}});
    const auto failure = pod_start_failure(exited);
    REQUIRE(failure);
    CHECK(failure->container == "egress-proxy");
    CHECK(failure->reason == "Error");
    CHECK(failure->message == "exited with code 2: bad");

    const json init_done = pod_with(
        {{"phase", "Pending"},
         {"initContainerStatuses",
          json::array(
              {json{{"name", "restore"},
                    {"state", {{"terminated", {{"reason", "Completed"}, {"exitCode", 0}}}}}}})}});
    CHECK_FALSE(pod_start_failure(init_done));
    const json crash = pod_with(
        {{"phase", "Running"},
         {"containerStatuses",
          json::array({json{{"name", "sandbox"},
                            {"state", {{"waiting", {{"reason", "CrashLoopBackOff"}}}}}}})}});
    CHECK(pod_start_failure(crash)->reason == "CrashLoopBackOff");
}

TEST_CASE("pod status: ready needs Running and the Ready condition") {
    json pod =
        pod_with({{"phase", "Running"},
                  {"conditions", json::array({json{{"type", "Ready"}, {"status", "False"}}})}});
    CHECK_FALSE(pod_ready(pod));
    CHECK(pod_progress(pod) == "Running (not ready)");
    pod["status"]["conditions"][0]["status"] = "True";
    CHECK(pod_ready(pod));
}

TEST_CASE("claim status: Ready condition and sandbox name") {
    const json claim = {{"status",
                         {{"sandbox", {{"name", "osf-sandbox-0123456789ab"}}},
                          {"conditions", json::array({json{{"type", "Ready"},
                                                           {"status", "False"},
                                                           {"reason", "SandboxNotReady"},
                                                           {"message", "m"}}})}}}};
    const auto status = claim_status(claim);
    CHECK_FALSE(status.ready);
    CHECK(status.sandbox_name == "osf-sandbox-0123456789ab");
    CHECK(status.reason == "SandboxNotReady");
    CHECK(status.message == "m");
    CHECK_FALSE(claim_status(json::object()).ready);
}

TEST_CASE("list rows: one per ID with status, age and image") {
    auto meta = [](const std::string& id, const std::string& created) {
        return json{{"labels", {{"osf.sandbox.id", id}}}, {"creationTimestamp", created}};
    };
    const json items = json::array({
        json{{"kind", "SandboxClaim"},
             {"metadata", meta("bbbbbbbbbbbb", "2026-11-29T18:00:00Z")},
             {"status",
              {{"conditions", json::array({json{{"type", "Ready"}, {"status", "True"}}})}}}},
        json{{"kind", "SandboxTemplate"},
             {"metadata", meta("bbbbbbbbbbbb", "2026-11-29T18:00:00Z")},
             {"spec",
              {{"podTemplate",
                {{"spec", {{"containers", json::array({json{{"image", "node:24"}}})}}}}}}}},
        json{{"kind", "Pod"}, {"metadata", meta("aaaaaaaaaaaa", "2026-11-29T17:00:00Z")}},
        json{{"kind", "SandboxClaim"},
             {"metadata", meta("cccccccccccc", "2026-11-29T18:59:30Z")},
             {"status",
              {{"conditions",
                json::array({json{
                    {"type", "Ready"}, {"status", "False"}, {"reason", "SandboxNotReady"}}})}}}},
        json{{"kind", "SandboxTemplate"},
             {"metadata", {{"labels", {{"osf.snapshot.of", "bbbbbbbbbbbb"}}}}}},
    });
    const auto now =
        std::chrono::system_clock::time_point(std::chrono::seconds(1795978800)); // 19:00:00Z
    const auto rows = sandbox_rows(items, now);
    REQUIRE(rows.size() == 3);
    CHECK(rows[0].id == "aaaaaaaaaaaa");
    CHECK(rows[0].status == "Starting");
    CHECK(rows[0].image == "-");
    CHECK(rows[0].age_seconds == 7200);
    CHECK(rows[1].id == "bbbbbbbbbbbb");
    CHECK(rows[1].status == "Ready");
    CHECK(rows[1].image == "node:24");
    CHECK(rows[2].status == "Starting"); // SandboxNotReady
    CHECK(rows[2].age_seconds == 30);
    // agent-sandbox's reasons as list shows them.
    CHECK(status_word("DependenciesNotReady") == "Starting");
    CHECK(status_word("") == "Starting");
    CHECK(status_word("PodFailed") == "Failed");
    CHECK(status_word("PodSucceeded") == "Exited");
    CHECK(status_word("ReconcilerError") == "Error");
    CHECK(status_word("SandboxSuspended") == "Suspended");
    CHECK(status_word("SandboxExpired") == "Expired");
    CHECK(status_word("SomethingNew") == "SomethingNew");
    // As kubectl prints ages (HumanDuration): two units while the larger is small.
    const std::vector<std::pair<long long, std::string>> ages = {
        {-3, "0s"},        {30, "30s"},         {119, "119s"},         {120, "2m"},
        {125, "2m5s"},     {599, "9m59s"},      {600, "10m"},          {7200, "120m"},
        {10740, "179m"},   {10800, "3h"},       {11100, "3h5m"},       {28799, "7h59m"},
        {28800, "8h"},     {47 * 3600, "47h"},  {48 * 3600, "2d"},     {50 * 3600, "2d2h"},
        {8 * 86400, "8d"}, {730 * 86400, "2y"}, {731 * 86400, "2y1d"}, {8 * 365 * 86400, "8y"}};
    for (const auto& [seconds, text] : ages) {
        INFO(seconds);
        CHECK(format_age(seconds) == text);
    }
    CHECK_FALSE(parse_timestamp("yesterday"));
}

TEST_CASE("snapshot objects: PVC, copy pod and template, labelled to survive destroy") {
    const SnapshotRequest request{"0123456789ab", "agents", "20261129190000", "2Gi",
                                  "node:24-alpine"};
    const json pvc = snapshot_pvc(request);
    CHECK(pvc["kind"] == "PersistentVolumeClaim");
    CHECK(pvc["metadata"]["name"] == "osf-snapshot-0123456789ab-20261129190000");
    CHECK(pvc["metadata"]["labels"] ==
          json{{"osf.snapshot.of", "0123456789ab"},
               {"app.kubernetes.io/managed-by", "sandbox-kubernetes"}});
    CHECK(pvc["spec"]["resources"]["requests"]["storage"] == "2Gi");
    CHECK(pvc["spec"]["accessModes"] == json::array({"ReadWriteOnce"}));

    const json copy = snapshot_copy_pod(request);
    CHECK(copy["metadata"]["name"] == "osf-snapshot-0123456789ab-20261129190000-copy");
    CHECK(copy["metadata"]["labels"]["osf.sandbox.id"] ==
          "0123456789ab"); // destroy removes a leftover
    CHECK(copy["spec"]["containers"][0]["image"] == "node:24-alpine");
    CHECK(copy["spec"]["containers"][0]["volumeMounts"][0]["mountPath"] == "/data");
    CHECK(copy["spec"]["volumes"][0]["persistentVolumeClaim"]["claimName"] ==
          "osf-snapshot-0123456789ab-20261129190000");

    const json source = {
        {"metadata", {{"name", "osf-sandbox-0123456789ab"}, {"resourceVersion", "7"}}},
        {"spec",
         {{"podTemplate",
           {{"metadata",
             {{"labels", {{"osf.sandbox.id", "0123456789ab"}, {"osf.sandbox.role", "sandbox"}}}}},
            {"spec",
             {{"containers", json::array({json{{"name", "sandbox"}, {"image", "node:24-alpine"}}})},
              {"volumes",
               json::array({json{{"name", "workspace"}, {"emptyDir", json::object()}}})}}}}},
          {"networkPolicy", {{"ingress", json::array()}}}}}};
    const json tmpl = snapshot_template(source, request);
    CHECK(tmpl["kind"] == "SandboxTemplate");
    CHECK(tmpl["metadata"] == json{{"name", "osf-snapshot-0123456789ab-20261129190000"},
                                   {"namespace", "agents"},
                                   {"labels", snapshot_labels("0123456789ab")}});
    const json& pod = tmpl["spec"]["podTemplate"];
    CHECK(pod["metadata"]["labels"] == json{{"osf.snapshot.of", "0123456789ab"}});
    CHECK(pod["spec"]["volumes"][1]["persistentVolumeClaim"] ==
          json{{"claimName", "osf-snapshot-0123456789ab-20261129190000"}, {"readOnly", true}});
    const json& restore = pod["spec"]["initContainers"][0];
    CHECK(restore["name"] == "osf-restore-workspace");
    CHECK(restore["command"] == json::array({"sh", "-c", "cp -a /osf-snapshot/. /workspace/"}));
    CHECK(restore["volumeMounts"][1] == json{{"name", "workspace"}, {"mountPath", "/workspace"}});
    CHECK(tmpl["spec"]["networkPolicy"] == source["spec"]["networkPolicy"]);
}

TEST_CASE("image patterns: split, match, the first refused image of a pod template") {
    using osf::sandbox::image_allowed;
    CHECK(osf::sandbox::split_image_patterns(" a/* ,, node:24-* ,") ==
          std::vector<std::string>{"a/*", "node:24-*"});
    struct Row {
        const char* image;
        std::vector<std::string> patterns;
        bool allowed;
    };
    const Row rows[] = {
        {"anything", {}, true},
        {"ghcr.io/acme/dev:1", {"ghcr.io/acme/*"}, true},
        {"ghcr.io/acme/team/dev:1", {"ghcr.io/acme/*"}, true}, // '*' crosses '/'
        {"ghcr.io/acmex/dev:1", {"ghcr.io/acme/*"}, false},
        {"node:24-alpine", {"ghcr.io/*", "node:24-*"}, true},
        {"node:22-alpine", {"node:24-*"}, false},
        {"evil.example/ghcr.io/acme/x", {"ghcr.io/acme/*"}, false}, // the whole reference
        {"node:24", {"node:2?"}, true},
    };
    for (const auto& row : rows) {
        INFO(row.image);
        CHECK(image_allowed(row.image, row.patterns) == row.allowed);
    }
    const nlohmann::json pod = {
        {"spec",
         {{"initContainers", nlohmann::json::array({{{"name", "i"}, {"image", "ok/i"}}})},
          {"containers", nlohmann::json::array({{{"name", "c"}, {"image", "bad/c"}}})}}}};
    CHECK(osf::sandbox::refused_image(pod, {"ok/*"}) == "bad/c");
    CHECK_FALSE(osf::sandbox::refused_image(pod, {"ok/*", "bad/*"}));
}

TEST_CASE("tool check: what each kubectl answer means") {
    using osf::kubernetes::tool_check_command;
    using osf::kubernetes::tool_problem;
    using osf::kubernetes::kubectl::KubectlResult;
    CHECK(tool_check_command({"git", "timeout"})[2].rfind("for tool in env tar cp git timeout; ",
                                                          0) == 0);
    CHECK_FALSE(tool_problem(KubectlResult{0, "", ""}));
    CHECK(tool_problem(KubectlResult{0, "tar\ncp\ngit\n", ""}) ==
          "the image has no tar (copy and snapshot), cp (a sandbox started from a snapshot of "
          "this one), git (OSF_SANDBOX_REQUIRED_TOOLS)");
    CHECK(tool_problem(KubectlResult{1, "", "command terminated with exit code 127\n"}) ==
          "the image has no sh (exec, copy, snapshot and a snapshot's restore run it)");
    CHECK(tool_problem(KubectlResult{1, "", "error: unable to upgrade connection\n"}) ==
          "could not check the image's tools: error: unable to upgrade connection");
}

TEST_CASE("a claim that does not bind is named with the newest Warning about it") {
    const json pvc = {{"metadata", {{"name", "workspace-x"}}}, {"status", {{"phase", "Pending"}}}};
    auto event = [](const std::string& type, const std::string& reason, const std::string& when) {
        return json{{"type", type},
                    {"reason", reason},
                    {"message", reason + " at " + when},
                    {"lastTimestamp", when}};
    };
    const json events = {
        {"items", json::array({event("Warning", "ProvisioningFailed", "2026-12-04T10:00:00Z"),
                               event("Warning", "ProvisioningFailed", "2026-12-04T10:00:09Z"),
                               event("Normal", "WaitForFirstConsumer", "2026-12-04T10:00:10Z")})}};
    CHECK(claim_binding_problem(pvc, events) ==
          "PersistentVolumeClaim workspace-x is Pending: ProvisioningFailed: ProvisioningFailed at "
          "2026-12-04T10:00:09Z");
    // No Warning (or events that could not be read): the phase and where to look.
    CHECK(claim_binding_problem(pvc, json::object()) ==
          "PersistentVolumeClaim workspace-x is Pending (kubectl describe pvc workspace-x shows "
          "its events)");
    CHECK(claim_binding_problem(pvc, json::value_t::discarded) ==
          "PersistentVolumeClaim workspace-x is Pending (kubectl describe pvc workspace-x shows "
          "its events)");
    CHECK_FALSE(claim_binding_problem({{"status", {{"phase", "Bound"}}}}, events));
}

TEST_CASE("a Pod Security refusal names the level and fields; root mode only when about root") {
    const std::string hostpath =
        "Error from server (Forbidden): pods \"p\" is forbidden: violates PodSecurity "
        "\"baseline:latest\": hostPath volumes (volume \"host\")";
    CHECK(pod_security_refusal(hostpath, false) ==
          "Pod Security \"baseline:latest\" forbids hostPath volumes (volume \"host\")");
    const std::string root = "pods \"p\" is forbidden: violates PodSecurity \"restricted:latest\": "
                             "runAsNonRoot != true (pod or container \"sandbox\" must set "
                             "securityContext.runAsNonRoot=true)";
    CHECK(pod_security_refusal(root, false) ==
          "Pod Security \"restricted:latest\" forbids runAsNonRoot != true (pod or container "
          "\"sandbox\" must set securityContext.runAsNonRoot=true) (without \"user\" in its spec "
          "a sandbox runs in root mode, which Pod Security \"restricted\" refuses)");
    CHECK(pod_security_refusal(root, true).find("root mode") == std::string::npos);
    CHECK(pod_security_refusal("something else", false) == "something else");
}

TEST_CASE("OSF_SANDBOX_POD_LABELS: Kubernetes labels, never one the adapter sets") {
    CHECK_FALSE(pod_label_problem("team", "a"));
    CHECK_FALSE(pod_label_problem("example.com/cost-center", "42"));
    CHECK_FALSE(pod_label_problem("empty", ""));
    CHECK(pod_label_problem("Bad Key", "x") == "'Bad Key' is not a label key");
    CHECK(pod_label_problem("Example.com/x", "y") == "'Example.com/x' is not a label key");
    CHECK(pod_label_problem("team", "-a") == "the value of team is not a label value");
    CHECK(pod_label_problem("team", std::string(64, 'a')) ==
          "the value of team is not a label value");
    for (const char* key : {"osf.sandbox.id", "osf.sandbox.role", "app.kubernetes.io/managed-by",
                            "app.kubernetes.io/component", "agents.x-k8s.io/sandbox-name-hash"}) {
        INFO(key);
        CHECK(pod_label_problem(key, "x") ==
              std::string(key) + " is set by sandbox-kubernetes or agent-sandbox");
    }
}

TEST_CASE("doctor: each check's verdict and fix") {
    using namespace osf::kubernetes::manifests;
    using namespace osf::sandbox;
    using Verdict = DoctorCheck::Verdict;
    CHECK(agent_sandbox_check("v1\nagents.x-k8s.io/v1beta1\nextensions.agents.x-k8s.io/v1beta1\n")
              .verdict == Verdict::ok);
    const auto missing = agent_sandbox_check("v1\nagents.x-k8s.io/v1alpha1\n");
    CHECK(missing.verdict == Verdict::fail);
    CHECK(missing.detail ==
          "agents.x-k8s.io/v1beta1, extensions.agents.x-k8s.io/v1beta1 not served");
    CHECK(namespace_check("a", std::nullopt, false).verdict == Verdict::fail);
    CHECK(namespace_check("a", std::nullopt, true).verdict == Verdict::warn);
    const json labelled = {
        {"metadata", {{"labels", {{"pod-security.kubernetes.io/enforce", "baseline"}}}}}};
    CHECK(pod_security_check("a", labelled).verdict == Verdict::ok);
    CHECK(pod_security_check("a", json::object()).verdict == Verdict::warn);
    CHECK(rbac_check("a", {}, 53, "").detail ==
          "all 53 permissions the commands use are granted in a");
    CHECK(rbac_check("a", {"create pods/exec"}, 53, "").verdict == Verdict::fail);
    CHECK(rbac_check("a", {}, 53, "Unauthorized").verdict == Verdict::fail);
    const json cronjobs = {
        {"items",
         json::array(
             {json{{"metadata", {{"name", "x-gc"}}},
                   {"spec",
                    {{"jobTemplate",
                      {{"spec",
                        {{"template",
                          {{"spec",
                            {{"containers",
                              json::array({json{{"command", json::array({"sandbox-kubernetes",
                                                                         "gc"})}}})}}}}}}}}}}}}})}};
    CHECK(gc_check("a", cronjobs).detail == "CronJob x-gc runs sandbox-kubernetes gc");
    CHECK(gc_check("a", json{{"items", json::array()}}).verdict == Verdict::warn);
    CHECK(format_check({Verdict::fail, "rbac", "denied", "grant it"}) ==
          "FAIL  rbac: denied; fix: grant it");
    CHECK(format_check({Verdict::ok, "kubectl", "v1.32.3", ""}) == "ok    kubectl: v1.32.3");
    CHECK(doctor_exit_code({{Verdict::ok, "a", "", ""}, {Verdict::warn, "b", "", ""}}) == 0);
    CHECK(doctor_exit_code({{Verdict::warn, "a", "", ""}, {Verdict::fail, "b", "", ""}}) == 1);
    // kubectl auth can-i's words for a permission
    CHECK(can_i_args({"", "pods/exec", {"create"}}, "create") ==
          std::vector<std::string>{"can-i", "create", "pods", "--subresource=exec"});
    CHECK(can_i_args({"extensions.agents.x-k8s.io", "sandboxclaims", {"get"}}, "get") ==
          std::vector<std::string>{"can-i", "get", "sandboxclaims.extensions.agents.x-k8s.io"});
}
