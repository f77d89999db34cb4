// The subcommands driven through the CLI with a fake kubectl: exit codes,
// messages, the exact kubectl invocations and clean-up after failures.
#include "kubernetes/manifests/exec_relay.hpp"
#include "kubernetes/manifests/snapshot_objects.hpp"
#include "kubernetes/manifests/ssh_client_config.hpp"
#include "kubernetes/register_commands.hpp"
#include "sandbox/exec_stop.hpp"
#include "test_support.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <unistd.h>

using nlohmann::json;
using osf::testing::fail;
using osf::testing::ok;
using osf::testing::TestContext;

namespace {

const std::string kId = "0123456789ab";
const std::string kPem = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
const std::string kLogKeyPem = "-----BEGIN PUBLIC KEY-----\nMCow\n-----END PUBLIC KEY-----\n";

int run(TestContext& t, std::vector<std::string> args) {
    CLI::App app{"sandbox-kubernetes"};
    osf::kubernetes::register_commands(app, t.context);
    args.insert(args.begin(), "sandbox-kubernetes");
    std::vector<const char*> argv;
    for (const auto& arg : args)
        argv.push_back(arg.c_str());
    return osf::kubernetes::run_cli(app, t.context, static_cast<int>(argv.size()), argv.data());
}

std::string write_spec(const std::string& text) {
    static int counter = 0;
    const auto path =
        std::filesystem::temp_directory_path() / ("osf-adapter-unit-" + std::to_string(::getpid()) +
                                                  "-" + std::to_string(counter++) + ".json");
    std::ofstream(path) << text;
    return path.string();
}

const std::string kSpec = R"({"template": "node:24-alpine", "cpu": 2, "memory": "4Gi",
  "egress": ["api.linear.app"], "secrets": {"LINEAR_TOKEN": "ref:env/LINEAR_TOKEN", "NPM": "ref:file/npm"}})";

json ready_pod() {
    return {{"kind", "Pod"},
            {"status",
             {{"phase", "Running"},
              {"conditions", json::array({json{{"type", "Ready"}, {"status", "True"}}})}}}};
}

json pending_pod() {
    return {{"kind", "Pod"},
            {"status",
             {{"phase", "Pending"},
              {"containerStatuses",
               json::array({json{{"name", "egress-proxy"},
                                 {"state", {{"waiting", {{"reason", "ContainerCreating"}}}}}}})}}}};
}

json ready_claim() {
    return {{"kind", "SandboxClaim"},
            {"metadata",
             {{"name", "osf-sandbox-" + kId},
              {"uid", "claim-uid-1"},
              {"annotations", {{"osf.sandbox.created-at", "2026-11-29T18:00:00Z"}}}}},
            {"spec", {{"lifecycle", {{"shutdownTime", "2026-11-29T20:00:00Z"}}}}},
            {"status",
             {{"sandbox", {{"name", "osf-sandbox-" + kId}}},
              {"conditions", json::array({json{{"type", "Ready"}, {"status", "True"}}})}}}};
}

const std::vector<std::string> kGetEgress = {"get", "pods", "osf-sandbox-" + kId + "-egress"};
const std::vector<std::string> kGetSandboxPod = {"get", "pods", "osf-sandbox-" + kId};
const std::vector<std::string> kGetClaim = {
    "get", "sandboxclaims.v1beta1.extensions.agents.x-k8s.io", "osf-sandbox-" + kId};
const std::vector<std::string> kGetTemplatePolicy = {"get", "networkpolicies.v1.networking.k8s.io",
                                                     "osf-sandbox-" + kId + "-network-policy"};
const std::vector<std::string> kGetTemplate = {
    "get", "sandboxtemplates.v1beta1.extensions.agents.x-k8s.io", "osf-sandbox-" + kId};

const std::vector<std::string> kExecCa = {"exec", "osf-sandbox-" + kId + "-egress"};
// The claim, made alone first: everything else is created owned by it.
const std::vector<std::string> kCreateClaim = {"create", "--namespace", "default", "-o", "json"};

// A cluster in which everything starts.
void healthy_cluster(TestContext& t) {
    t.env = {{"OSF_SECRET_LINEAR_TOKEN", "sekrit-value"}, {"OSF_SECRETS_DIR", "/secrets"}};
    t.files = {"/secrets/npm"};
    t.kubectl.on(kGetEgress, ok(ready_pod().dump()));
    t.kubectl.on(kGetSandboxPod, ok(ready_pod().dump()));
    t.kubectl.on(kGetClaim, ok(ready_claim().dump()));
    t.kubectl.on(kExecCa, ok(kPem + kLogKeyPem));
    t.kubectl.on(kCreateClaim, ok(ready_claim().dump()));
    t.kubectl.on({"get", "services", "osf-sandbox-" + kId + "-egress"},
                 ok(R"({"kind":"Service","spec":{"clusterIP":"10.96.0.10"}})"));
    // The NetworkPolicy agent-sandbox makes from the template.
    t.kubectl.on(kGetTemplatePolicy, ok(R"({"kind":"NetworkPolicy"})"));
}

// The Secret by its name, without kubectl's wait (which would read it), then
// the rest by name (a claim was found) or by label (none was)., then the rest by name (a claim was
// found) or by label (none was).
bool cleaned_up(const TestContext& t) {
    const bool by_name =
        !t.kubectl
             .find({"delete",
                    "sandboxwarmpools.v1beta1.extensions.agents.x-k8s.io/osf-sandbox-" + kId})
             .empty();
    const bool by_label =
        !t.kubectl
             .find({"delete",
                    "sandboxclaims.v1beta1.extensions.agents.x-k8s.io,sandboxwarmpools.extensions."
                    "agents."
                    "x-k8s.io,"
                    "sandboxes.v1beta1.agents.x-k8s.io,sandboxtemplates.v1beta1.extensions.agents."
                    "x-k8s.io,pods,"
                    "services,"
                    "networkpolicies.v1.networking.k8s.io,configmaps,persistentvolumeclaims",
                    "--namespace", "default", "-l", "osf.sandbox.id=" + kId, "--ignore-not-found"})
             .empty();
    return !t.kubectl
                .find({"delete", "secrets", "osf-sandbox-" + kId + "-secrets", "--namespace",
                       "default", "--ignore-not-found", "--wait=false"})
                .empty() &&
           (by_name || by_label);
}

} // namespace

TEST_CASE("cli: usage errors exit 2 and call no kubectl") {
    TestContext t;
    CHECK(run(t, {}) == 2);
    CHECK(run(t, {"frobnicate"}) == 2);
    CHECK(run(t, {"exec"}) == 2);
    CHECK(run(t, {"exec", kId}) == 2);
    CHECK(run(t, {"destroy"}) == 2);
    CHECK(run(t, {"copy", "only-one"}) == 2);
    CHECK(run(t, {"create"}) == 2);
    CHECK(run(t, {"destroy", "xyz"}) == 2);
    CHECK(run(t, {"exec", "0123456789a", "--", "ls"}) == 2);
    CHECK(run(t, {"snapshot", "0123456789abcd"}) == 2);
    CHECK(run(t, {"egress-log", "not-an-id!!"}) == 2);
    CHECK(run(t, {"copy", "./a", "./b"}) == 2);
    CHECK(run(t, {"copy", kId + ":a", kId + ":b"}) == 2);
    CHECK(run(t, {"copy", "nothex12345x:a", "./b"}) == 2);
    CHECK(t.kubectl.calls.empty());
    CHECK(t.err.str().find("invalid sandbox ID 'xyz': expected 12 hex digits") !=
          std::string::npos);
}

TEST_CASE("cli: --help exits 0 for the app and every subcommand") {
    for (const char* sub : {"create", "exec", "copy", "snapshot", "destroy", "list", "egress-log",
                            "extend", "gc", "suspend", "resume", "allow", "revoke"}) {
        TestContext t;
        CHECK(run(t, {sub, "--help"}) == 0);
        CHECK(t.out.str().find(sub) != std::string::npos);
    }
    TestContext t;
    CHECK(run(t, {"--help"}) == 0);
}

TEST_CASE("create: an invalid spec exits 2 naming the JSON path, before any kubectl call") {
    TestContext t;
    CHECK(run(t, {"create", write_spec(R"({"template": "alpine:3", "bogus": 1})")}) == 2);
    CHECK(t.err.str().find("invalid spec") != std::string::npos);
    CHECK(t.err.str().find("$.bogus") != std::string::npos);
    CHECK(t.kubectl.calls.empty());
    TestContext missing;
    CHECK(run(missing, {"create", "/nonexistent/spec.json"}) == 2);
    CHECK(missing.err.str().find("cannot read spec /nonexistent/spec.json") != std::string::npos);
}

TEST_CASE("create: an unresolvable secret exits 2 before any kubectl call") {
    TestContext t;
    t.files = {"/run/secrets/npm"};
    CHECK(run(t, {"create", write_spec(kSpec)}) == 2);
    CHECK(t.err.str().find(
              "secret LINEAR_TOKEN (ref:env/LINEAR_TOKEN): OSF_SECRET_LINEAR_TOKEN is not set") !=
          std::string::npos);
    CHECK(t.kubectl.calls.empty());
    TestContext dry;
    CHECK(run(dry, {"create", "--dry-run", write_spec(kSpec)}) == 2);
}

TEST_CASE("create --dry-run prints a List, touches no cluster, shows no secret value") {
    TestContext t;
    healthy_cluster(t);
    CHECK(run(t, {"create", "--dry-run", write_spec(kSpec)}) == 0);
    CHECK(t.kubectl.calls.empty());
    const json list = json::parse(t.out.str());
    CHECK(list["kind"] == "List");
    CHECK(list["items"].size() == 9);
    CHECK(list["items"][1]["metadata"]["name"] == "osf-sandbox-" + kId + "-secrets");
    CHECK(t.out.str().find("sekrit-value") == std::string::npos);
}

TEST_CASE("create: the exact kubectl calls, in order, and the ID on stdout") {
    TestContext t;
    healthy_cluster(t);
    REQUIRE(run(t, {"create", write_spec(kSpec)}) == 0);
    CHECK(t.out.str() == kId + "\n");

    // First a server-side dry run of the sandbox's pod (Pod Security admission).
    REQUIRE(t.kubectl.pipelines.size() >= 2);
    CHECK(t.kubectl.pipelines[0][0].args == std::vector<std::string>{"create", "--namespace",
                                                                     "default", "--dry-run=server",
                                                                     "-o", "name", "-f", "-"});
    // The claim alone, with its lifecycle, its uid read from what kubectl made.
    REQUIRE(t.kubectl.pipelines.size() >= 3);
    CHECK(t.kubectl.pipelines[1][0].args ==
          std::vector<std::string>{"create", "--namespace", "default", "-o", "json", "-f", "-"});
    const json claim = json::parse(t.kubectl.pipelines[1][0].input);
    CHECK(claim["kind"] == "SandboxClaim");
    // The default lifetime (8h from 19:00) ends the claim.
    CHECK(claim["spec"]["lifecycle"] ==
          json{{"shutdownTime", "2026-11-30T03:00:00Z"}, {"shutdownPolicy", "Delete"}});
    const std::string owner =
        R"([{"apiVersion":"extensions.agents.x-k8s.io/v1beta1","kind":"SandboxClaim",)"
        R"("name":"osf-sandbox-0123456789ab","uid":"claim-uid-1"}])";
    // The Secret: a three-stage pipeline; the value travels on fd 3, never in args. It is
    // made labelled and owned by the claim: nothing has to read it to patch it.
    const auto& secret = t.kubectl.pipelines[2];
    REQUIRE(secret.size() == 3);
    CHECK(secret[0].args ==
          std::vector<std::string>{"create", "secret", "generic", "osf-sandbox-" + kId + "-secrets",
                                   "--namespace", "default", "--dry-run=client", "-o", "json",
                                   "--from-file=env.LINEAR_TOKEN=/dev/fd/3",
                                   "--from-file=file.npm=/secrets/npm"});
    CHECK(secret[0].extra_inputs == std::vector<std::string>{"sekrit-value"});
    CHECK(secret[1].args ==
          std::vector<std::string>{
              "patch", "--local", "-f", "-", "--type", "merge", "-p",
              R"({"metadata":{"labels":{"app.kubernetes.io/managed-by":"sandbox-kubernetes",)"
              R"("osf.sandbox.id":"0123456789ab","osf.sandbox.owned-by-claim":"true"},)"
              R"("ownerReferences":)" +
                  owner + "}}",
              "-o", "json"});
    CHECK(secret[2].args ==
          std::vector<std::string>{"create", "--namespace", "default", "-f", "-"});
    for (const auto& call : t.kubectl.calls) {
        for (const auto& arg : call.args)
            CHECK(arg.find("sekrit-value") == std::string::npos);
        CHECK(call.input.find("sekrit-value") == std::string::npos);
    }

    const auto creates = t.kubectl.find({"create", "--namespace", "default", "-f", "-"});
    REQUIRE(creates.size() == 3); // secret, egress side, sandbox side
    const json egress_side = json::parse(creates[1].input);
    CHECK(egress_side["kind"] == "List");
    CHECK(egress_side["items"].size() == 4);
    CHECK(egress_side["items"][0]["metadata"]["name"] == "osf-sandbox-" + kId + "-spec");
    CHECK(egress_side["items"][1]["metadata"]["name"] == "osf-sandbox-" + kId + "-egress");

    const auto ca = t.kubectl.find(kExecCa);
    REQUIRE(ca.size() == 1);
    CHECK(ca[0].args == std::vector<std::string>{
                            "exec", "osf-sandbox-" + kId + "-egress", "--namespace", "default",
                            "-c", "egress-proxy", "--", "/usr/local/bin/egress-proxy", "ca",
                            "--with-log-key", "--state-dir", "/var/lib/egress-proxy"});
    const json sandbox_side = json::parse(creates[2].input);
    CHECK(sandbox_side["items"][0]["data"] ==
          json({{"egress-ca.crt", kPem},
                {"egress-log-key.pub", kLogKeyPem},
                {"ssh_config", osf::kubernetes::manifests::ssh_client_config(
                                   "osf-sandbox-" + kId + "-egress", 8080)}}));
    // The warm pool last: it sets the claim's controller to work.
    CHECK(sandbox_side["items"].size() == 3);
    CHECK(sandbox_side["items"][2]["kind"] == "SandboxWarmPool");
    // The proxy's name resolves to the Service's ClusterIP, read after the Service was made.
    CHECK(sandbox_side["items"][1]["spec"]["podTemplate"]["spec"]["hostAliases"][0]["ip"] ==
          "10.96.0.10");
    // Everything is born owned by the claim; nothing is patched afterwards.
    for (const json* side : {&egress_side, &sandbox_side})
        for (const auto& item : (*side)["items"])
            CHECK(item["metadata"]["ownerReferences"].dump() == owner);
    // The pods end an extend window (1h) after the expiry, counted from when each was made.
    CHECK(egress_side["items"][1]["spec"]["activeDeadlineSeconds"] == 9 * 3600);
    CHECK(sandbox_side["items"][1]["spec"]["podTemplate"]["spec"]["activeDeadlineSeconds"] ==
          9 * 3600);
    const auto patches = t.kubectl.find({"patch"});
    REQUIRE(patches.size() == 1); // the Secret's local patch
    CHECK(patches[0].args[1] == "--local");
    CHECK(t.kubectl.find({"patch", "secrets"}).empty());
    // Nothing reads a Secret.
    for (const auto& call : t.kubectl.calls)
        if (call.args[0] == "get") CHECK(call.args[1].find("secret") == std::string::npos);
    // Waiting for Ready comes after the last object is made.
    std::size_t last_create = 0, last_claim_get = 0;
    for (std::size_t i = 0; i < t.kubectl.calls.size(); ++i) {
        const auto& args = t.kubectl.calls[i].args;
        if (args[0] == "create") last_create = i;
        if (args[0] == "get" && args[1] == "sandboxclaims.v1beta1.extensions.agents.x-k8s.io")
            last_claim_get = i;
    }
    CHECK(last_create < last_claim_get);
    CHECK_FALSE(cleaned_up(t));
}

TEST_CASE("create: a lifetime beyond OSF_SANDBOX_MAX_LIFETIME exits 2 before any kubectl call") {
    TestContext t;
    healthy_cluster(t);
    t.env["OSF_SANDBOX_MAX_LIFETIME"] = "2h";
    CHECK(run(t, {"create", write_spec(R"({"template": "node:24-alpine", "lifetime": "3h"})")}) ==
          2);
    CHECK_THAT(t.err.str(), Catch::Contains("$.lifetime: lifetime 3h is longer than the maximum "
                                            "2h (OSF_SANDBOX_MAX_LIFETIME)"));
    CHECK(t.kubectl.calls.empty());
    TestContext bad;
    bad.env["OSF_SANDBOX_DEFAULT_LIFETIME"] = "8 hours";
    CHECK(run(bad, {"create", write_spec(R"({"template": "node:24-alpine"})")}) == 2);
    CHECK_THAT(bad.err.str(), Catch::Contains("OSF_SANDBOX_DEFAULT_LIFETIME '8 hours'"));
}

TEST_CASE("create: a claim gone before its parts are owned (expired) fails and cleans up") {
    TestContext t;
    healthy_cluster(t);
    t.kubectl.on(kGetClaim, ok(""));
    CHECK(run(t, {"create", write_spec(kSpec)}) == 1);
    CHECK_THAT(t.err.str(), Catch::Contains("disappeared (its lifetime ended, or it was deleted)"));
    CHECK(t.kubectl.find({"patch"}).size() == 1); // only the Secret's local one, before it is made
    CHECK(t.kubectl.find({"patch", "--local"}).size() == 1);
    CHECK(cleaned_up(t));
}

TEST_CASE("create: an egress pod that cannot pull its image is removed; exit 1 names it") {
    TestContext t;
    healthy_cluster(t);
    const json bad = {
        {"status",
         {{"phase", "Pending"},
          {"containerStatuses",
           json::array(
               {json{{"name", "egress-proxy"},
                     {"state",
                      {{"waiting", {{"reason", "ErrImagePull"}, {"message", "not found"}}}}}}})}}}};
    t.kubectl.on(kGetEgress, std::vector{ok(pending_pod().dump()), ok(bad.dump())});
    CHECK(run(t, {"create", write_spec(kSpec)}) == 1);
    CHECK(t.err.str().find("egress proxy did not start: pod osf-sandbox-" + kId +
                           "-egress, container egress-proxy: ErrImagePull: not found") !=
          std::string::npos);
    CHECK(t.err.str().find("Pending (ContainerCreating)") != std::string::npos); // progress
    CHECK(cleaned_up(t));
    CHECK(t.out.str().empty());
    CHECK(t.kubectl.find(kExecCa).empty());
}

TEST_CASE("create: a sandbox container that exits is removed; exit 1") {
    TestContext t;
    healthy_cluster(t);
    const json exited = {
        {"status",
         {{"phase", "Running"},
          {"containerStatuses",
           json::array({json{
               {"name", "sandbox"},
               {"state",
                {{"waiting", {{"reason", "CrashLoopBackOff"}, {"message", "back-off"}}}}}}})}}}};
    t.kubectl.on(kGetSandboxPod, ok(exited.dump()));
    t.kubectl.on(kGetClaim,
                 ok(json{{"status", {{"sandbox", {{"name", "osf-sandbox-" + kId}}}}}}.dump()));
    CHECK(run(t, {"create", write_spec(kSpec)}) == 1);
    CHECK(t.err.str().find("sandbox did not start: pod osf-sandbox-" + kId +
                           ", container sandbox: CrashLoopBackOff: back-off") != std::string::npos);
    CHECK(cleaned_up(t));
}

TEST_CASE("create: a refused kubectl call surfaces kubectl's message and cleans up") {
    TestContext t;
    healthy_cluster(t);
    t.kubectl.on({"create", "--namespace", "default", "-f", "-"},
                 std::vector{ok(), fail("Error from server (Forbidden): pods is forbidden\n")});
    CHECK(run(t, {"create", write_spec(kSpec)}) == 1);
    CHECK(t.err.str().find(
              "sandbox-kubernetes: kubectl create failed: Error from server (Forbidden): pods is "
              "forbidden (sandbox-kubernetes doctor checks the cluster)\n") != std::string::npos);
    CHECK(cleaned_up(t));
}

TEST_CASE("create: the start timeout removes the sandbox") {
    TestContext t;
    healthy_cluster(t);
    t.env["OSF_SANDBOX_START_TIMEOUT"] = "5";
    t.kubectl.on(kGetEgress, ok(pending_pod().dump()));
    CHECK(run(t, {"create", write_spec(kSpec)}) == 1);
    CHECK(t.err.str().find("timed out after 5s waiting for egress proxy") != std::string::npos);
    CHECK(cleaned_up(t));
}

TEST_CASE("create: a pod that cannot be scheduled or whose claim never binds is named at the "
          "timeout") {
    TestContext t;
    healthy_cluster(t);
    t.env["OSF_SANDBOX_START_TIMEOUT"] = "5";
    json unschedulable = {
        {"kind", "Pod"},
        {"spec",
         {{"volumes", json::array({json{{"name", "workspace"},
                                        {"persistentVolumeClaim",
                                         {{"claimName", "workspace-osf-sandbox-" + kId}}}}})}}},
        {"status",
         {{"phase", "Pending"},
          {"conditions", json::array({json{{"type", "PodScheduled"},
                                           {"status", "False"},
                                           {"reason", "Unschedulable"},
                                           {"message", "0/3 nodes are available: pod has unbound "
                                                       "immediate PersistentVolumeClaims."}}})}}}};
    t.kubectl.on(kGetSandboxPod, ok(unschedulable.dump()));
    t.kubectl.on({"get", "persistentvolumeclaims", "workspace-osf-sandbox-" + kId},
                 ok(json{{"metadata", {{"name", "workspace-osf-sandbox-" + kId}}},
                         {"status", {{"phase", "Pending"}}}}
                        .dump()));
    json waiting = ready_claim();
    waiting["status"]["conditions"][0]["status"] = "False";
    t.kubectl.on(kGetClaim, ok(waiting.dump()));
    CHECK(run(t, {"create", write_spec(kSpec)}) == 1);
    CHECK_THAT(
        t.err.str(),
        Catch::Contains(
            "timed out after 5s waiting for sandbox osf-sandbox-" + kId +
            " (OSF_SANDBOX_START_TIMEOUT): pod osf-sandbox-" + kId +
            " not scheduled: Unschedulable: 0/3 nodes are available: pod has unbound "
            "immediate PersistentVolumeClaims.; PersistentVolumeClaim workspace-osf-sandbox-" +
            kId + " is Pending (kubectl describe pvc workspace-osf-sandbox-" + kId +
            " shows its events)"));
    CHECK(cleaned_up(t));
}

TEST_CASE("create: a pod no node can take fails at once, naming the scheduler's reason once") {
    const json unschedulable = {
        {"kind", "Pod"},
        {"status",
         {{"phase", "Pending"},
          {"conditions", json::array({json{{"type", "PodScheduled"},
                                           {"status", "False"},
                                           {"reason", "Unschedulable"},
                                           {"message", "0/3 nodes are available: 3 Insufficient "
                                                       "memory."}}})}}}};
    json waiting = ready_claim();
    waiting["status"]["conditions"][0]["status"] = "False";
    const std::vector<std::string> pod_events = {
        "get",
        "events",
        "--namespace",
        "default",
        "--field-selector",
        "involvedObject.kind=Pod,involvedObject.name=osf-sandbox-" + kId};

    TestContext t;
    healthy_cluster(t);
    t.env["OSF_SANDBOX_START_TIMEOUT"] = "600";
    t.kubectl.on(kGetSandboxPod, ok(unschedulable.dump()));
    t.kubectl.on(kGetClaim, ok(waiting.dump()));
    t.kubectl.on(pod_events, ok(R"({"items":[{"reason":"FailedScheduling"}]})"));
    CHECK(run(t, {"create", write_spec(kSpec)}) == 1);
    const std::string reason = "0/3 nodes are available: 3 Insufficient memory.";
    CHECK_THAT(t.err.str(), Catch::Contains("sandbox did not start: pod osf-sandbox-" + kId +
                                            " not scheduled: Unschedulable: " + reason));
    CHECK_THAT(t.err.str(), !Catch::Contains("timed out"));
    const std::string err = t.err.str();
    CHECK(err.find(reason) == err.rfind(reason)); // once
    CHECK(t.sleeps < 5);
    CHECK(cleaned_up(t));

    TestContext scaling; // the autoscaler adds a node for it: waited for, to the timeout
    healthy_cluster(scaling);
    scaling.env["OSF_SANDBOX_START_TIMEOUT"] = "5";
    scaling.kubectl.on(kGetSandboxPod, ok(unschedulable.dump()));
    scaling.kubectl.on(kGetClaim, ok(waiting.dump()));
    scaling.kubectl.on(pod_events, ok(R"({"items":[{"reason":"TriggeredScaleUp"}]})"));
    CHECK(run(scaling, {"create", write_spec(kSpec)}) == 1);
    CHECK_THAT(scaling.err.str(), Catch::Contains("timed out after 5s waiting for sandbox"));
    CHECK_THAT(scaling.err.str(), Catch::Contains(reason));
}

TEST_CASE("create: Ctrl-C while waiting removes what was made and exits 130") {
    TestContext t;
    healthy_cluster(t);
    t.signal_after_sleeps = 2;
    t.kubectl.on(kGetEgress, ok(pending_pod().dump()));
    CHECK(run(t, {"create", write_spec(kSpec)}) == 130);
    CHECK(cleaned_up(t));
    CHECK(t.kubectl.find({"delete", "sandboxes.v1beta1.agents.x-k8s.io", "osf-sandbox-" + kId})
              .size() == 1);
}

TEST_CASE("create: SIGTERM while waiting for the claim removes everything and exits 143") {
    TestContext t;
    healthy_cluster(t);
    t.signal_after_sleeps = 1;
    t.raised = 15;
    t.kubectl.on(kGetClaim, ok(json{{"status", json::object()}}.dump()));
    CHECK(run(t, {"create", write_spec(kSpec)}) == 143);
    CHECK(cleaned_up(t));
    CHECK(t.out.str().empty());
}

TEST_CASE("create --dry-run with a named template reads nothing and says so") {
    TestContext t;
    CHECK(run(t, {"create", "--dry-run", write_spec(R"({"template": "python-dev"})")}) == 0);
    CHECK(t.kubectl.calls.empty());
    CHECK(t.err.str().find("--dry-run does not read it") != std::string::npos);
    const json list = json::parse(t.out.str());
    CHECK(list["items"].size() == 8);
    CHECK(list["items"][6]["spec"]["podTemplate"]["spec"]["containers"][0]["name"] == "sandbox");
}

TEST_CASE("create: a named SandboxTemplate that does not exist exits 1 before anything starts") {
    TestContext t;
    healthy_cluster(t);
    t.kubectl.on({"get", "sandboxtemplates.v1beta1.extensions.agents.x-k8s.io", "python-dev"},
                 ok(""));
    CHECK(run(t, {"create", write_spec(R"({"template": "python-dev"})")}) == 1);
    CHECK(t.err.str().find("no SandboxTemplate python-dev in namespace default") !=
          std::string::npos);
    CHECK(t.kubectl.find({"create"}).empty());
    CHECK_FALSE(cleaned_up(t));
}

TEST_CASE("create: a named SandboxTemplate's pod template is copied") {
    TestContext t;
    healthy_cluster(t);
    const json tmpl = {
        {"spec",
         {{"podTemplate",
           {{"spec",
             {{"containers", json::array({json{{"name", "py"}, {"image", "corp/py:3"}}})}}}}}}}};
    t.kubectl.on({"get", "sandboxtemplates.v1beta1.extensions.agents.x-k8s.io", "python-dev"},
                 ok(tmpl.dump()));
    REQUIRE(run(t, {"create", write_spec(R"({"template": "python-dev"})")}) == 0);
    const auto creates = t.kubectl.find({"create", "--namespace", "default", "-f", "-"});
    REQUIRE(creates.size() == 2); // no secrets: no Secret
    const json sandbox_side = json::parse(creates[1].input);
    CHECK(sandbox_side["items"][1]["spec"]["podTemplate"]["spec"]["containers"][0]["image"] ==
          "corp/py:3");
}

TEST_CASE("create: a claim without a uid makes no Secret; exit 1, cleaned up") {
    TestContext t;
    healthy_cluster(t);
    t.kubectl.on(kCreateClaim, ok(R"({"kind":"SandboxClaim","metadata":{"name":"x"}})"));
    CHECK(run(t, {"create", write_spec(kSpec)}) == 1);
    CHECK_THAT(t.err.str(), Catch::Contains("kubectl create failed: the SandboxClaim osf-sandbox-" +
                                            kId + " has no uid"));
    CHECK(t.kubectl.find({"create", "secret"}).empty());
    CHECK(cleaned_up(t));
}

TEST_CASE("create honours OSF_SANDBOX_NAMESPACE and OSF_EGRESS_PROXY_IMAGE") {
    TestContext t;
    healthy_cluster(t);
    t.env["OSF_SANDBOX_NAMESPACE"] = "agents";
    t.env["OSF_EGRESS_PROXY_IMAGE"] = "registry.local/egress-proxy:dev";
    t.kubectl.on({"get", "pods", "osf-sandbox-" + kId + "-egress"}, ok(ready_pod().dump()));
    t.kubectl.on({"create", "--namespace", "agents", "-o", "json"}, ok(ready_claim().dump()));
    REQUIRE(run(t, {"create", write_spec(R"({"template": "alpine:3"})")}) == 0);
    const auto creates = t.kubectl.find({"create", "--namespace", "agents", "-f", "-"});
    REQUIRE(creates.size() == 2);
    CHECK(json::parse(creates[0].input)["items"][1]["spec"]["containers"][0]["image"] ==
          "registry.local/egress-proxy:dev");
}

TEST_CASE("exec: runs kubectl exec -i in the claim's pod and exits with the command's code") {
    TestContext t;
    t.kubectl.on(kGetClaim, ok(ready_claim().dump()));
    t.kubectl.on({"exec"}, fail("oops\ncommand terminated with exit code 7\n", 7));
    CHECK(run(t, {"exec", kId, "--", "sh", "-c", "exit 7"}) == 7);
    const auto exec = t.kubectl.find({"exec"});
    REQUIRE(exec.size() == 1);
    // Without a terminal, under the relay that returns when the command does.
    std::vector<std::string> expected = {"exec",        "-i",      "osf-sandbox-" + kId,
                                         "--namespace", "default", "--"};
    for (auto& arg :
         osf::kubernetes::manifests::relayed_command("0123456789ab", {"sh", "-c", "exit 7"}))
        expected.push_back(arg);
    CHECK(exec[0].args == expected);
    CHECK(exec[0].inherit_stdin);
    CHECK(exec[0].inherit_stdout);
    // The sandbox is found by its claim's name, like every command finds it: never by label,
    // which makes the API server read every claim of the namespace.
    CHECK(t.kubectl.find(kGetClaim).size() == 1);
    CHECK(t.err.str() == "oops\n");
}

TEST_CASE("exec -i and -t as kubectl takes them: a terminal only with -t") {
    auto tty_of = [](bool terminal, std::vector<std::string> flags) {
        TestContext t;
        t.context.terminal = terminal;
        t.kubectl.on(kGetClaim, ok(ready_claim().dump()));
        std::vector<std::string> args = {"exec"};
        args.insert(args.end(), flags.begin(), flags.end());
        args.insert(args.end(), {kId, "--", "sh"});
        CHECK(run(t, args) == 0);
        const auto exec = t.kubectl.find({"exec"});
        REQUIRE(exec.size() == 1);
        return std::pair{exec[0].args[2] == "-t", t.err.str()};
    };
    CHECK(tty_of(true, {}).first);           // neither flag: a terminal when there is one
    CHECK_FALSE(tty_of(true, {"-i"}).first); // kubectl exec -i: no terminal
    CHECK(tty_of(true, {"-it"}).first);
    CHECK(tty_of(true, {"--stdin", "--tty"}).first);
    const auto [tty, err] = tty_of(false, {"-t"});
    CHECK_FALSE(tty);
    CHECK(err == "sandbox-kubernetes: exec -t: stdin and stdout are not both a terminal; running "
                 "without one\n");
}

TEST_CASE("exec: asks for a TTY when stdin and stdout are a terminal") {
    TestContext t;
    t.context.terminal = true;
    t.kubectl.on(kGetClaim, ok(ready_claim().dump()));
    CHECK(run(t, {"exec", kId, "--", "sh"}) == 0);
    const auto exec = t.kubectl.find({"exec"});
    REQUIRE(exec.size() == 1);
    const auto marked = osf::sandbox::marked_command("0123456789ab", {"sh"});
    std::vector<std::string> expected = {"exec",        "-i",      "-t", "osf-sandbox-" + kId,
                                         "--namespace", "default", "--"};
    expected.insert(expected.end(), marked.begin(), marked.end());
    CHECK(exec[0].args == expected);
}

TEST_CASE("exec: upper-case IDs work; an unknown ID exits 1 with 'no sandbox <ID>'") {
    TestContext t;
    t.kubectl.on(kGetClaim, ok(""));
    CHECK(run(t, {"exec", "0123456789AB", "--", "true"}) == 1);
    CHECK(t.err.str() == "sandbox-kubernetes: no sandbox 0123456789ab\n");
    CHECK(t.kubectl.find({"exec"}).empty());
}

TEST_CASE("exec: kubectl's own failure is reported as kubectl exec failed") {
    TestContext t;
    t.kubectl.on(kGetClaim, ok(ready_claim().dump()));
    t.kubectl.on(
        {"exec"},
        fail("error: unable to upgrade connection: container not found (\"sandbox\")\n", 1));
    CHECK(run(t, {"exec", kId, "--", "true"}) == 1);
    CHECK(t.err.str() == "sandbox-kubernetes: kubectl exec failed: error: unable to upgrade "
                         "connection: container not found "
                         "(\"sandbox\")\n");
}

TEST_CASE("a kubectl failure while looking up exits 1 with kubectl's message") {
    TestContext t;
    t.kubectl.on({"get"}, fail("Unable to connect to the server: dial tcp 127.0.0.1:1: connect: "
                               "connection refused\n"));
    CHECK(run(t, {"destroy", kId}) == 1);
    CHECK(t.err.str() ==
          "sandbox-kubernetes: kubectl get failed: Unable to connect to the server: dial tcp "
          "127.0.0.1:1: connect: connection refused\n");
}

TEST_CASE("copy: relative sandbox paths are below /workspace; kubectl cp both ways") {
    TestContext t;
    t.kubectl.on(kGetClaim, ok(ready_claim().dump()));
    CHECK(run(t, {"copy", "./local.txt", kId + ":dir/file.txt"}) == 0);
    CHECK(run(t, {"copy", kId + ":/etc/hostname", "out.txt"}) == 0);
    CHECK(run(t, {"copy", kId + ":", "outdir"}) == 0);
    const auto cps = t.kubectl.find({"cp"});
    REQUIRE(cps.size() == 3);
    CHECK(cps[0].args == std::vector<std::string>{"cp", "./local.txt",
                                                  "osf-sandbox-" + kId + ":/workspace/dir/file.txt",
                                                  "--namespace", "default"});
    CHECK(cps[1].args == std::vector<std::string>{"cp", "osf-sandbox-" + kId + ":/etc/hostname",
                                                  "out.txt", "--namespace", "default"});
    CHECK(cps[2].args[1] == "osf-sandbox-" + kId + ":/workspace");
    // Copies out of the sandbox first check that the source exists.
    const auto tests = t.kubectl.find({"exec", "osf-sandbox-" + kId});
    REQUIRE(tests.size() == 2);
    CHECK(tests[0].args == std::vector<std::string>{"exec", "osf-sandbox-" + kId, "--namespace",
                                                    "default", "--", "test", "-e",
                                                    "/etc/hostname"});
}

TEST_CASE("copy: a source missing in the sandbox exits 1 (kubectl cp would say nothing)") {
    TestContext t;
    t.kubectl.on(kGetClaim, ok(ready_claim().dump()));
    t.kubectl.on({"exec"}, fail("command terminated with exit code 1\n", 1));
    CHECK(run(t, {"copy", kId + ":missing.txt", "out.txt"}) == 1);
    CHECK(t.err.str() ==
          "sandbox-kubernetes: copy: no /workspace/missing.txt in sandbox " + kId + "\n");
    CHECK(t.kubectl.find({"cp"}).empty());
}

TEST_CASE("copy: kubectl cp failing exits 1 with its message") {
    TestContext t;
    t.kubectl.on(kGetClaim, ok(ready_claim().dump()));
    t.kubectl.on({"cp"}, fail("error: one of src or dest must be a local file specification\n"));
    CHECK(run(t, {"copy", "a", kId + ":b"}) == 1);
    CHECK(t.err.str().find("kubectl cp failed: error: one of src") != std::string::npos);
}

TEST_CASE("destroy: unknown ID exits 1; a known one deletes by name, or by label without a "
          "claim") {
    const std::vector<std::string> claim_name = {"get",
                                                 "sandboxclaims.v1beta1.extensions.agents.x-k8s.io",
                                                 "osf-sandbox-" + kId,
                                                 "--namespace",
                                                 "default",
                                                 "--ignore-not-found",
                                                 "-o",
                                                 "name"};
    TestContext unknown;
    unknown.kubectl.on({"get"}, ok(R"({"kind":"List","items":[]})"));
    unknown.kubectl.on(claim_name, ok(""));
    CHECK(run(unknown, {"destroy", kId}) == 1);
    CHECK(unknown.err.str() == "sandbox-kubernetes: no sandbox " + kId + "\n");
    CHECK(unknown.kubectl.find({"delete"}).empty());

    // With its claim: found by the claim's name, every object deleted by name, in one call
    // after the claim and the Sandbox; no label-selected call, whose cost grows with the
    // namespace.
    TestContext t;
    t.kubectl.on(claim_name, ok("sandboxclaim.extensions.agents.x-k8s.io/osf-sandbox-" + kId));
    CHECK(run(t, {"destroy", kId}) == 0);
    CHECK(cleaned_up(t));
    CHECK(t.kubectl
              .find({"delete", "sandboxes.v1beta1.agents.x-k8s.io", "osf-sandbox-" + kId,
                     "--namespace", "default", "--ignore-not-found"})
              .size() == 1);
    // The rest by name, in calls of four (each within kubectl's burst of ten requests).
    std::vector<std::string> named = {"delete"};
    for (const auto& call : t.kubectl.find({"delete"})) {
        if (call.args[1].find('/') == std::string::npos) continue;
        CHECK(call.args.size() <= 1 + 4 + 3);
        CHECK(std::vector<std::string>(call.args.end() - 3, call.args.end()) ==
              std::vector<std::string>{"--namespace", "default", "--ignore-not-found"});
        named.insert(named.end(), call.args.begin() + 1, call.args.end() - 3);
    }
    named.insert(named.end(), {"--namespace", "default", "--ignore-not-found"});
    CHECK(named ==
          std::vector<std::string>{
              "delete", "sandboxwarmpools.v1beta1.extensions.agents.x-k8s.io/osf-sandbox-" + kId,
              "sandboxtemplates.v1beta1.extensions.agents.x-k8s.io/osf-sandbox-" + kId,
              "pods/osf-sandbox-" + kId, "pods/osf-sandbox-" + kId + "-egress",
              "services/osf-sandbox-" + kId + "-egress",
              "networkpolicies.v1.networking.k8s.io/osf-sandbox-" + kId + "-egress",
              "configmaps/osf-sandbox-" + kId + "-spec", "configmaps/osf-sandbox-" + kId + "-ca",
              "configmaps/osf-sandbox-" + kId + "-upstream-ca",
              "configmaps/osf-sandbox-" + kId + "-egress-pod", "--namespace", "default",
              "--ignore-not-found"});
    for (const auto& call : t.kubectl.calls)
        CHECK(std::find(call.args.begin(), call.args.end(), "-l") == call.args.end());

    // Parts without a claim (a create stopped before it): found and swept by label.
    TestContext parts;
    parts.kubectl.on({"get"}, ok(R"({"kind":"List","items":[{"kind":"Pod"}]})"));
    parts.kubectl.on(claim_name, ok(""));
    CHECK(run(parts, {"destroy", kId}) == 0);
    CHECK(cleaned_up(parts));
    bool swept = false;
    for (const auto& call : parts.kubectl.find({"delete"}))
        swept = swept || std::find(call.args.begin(), call.args.end(), "osf.sandbox.id=" + kId) !=
                             call.args.end();
    CHECK(swept);
}

TEST_CASE("destroy of several: removed in batches, a few calls each; what fails is named") {
    const std::string claims = "sandboxclaims.v1beta1.extensions.agents.x-k8s.io";
    const std::vector<std::string> ids = {"aaaaaaaaaaaa", "bbbbbbbbbbbb", "cccccccccccc"};
    const auto found_claim = [&](TestContext& t, const std::string& id) {
        t.kubectl.on({"get", claims, "osf-sandbox-" + id, "--namespace"},
                     ok("sandboxclaim.extensions.agents.x-k8s.io/osf-sandbox-" + id + "\n"));
    };
    TestContext t;
    t.kubectl.on({"get"}, ok(R"({"kind":"List","items":[]})"));
    found_claim(t, ids[0]);
    found_claim(t, ids[1]);
    t.kubectl.on({"get", claims, "osf-sandbox-" + ids[2]}, ok(""));
    t.kubectl.on({"get", claims, "osf-sandbox-" + ids[0], "osf-sandbox-" + ids[1]},
                 ok("sandboxclaim.extensions.agents.x-k8s.io/osf-sandbox-" + ids[0] +
                    "\nsandboxclaim.extensions.agents.x-k8s.io/osf-sandbox-" + ids[1] + "\n"));
    CHECK(run(t, {"destroy", ids[0], ids[1], ids[2]}) == 1);
    CHECK(t.err.str() == "sandbox-kubernetes: no sandbox " + ids[2] + "\nremoved sandbox " +
                             ids[0] + "\nremoved sandbox " + ids[1] + "\n");
    // The two found go in one batch: one call per step, each naming both; their other
    // objects by name, four a call (within kubectl's burst).
    const auto deletes = t.kubectl.find({"delete"});
    REQUIRE(deletes.size() == 3 + 5);
    CHECK(deletes[0].args ==
          std::vector<std::string>{"delete", "secrets", "osf-sandbox-" + ids[0] + "-secrets",
                                   "osf-sandbox-" + ids[1] + "-secrets", "--namespace", "default",
                                   "--ignore-not-found", "--wait=false"});
    CHECK(deletes[1].args[1] == claims);
    CHECK(deletes[1].args[3] == "osf-sandbox-" + ids[1]);
    for (const auto& call : deletes)
        CHECK(std::find(call.args.begin(), call.args.end(), "-l") == call.args.end());

    // A batch that fails is done again one at a time: each failure named, exit 1.
    TestContext failing;
    failing.kubectl.on({"get"}, ok(R"({"kind":"List","items":[]})"));
    found_claim(failing, ids[0]);
    found_claim(failing, ids[1]);
    failing.kubectl.on({"delete"}, fail("Error from server (Forbidden): no\n"));
    CHECK(run(failing, {"destroy", ids[0], ids[1]}) == 1);
    for (const auto& id : {ids[0], ids[1]})
        CHECK_THAT(failing.err.str(), Catch::Contains("sandbox-kubernetes: " + id + ": ") &&
                                          Catch::Contains("Forbidden"));
    CHECK_THAT(failing.err.str(), !Catch::Contains("removed sandbox"));
}

TEST_CASE("list: IDs one per line; -o wide a table with a header; -o json and --json") {
    // The claims and templates, as `kubectl get --raw` prints a collection.
    const std::string columns =
        json{
            {"kind", "SandboxClaimList"},
            {"items",
             json::array({json{
                 {"kind", "SandboxClaim"},
                 {"metadata",
                  {{"name", "osf-sandbox-" + kId},
                   {"labels", {{"osf.sandbox.id", kId}}},
                   {"creationTimestamp", "2026-11-29T18:58:00Z"}}},
                 {"spec", {{"lifecycle", {{"shutdownTime", "2026-11-29T21:00:00Z"}}}}},
                 {"status",
                  {{"conditions", json::array({json{{"type", "Ready"}, {"status", "True"}}})}}}}})}}
            .dump();
    const json configs = {
        {"kind", "List"},
        {"items",
         json::array({json{
             {"kind", "ConfigMap"},
             {"metadata",
              {{"name", "osf-sandbox-" + kId + "-spec"},
               {"labels", {{"osf.sandbox.id", kId}}},
               {"creationTimestamp", "2026-11-29T18:58:01Z"}}},
             {"data",
              {{"spec.json", R"({"template": "node:24", "egress": ["api.linear.app"]})"}}}}})}};
    const std::vector<std::string> fields = {"get", "--raw"};
    const std::vector<std::string> specs = {
        "get", "--raw",
        "/api/v1/namespaces/default/configmaps?labelSelector=app.kubernetes.io%2Fmanaged-by%"
        "3Dsandbox-kubernetes&limit=1000"};
    TestContext t;
    t.kubectl.on(fields, ok(columns));
    CHECK(run(t, {"list"}) == 0);
    CHECK(t.out.str() == kId + "\n");
    const auto gets = t.kubectl.find({"get"});
    // The claims and the templates, streamed (not empty: the namespace is not looked up; no
    // ConfigMap read).
    REQUIRE(gets.size() == 2);
    CHECK(gets[0].args[2].rfind(
              "/apis/extensions.agents.x-k8s.io/v1beta1/namespaces/default/sandboxclaims?", 0) ==
          0);
    CHECK(gets[1].args[2].rfind(
              "/apis/extensions.agents.x-k8s.io/v1beta1/namespaces/default/sandboxtemplates?", 0) ==
          0);
    TestContext w;
    w.kubectl.on(fields, ok(columns));
    CHECK(run(w, {"list", "-o", "wide"}) == 0);
    CHECK(w.out.str() == "ID             STATUS   AGE   EXPIRES   IMAGE\n" + kId +
                             "   Ready    2m    in 120m   -\n");
    CHECK(w.kubectl.find(specs).empty());
    for (const char* flag : {"--json", "-ojson"}) {
        TestContext j;
        j.kubectl.on(fields, ok(columns));
        j.kubectl.on(specs, ok(configs.dump()));
        CHECK(run(j, {"list", flag}) == 0);
        const json rows = json::parse(j.out.str());
        CHECK(rows[0]["id"] == kId);
        CHECK(rows[0]["status"] == "Ready");
        CHECK(rows[0]["ageSeconds"] == 120);
        CHECK(rows[0]["expires"] == "2026-11-29T21:00:00Z");
        // From the spec ConfigMap, streamed (its spec only kept), for -o json only.
        CHECK(rows[0]["policy"] ==
              json{{"egress", json::array({"api.linear.app"})}, {"mcp", json::object()}});
        REQUIRE(j.kubectl.find(specs).size() == 1);
        CHECK(j.kubectl.find({"get", "configmaps"}).empty());
    }
    TestContext bad;
    CHECK(run(bad, {"list", "-o", "table"}) == 2);
}

TEST_CASE("list: an empty list in a namespace that does not exist exits 1") {
    TestContext t;
    t.env["OSF_SANDBOX_NAMESPACE"] = "typo";
    t.kubectl.on({"get"}, ok(R"({"kind":"List","items":[]})"));
    t.kubectl.on({"get", "namespace", "typo"}, ok(""));
    CHECK(run(t, {"list"}) == 1);
    CHECK(t.err.str() ==
          "sandbox-kubernetes: namespace typo does not exist (OSF_SANDBOX_NAMESPACE)\n");
    TestContext empty;
    empty.kubectl.on({"get"}, ok(R"({"kind":"List","items":[]})"));
    empty.kubectl.on({"get", "namespace", "default"}, ok("namespace/default\n"));
    CHECK(run(empty, {"list"}) == 0);
    CHECK(empty.out.str().empty());
    TestContext forbidden; // no permission to read namespaces: the empty list stands
    forbidden.kubectl.on({"get"}, ok(R"({"kind":"List","items":[]})"));
    forbidden.kubectl.on({"get", "namespace"}, fail("Error from server (Forbidden): ...\n"));
    CHECK(run(forbidden, {"list"}) == 0);
}

TEST_CASE("egress-log: execs egress-proxy log in the egress pod") {
    TestContext t;
    t.kubectl.on(kGetEgress, ok(ready_pod().dump()));
    t.kubectl.on({"exec"}, ok("{\"host\":\"a.example\"}\n"));
    CHECK(run(t, {"egress-log", kId}) == 0);
    const auto exec = t.kubectl.find({"exec"});
    REQUIRE(exec.size() == 1);
    CHECK(exec[0].args == std::vector<std::string>{"exec", "osf-sandbox-" + kId + "-egress",
                                                   "--namespace", "default", "-c", "egress-proxy",
                                                   "--", "/usr/local/bin/egress-proxy", "log",
                                                   "--state-dir", "/var/lib/egress-proxy"});
    // Streamed through the adapter's output (what --refused --follow reads), not inherited.
    CHECK_FALSE(exec[0].inherit_stdout);
    CHECK(exec[0].on_stdout);
    CHECK(t.out.str() == "{\"host\":\"a.example\"}\n");
    TestContext unknown;
    unknown.kubectl.on(kGetEgress, ok(""));
    CHECK(run(unknown, {"egress-log", kId}) == 1);
    CHECK(unknown.err.str() == "sandbox-kubernetes: no sandbox " + kId + "\n");
}

namespace {

// `egress-log -f` whose kubectl runs until `event` happens; whether kubectl
// was then asked to stop.
bool stopped_by(TestContext& t, const std::function<void()>& event, int expected_exit) {
    t.kubectl.on(kGetEgress, ok(ready_pod().dump()));
    t.kubectl.on({"exec"}, fail("", 143)); // kubectl ended by the stop
    bool asked = false;
    t.kubectl.while_running = [&](const osf::kubernetes::kubectl::KubectlCall& call) {
        if (call.args[0] != "exec") return;
        REQUIRE(call.should_stop);
        CHECK_FALSE(call.should_stop()); // following until then
        event();
        asked = call.should_stop();
    };
    CHECK(run(t, {"egress-log", "-f", kId}) == expected_exit);
    return asked;
}

} // namespace

TEST_CASE("egress-log --follow: Ctrl-C stops kubectl and exits 130") {
    TestContext t;
    CHECK(stopped_by(
        t, [&] { t.signal = 2; }, 130));
    CHECK(t.err.str() == "sandbox-kubernetes: interrupted\n");
}

TEST_CASE("egress-log --follow: a reader gone (the output failed) stops kubectl, quietly") {
    TestContext t;
    // As writing to a closed pipe leaves std::cout.
    CHECK(stopped_by(
        t, [&] { t.out.setstate(std::ios::badbit); }, 0));
    CHECK(t.err.str().empty());
}

TEST_CASE("egress-log --refused --follow: follows the log, prints each new refusal once") {
    TestContext t;
    t.kubectl.on(kGetEgress, ok(ready_pod().dump()));
    const std::string refused =
        R"({"host":"a.test","port":443,"outcome":"refused","refusedBy":"host-not-allowed"})";
    t.kubectl.on(
        {"exec"},
        ok(refused + "\n" + R"({"host":"b.test","port":443,"outcome":"allowed"})" + "\n" + refused +
           "\n" +
           R"({"host":"c.test","port":22,"outcome":"refused","refusedBy":"port-not-allowed"})" +
           "\n"));
    CHECK(run(t, {"egress-log", kId, "--refused", "--follow"}) == 0);
    CHECK(t.out.str() == "a.test\nc.test:22\n");
    const auto exec = t.kubectl.find({"exec"});
    REQUIRE(exec.size() == 1);
    CHECK(exec[0].args.back() == "--follow");
    CHECK(std::find(exec[0].args.begin(), exec[0].args.end(), "--raw") == exec[0].args.end());
    TestContext raw; // --raw still excludes --refused
    CHECK(run(raw, {"egress-log", kId, "--refused", "--raw"}) == 2);
}

TEST_CASE("snapshot: PVC, copy pod, tar pipeline, template; prints its name") {
    TestContext t;
    t.env["OSF_SANDBOX_SNAPSHOT_SIZE"] = "3Gi";
    const std::string name = "osf-snapshot-" + kId + "-20261129190000";
    t.kubectl.on(kGetClaim, ok(ready_claim().dump()));
    const json source = {
        {"metadata", {{"name", "osf-sandbox-" + kId}}},
        {"spec",
         {{"podTemplate",
           {{"spec",
             {{"containers", json::array({json{{"name", "sandbox"}, {"image", "node:24"}}})}}}}}}}};
    t.kubectl.on(kGetTemplate, ok(source.dump()));
    t.kubectl.on({"get", "pods", name + "-copy"}, ok(ready_pod().dump()));
    const int code = run(t, {"snapshot", kId});
    INFO(t.err.str());
    REQUIRE(code == 0);
    CHECK(t.out.str() == name + "\n");
    const auto creates = t.kubectl.find({"create"});
    REQUIRE(creates.size() == 3);
    CHECK(json::parse(creates[0].input)["kind"] == "PersistentVolumeClaim");
    CHECK(json::parse(creates[0].input)["spec"]["resources"]["requests"]["storage"] == "3Gi");
    CHECK(json::parse(creates[1].input)["metadata"]["name"] == name + "-copy");
    CHECK(json::parse(creates[2].input)["kind"] == "SandboxTemplate");
    CHECK(json::parse(creates[2].input)["metadata"]["name"] == name);
    bool found = false;
    for (const auto& pipeline : t.kubectl.pipelines)
        if (pipeline.size() == 2) {
            found = true;
            CHECK(pipeline[0].args ==
                  std::vector<std::string>{"exec", "osf-sandbox-" + kId, "--namespace", "default",
                                           "--", "tar", "cf", "-", "-C", "/workspace", "."});
            // Unpacked into a directory of the copy's own, entries moved up
            // (manifests/snapshot_objects.hpp): /data's own metadata is never set.
            std::vector<std::string> unpack = {"exec",        "-i",      name + "-copy",
                                               "--namespace", "default", "--"};
            for (auto& arg : osf::kubernetes::manifests::snapshot_unpack_command())
                unpack.push_back(arg);
            CHECK(pipeline[1].args == unpack);
        }
    CHECK(found);
    CHECK(t.kubectl.find({"delete", "pods", name + "-copy"}).size() == 1);
    CHECK(t.kubectl.find({"delete", "persistentvolumeclaims"}).empty());
}

TEST_CASE("snapshot: a failed copy removes the PVC and the copy pod") {
    TestContext t;
    const std::string name = "osf-snapshot-" + kId + "-20261129190000";
    t.kubectl.on(kGetClaim, ok(ready_claim().dump()));
    const json source = {
        {"spec",
         {{"podTemplate",
           {{"spec",
             {{"containers", json::array({json{{"name", "sandbox"}, {"image", "node:24"}}})}}}}}}}};
    t.kubectl.on(kGetTemplate, ok(source.dump()));
    t.kubectl.on({"get", "pods", name + "-copy"}, ok(ready_pod().dump()));
    t.kubectl.on({"exec", "-i", name + "-copy"}, fail("tar: short read\n", 2));
    CHECK(run(t, {"snapshot", kId}) == 1);
    CHECK(t.err.str().find("kubectl exec failed: tar: short read") != std::string::npos);
    CHECK(t.kubectl.find({"delete", "persistentvolumeclaims", name}).size() == 1);
    CHECK(t.kubectl.find({"delete", "pods", name + "-copy"}).size() == 1);
    CHECK(t.out.str().empty());
}

// -- messages, images, host aliases, the tool check ---------------------------------------------

namespace {

// Every line of stderr is one error with the program's prefix.
void check_error_lines(const std::string& err) {
    INFO(err);
    CHECK_FALSE(err.empty());
    std::istringstream lines(err);
    std::string line;
    while (std::getline(lines, line))
        CHECK(line.rfind("sandbox-kubernetes: ", 0) == 0);
}

const std::vector<std::string> kToolCheck = {
    "exec", "osf-sandbox-" + kId, "--namespace", "default", "--", "sh", "-c"};

} // namespace

TEST_CASE("cli: usage errors are one line each with the prefix; unknown command; --version") {
    for (const std::vector<std::string>& args :
         std::vector<std::vector<std::string>>{{},
                                               {"frobnicate"},
                                               {"exec"},
                                               {"create"},
                                               {"create", "a", "b"},
                                               {"list", "--bogus"},
                                               {"--bogus"},
                                               {"destroy", "xyz"}}) {
        TestContext t;
        CHECK(run(t, args) == 2);
        check_error_lines(t.err.str());
        CHECK(t.out.str().empty());
    }
    TestContext unknown;
    run(unknown, {"frobnicate"});
    CHECK(unknown.err.str() ==
          "sandbox-kubernetes: unknown command 'frobnicate'; the commands are create, exec, copy, "
          "snapshot, destroy, list, egress-log, extend, gc, suspend, resume, allow, revoke, doctor "
          "(run with "
          "--help)\n");
    TestContext version;
    CHECK(run(version, {"--version"}) == 0);
    CHECK(version.out.str().rfind("sandbox-kubernetes ", 0) == 0);
}

TEST_CASE("create: several spec errors are several prefixed lines") {
    TestContext t;
    CHECK(run(t, {"create", write_spec(R"({"template": "alpine:3", "cpu": 0, "bogus": 1})")}) == 2);
    const std::string err = t.err.str();
    check_error_lines(err);
    CHECK(std::count(err.begin(), err.end(), '\n') == 2);
}

TEST_CASE("create: an image outside OSF_SANDBOX_ALLOWED_IMAGES exits 2 before anything starts") {
    TestContext t;
    healthy_cluster(t);
    t.env["OSF_SANDBOX_ALLOWED_IMAGES"] = "ghcr.io/acme/*, node:24-*";
    CHECK(run(t, {"create", write_spec(R"({"template": "alpine:3"})")}) == 2);
    CHECK(t.err.str() == "sandbox-kubernetes: image 'alpine:3' is not allowed: "
                         "OSF_SANDBOX_ALLOWED_IMAGES allows ghcr.io/acme/*, node:24-*\n");
    CHECK(t.kubectl.calls.empty());
    TestContext dry;
    dry.env = t.env;
    CHECK(run(dry, {"create", "--dry-run", write_spec(R"({"template": "alpine:3"})")}) == 2);

    // A named template's images are checked once it is read, before anything is made.
    TestContext named;
    healthy_cluster(named);
    named.env["OSF_SANDBOX_ALLOWED_IMAGES"] = "ghcr.io/acme/*";
    const json tmpl = {
        {"spec",
         {{"podTemplate",
           {{"spec",
             {{"initContainers", json::array({json{{"name", "i"}, {"image", "ghcr.io/acme/i:1"}}})},
              {"containers", json::array({json{{"name", "py"}, {"image", "corp/py:3"}}})}}}}}}}};
    named.kubectl.on({"get", "sandboxtemplates.v1beta1.extensions.agents.x-k8s.io", "python-dev"},
                     ok(tmpl.dump()));
    CHECK(run(named, {"create", write_spec(R"({"template": "python-dev"})")}) == 2);
    CHECK(named.err.str().find("image 'corp/py:3' is not allowed") != std::string::npos);
    CHECK(named.kubectl.find({"create"}).empty());

    TestContext allowed;
    healthy_cluster(allowed);
    allowed.env["OSF_SANDBOX_ALLOWED_IMAGES"] = "node:24-*";
    CHECK(run(allowed, {"create", write_spec(kSpec)}) == 0);
}

TEST_CASE("create: bad OSF_SANDBOX_HOST_ALIASES or pull policy exit 2 before anything starts") {
    TestContext t;
    healthy_cluster(t);
    t.env["OSF_SANDBOX_HOST_ALIASES"] = "api.test=not-an-ip";
    CHECK(run(t, {"create", write_spec(kSpec)}) == 2);
    CHECK(t.err.str() == "sandbox-kubernetes: OSF_SANDBOX_HOST_ALIASES: bad entry "
                         "\"api.test=not-an-ip\": not an IP address\n");
    CHECK(t.kubectl.calls.empty());

    TestContext policy;
    healthy_cluster(policy);
    policy.env["OSF_SANDBOX_IMAGE_PULL_POLICY"] = "sometimes";
    CHECK(run(policy, {"create", write_spec(kSpec)}) == 2);
    CHECK(policy.kubectl.calls.empty());

    TestContext good;
    healthy_cluster(good);
    good.env["OSF_SANDBOX_IMAGE_PULL_POLICY"] = "Always";
    good.env["OSF_SANDBOX_HOST_ALIASES"] = "api.test=10.0.0.5, other.test=[::1]";
    REQUIRE(run(good, {"create", write_spec(kSpec)}) == 0);
    const auto creates = good.kubectl.find({"create", "--namespace", "default", "-f", "-"});
    const json sandbox_side = json::parse(creates.back().input);
    CHECK(sandbox_side["items"][1]["spec"]["podTemplate"]["spec"]["containers"][0]
                      ["imagePullPolicy"] == "Always");
}

TEST_CASE("create: an image without a tool the adapter needs fails and is removed") {
    TestContext t;
    healthy_cluster(t);
    t.kubectl.on(kToolCheck, ok("tar\n"));
    CHECK(run(t, {"create", write_spec(kSpec)}) == 1);
    CHECK(t.err.str().find("sandbox-kubernetes: the image has no tar (copy and snapshot); use an "
                           "image that has them\n") != std::string::npos);
    CHECK(t.out.str().empty());
    CHECK(cleaned_up(t));

    TestContext no_sh;
    healthy_cluster(no_sh);
    no_sh.kubectl.on(kToolCheck,
                     fail("error: Internal error occurred: exec: \"sh\": executable file not "
                          "found in $PATH: unknown\n",
                          1));
    CHECK(run(no_sh, {"create", write_spec(kSpec)}) == 1);
    CHECK(no_sh.err.str().find("the image has no sh") != std::string::npos);

    // OSF_SANDBOX_REQUIRED_TOOLS adds to what is probed.
    TestContext fine;
    healthy_cluster(fine);
    fine.env["OSF_SANDBOX_REQUIRED_TOOLS"] = "git,timeout";
    REQUIRE(run(fine, {"create", write_spec(kSpec)}) == 0);
    const auto probe = fine.kubectl.find(kToolCheck);
    REQUIRE(probe.size() == 1);
    CHECK(probe[0].args.back().find("for tool in env tar cp git timeout;") != std::string::npos);
    TestContext bad;
    bad.env["OSF_SANDBOX_REQUIRED_TOOLS"] = "git;rm -rf /";
    CHECK(run(bad, {"create", write_spec(kSpec)}) == 2);
}

TEST_CASE("create: a pod the namespace's Pod Security level refuses fails before anything starts") {
    const std::vector<std::string> probe = {"create", "--namespace", "default", "--dry-run=server"};
    TestContext t;
    healthy_cluster(t);
    t.kubectl.on(probe, fail("Error from server (Forbidden): error when creating \"STDIN\": pods "
                             "\"osf-sandbox-0123456789ab\" is forbidden: violates PodSecurity "
                             "\"restricted:latest\": runAsNonRoot != true\n"));
    CHECK(run(t, {"create", write_spec(kSpec)}) == 1);
    const std::string err = t.err.str();
    CHECK(err.find("sandbox-kubernetes: the namespace refuses the sandbox's pod: Pod Security "
                   "\"restricted:latest\" forbids runAsNonRoot != true") != std::string::npos);
    CHECK(err.find("runs in root mode") != std::string::npos);
    CHECK(t.kubectl.find({"create", "--namespace", "default", "-f", "-"}).empty());
    CHECK(t.kubectl.find({"create", "secret"}).empty());
    // The probe is the pod the controller will make: the sandbox's pod template.
    const auto calls = t.kubectl.find(probe);
    REQUIRE(calls.size() == 1);
    const json pod = json::parse(calls[0].input);
    CHECK(pod["kind"] == "Pod");
    CHECK(pod["metadata"]["name"] == "osf-sandbox-" + kId);
    CHECK(pod["spec"]["containers"][0]["image"] == "node:24-alpine");

    // Another refusal of the dry run (a webhook without dry-run support) is not ours to judge.
    TestContext webhook;
    healthy_cluster(webhook);
    webhook.kubectl.on(probe, fail("Error from server (BadRequest): admission webhook does not "
                                   "support dry run\n"));
    CHECK(run(webhook, {"create", write_spec(kSpec)}) == 0);
}

TEST_CASE("create without a template runs OSF_SANDBOX_DEFAULT_IMAGE; the allowlist can be made "
          "mandatory") {
    TestContext t;
    CHECK(run(t, {"create", "--dry-run", write_spec(R"({"egress": ["example.com"]})")}) == 0);
    const json list = json::parse(t.out.str());
    CHECK(list["items"][6]["spec"]["podTemplate"]["spec"]["containers"][0]["image"] ==
          "ghcr.io/opensoftware/sandbox-base:0.1.0");
    TestContext own;
    own.env["OSF_SANDBOX_DEFAULT_IMAGE"] = "registry.example/base:2";
    CHECK(run(own, {"create", "--dry-run", write_spec(R"({})")}) == 0);
    CHECK(json::parse(
              own.out.str())["items"][6]["spec"]["podTemplate"]["spec"]["containers"][0]["image"] ==
          "registry.example/base:2");
    TestContext bad;
    bad.env["OSF_SANDBOX_DEFAULT_IMAGE"] = "base";
    CHECK(run(bad, {"create", "--dry-run", write_spec(R"({})")}) == 2);
    // Mandatory: no allowlist is a refusal; with one, the default image must be on it too.
    TestContext required;
    required.env["OSF_SANDBOX_REQUIRE_ALLOWED_IMAGES"] = "true";
    CHECK(run(required, {"create", "--dry-run", write_spec(R"({})")}) == 2);
    CHECK_THAT(required.err.str(),
               Catch::EndsWith("sandbox-kubernetes: OSF_SANDBOX_REQUIRE_ALLOWED_IMAGES is true but "
                               "OSF_SANDBOX_ALLOWED_IMAGES is not set: name the images sandboxes "
                               "may run\n"));
    TestContext listed;
    listed.env["OSF_SANDBOX_REQUIRE_ALLOWED_IMAGES"] = "true";
    listed.env["OSF_SANDBOX_ALLOWED_IMAGES"] = "ghcr.io/opensoftware/*";
    CHECK(run(listed, {"create", "--dry-run", write_spec(R"({})")}) == 0);
    TestContext word;
    word.env["OSF_SANDBOX_REQUIRE_ALLOWED_IMAGES"] = "yes";
    CHECK(run(word, {"create", "--dry-run", write_spec(R"({})")}) == 2);
}
