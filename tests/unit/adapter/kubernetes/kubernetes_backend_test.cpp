// extend, gc and exec's timeout and interruption through the CLI with a fake
// kubectl: the exact calls, outputs and exit codes.
#include "kubernetes/manifests/resources.hpp"
#include "kubernetes/register_commands.hpp"
#include "test_support.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <unistd.h>

using nlohmann::json;
using osf::kubernetes::manifests::kSandboxPartResources;
using osf::testing::fail;
using osf::testing::ok;
using osf::testing::TestContext;
using namespace std::chrono_literals;

namespace {

const std::string kId = "0123456789ab";
// The claim is read by its name (never by label: that costs the API server a
// read of every claim in the namespace).
const std::vector<std::string> kGetClaim = {"get",
                                            "sandboxclaims.v1beta1.extensions.agents.x-k8s.io",
                                            "osf-sandbox-" + kId,
                                            "--namespace",
                                            "default",
                                            "--ignore-not-found",
                                            "-o",
                                            "json"};

int run(TestContext& t, std::vector<std::string> args) {
    CLI::App app{"sandbox-kubernetes"};
    osf::kubernetes::register_commands(app, t.context);
    args.insert(args.begin(), "sandbox-kubernetes");
    std::vector<const char*> argv;
    for (const auto& arg : args)
        argv.push_back(arg.c_str());
    return osf::kubernetes::run_cli(app, t.context, static_cast<int>(argv.size()), argv.data());
}

// Created 18:00, expires 20:00 (the test clock says 19:00).
json claim() {
    return {{"kind", "SandboxClaim"},
            {"metadata",
             {{"name", "osf-sandbox-" + kId},
              {"uid", "u1"},
              {"labels", {{"osf.sandbox.id", kId}}},
              {"creationTimestamp", "2026-11-29T18:00:00Z"},
              {"annotations", {{"osf.sandbox.created-at", "2026-11-29T18:00:00Z"}}}}},
            {"spec", {{"lifecycle", {{"shutdownTime", "2026-11-29T20:00:00Z"}}}}},
            {"status",
             {{"sandbox", {{"name", "osf-sandbox-" + kId}}},
              {"conditions", json::array({json{{"type", "Ready"}, {"status", "True"}}})}}}};
}

json list_of(std::vector<json> items) {
    return {{"kind", "List"}, {"items", items}};
}

// What `kubectl get --raw` prints for a collection holding `items`.
std::string raw_list_of(const std::vector<json>& items) {
    return list_of(items).dump();
}

} // namespace

TEST_CASE("extend: patches the claim's shutdownTime and annotation, prints the new expiry") {
    TestContext t;
    t.kubectl.on(kGetClaim, ok(claim().dump()));
    CHECK(run(t, {"extend", kId, "90m"}) == 0);
    CHECK(t.out.str() == "2026-11-29T21:30:00Z\n");
    const auto patches = t.kubectl.find({"patch"});
    REQUIRE(patches.size() == 1);
    CHECK(
        patches[0].args ==
        std::vector<std::string>{
            "patch", "sandboxclaims.v1beta1.extensions.agents.x-k8s.io", "osf-sandbox-" + kId,
            "--namespace", "default", "--type", "merge", "-p",
            R"({"metadata":{"annotations":{"osf.sandbox.expires-at":"2026-11-29T21:30:00Z"}},"spec":{"lifecycle":{"shutdownTime":"2026-11-29T21:30:00Z"}}})"});
}

TEST_CASE("extend: beyond the maximum, a bad duration, an unknown ID") {
    TestContext t;
    t.env["OSF_SANDBOX_MAX_LIFETIME"] = "4h";
    t.kubectl.on(kGetClaim, ok(claim().dump()));
    CHECK(run(t, {"extend", kId, "3h"}) == 2);
    CHECK(t.err.str() == "sandbox-kubernetes: cannot extend to 2026-11-29T23:00:00Z: a sandbox "
                         "lives at most 4h (OSF_SANDBOX_MAX_LIFETIME), until "
                         "2026-11-29T22:00:00Z\n");
    CHECK(t.kubectl.find({"patch"}).empty());
    TestContext bad;
    CHECK(run(bad, {"extend", kId, "soon"}) == 2);
    CHECK_THAT(bad.err.str(), Catch::StartsWith("sandbox-kubernetes: extend: 'soon' is not a "
                                                "duration"));
    CHECK(bad.kubectl.calls.empty());
    TestContext unknown;
    unknown.kubectl.on(kGetClaim, ok(""));
    CHECK(run(unknown, {"extend", kId, "1h"}) == 1);
    CHECK(unknown.err.str() == "sandbox-kubernetes: no sandbox " + kId + "\n");
}

TEST_CASE("gc: removes by label what the plan says, one line each; --dry-run removes nothing") {
    json expired = claim();
    expired["spec"]["lifecycle"]["shutdownTime"] = "2026-11-29T18:30:00Z";
    // The second claim is healthy and of another ID.
    json healthy = claim();
    healthy["metadata"]["labels"]["osf.sandbox.id"] = "bbbbbbbbbbbb";
    const json healthy_pool = {
        {"kind", "SandboxWarmPool"},
        {"metadata",
         {{"name", "osf-sandbox-bbbbbbbbbbbb"}, {"labels", {{"osf.sandbox.id", "bbbbbbbbbbbb"}}}}}};
    const std::string both = raw_list_of({expired, healthy, healthy_pool});

    const std::vector<std::string> parts_get = {"get", kSandboxPartResources};
    TestContext dry;
    dry.kubectl.on({"get", "--raw"}, ok(both));
    dry.kubectl.on(parts_get, ok(R"({"apiVersion":"v1","items":[],"kind":"List"})"));
    CHECK(run(dry, {"gc", "--dry-run"}) == 0);
    CHECK(dry.out.str() == kId + " expired at 2026-11-29T18:30:00Z\n");
    CHECK(dry.kubectl.find({"delete"}).empty());
    // Streamed reads by REST path (no discovery, nothing decoded by kubectl) of what the rules
    // need: the claims and warm pools whole, 5,000 a page; of the pods only those that ended,
    // picked by the API server.
    const std::string selector =
        "?labelSelector=app.kubernetes.io%2Fmanaged-by%3Dsandbox-kubernetes";
    const auto reads = dry.kubectl.find({"get", "--raw"});
    REQUIRE(reads.size() == 3);
    CHECK(reads[0].args ==
          std::vector<std::string>{"get", "--raw",
                                   "/apis/extensions.agents.x-k8s.io/v1beta1/namespaces/default/"
                                   "sandboxclaims" +
                                       selector + "&limit=5000"});
    CHECK(reads[1].args[2] ==
          "/apis/extensions.agents.x-k8s.io/v1beta1/namespaces/default/sandboxwarmpools" +
              selector + "&limit=5000");
    CHECK(reads[2].args[2] == "/api/v1/namespaces/default/pods" + selector +
                                  "&fieldSelector=status.phase%21%3DRunning%2Cstatus.phase%21%3D"
                                  "Pending%2Cstatus.phase%21%3DUnknown&limit=1000");
    // Every other kind in one kubectl call, of the parts no claim owns only (an earlier
    // version's; the rest goes with its claim).
    const auto parts = dry.kubectl.find(parts_get);
    REQUIRE(parts.size() == 1);
    CHECK(parts[0].args ==
          std::vector<std::string>{"get", kSandboxPartResources, "--namespace", "default", "-l",
                                   "app.kubernetes.io/managed-by=sandbox-kubernetes,osf.sandbox.id,"
                                   "!osf.sandbox.owned-by-claim",
                                   "-o", "json"});
    CHECK(dry.kubectl.calls.size() == 4);

    TestContext t;
    t.kubectl.on({"get"}, ok(both));
    t.kubectl.on(parts_get, ok(R"({"items":[]})"));
    CHECK(run(t, {"gc"}) == 0);
    CHECK(t.out.str() == kId + " expired at 2026-11-29T18:30:00Z\n");
    const auto deletes = t.kubectl.find({"delete"});
    // The Secret by name; the claim, then the Sandbox, with their dependents (waited for:
    // nothing a controller could start again is left); the rest by name, four a call.
    REQUIRE(deletes.size() == 6);
    CHECK(deletes[0].args ==
          std::vector<std::string>{"delete", "secrets", "osf-sandbox-" + kId + "-secrets",
                                   "--namespace", "default", "--ignore-not-found", "--wait=false"});
    CHECK(deletes[1].args ==
          std::vector<std::string>{"delete", "sandboxclaims.v1beta1.extensions.agents.x-k8s.io",
                                   "osf-sandbox-" + kId, "--namespace", "default",
                                   "--ignore-not-found", "--cascade=foreground"});
    CHECK(deletes[2].args == std::vector<std::string>{"delete", "sandboxes.v1beta1.agents.x-k8s.io",
                                                      "osf-sandbox-" + kId, "--namespace",
                                                      "default", "--ignore-not-found",
                                                      "--cascade=foreground"});
    CHECK(deletes[3].args[1] ==
          "sandboxwarmpools.v1beta1.extensions.agents.x-k8s.io/osf-sandbox-" + kId);
    CHECK(std::find(deletes[3].args.begin(), deletes[3].args.end(), "-l") == deletes[3].args.end());
    CHECK(deletes[3].args.back() == "--ignore-not-found");
    // gc learns what exists from every kind but Secrets, which it never reads.
    for (const auto& call : t.kubectl.calls)
        if (call.args[0] == "get") CHECK(call.args[1].find("secret") == std::string::npos);

    TestContext failing; // one removal failing: reported, the others go on, exit 1
    failing.kubectl.on({"get"}, ok(both));
    failing.kubectl.on(parts_get, ok(R"({"items":[]})"));
    failing.kubectl.on({"delete"}, fail("Error from server (Forbidden): no\n"));
    CHECK(run(failing, {"gc"}) == 1);
    CHECK_THAT(failing.err.str(), Catch::Contains("cannot remove " + kId));
}

TEST_CASE("gc --batch: a few calls per batch naming each sandbox of it, progress per batch") {
    const std::vector<std::string> ids = {"aaaaaaaaaaaa", "bbbbbbbbbbbb", "cccccccccccc"};
    std::vector<json> claims;
    for (const auto& id : ids) {
        json expired = claim();
        expired["metadata"]["name"] = "osf-sandbox-" + id;
        expired["metadata"]["labels"]["osf.sandbox.id"] = id;
        expired["spec"]["lifecycle"]["shutdownTime"] = "2026-11-29T18:30:00Z";
        claims.push_back(expired);
    }
    const std::vector<std::string> claims_get = {
        "get", "sandboxclaims.v1beta1.extensions.agents.x-k8s.io"};
    TestContext t;
    t.kubectl.on({"get", "--raw"}, ok(raw_list_of(claims)));
    t.kubectl.on({"get", kSandboxPartResources}, ok(R"({"items":[]})"));
    // Of the first batch only aaaaaaaaaaaa still has its claim.
    t.kubectl.on(claims_get,
                 {ok("sandboxclaim.extensions.agents.x-k8s.io/osf-sandbox-aaaaaaaaaaaa\n"),
                  ok("sandboxclaim.extensions.agents.x-k8s.io/osf-sandbox-cccccccccccc\n")});
    CHECK(run(t, {"gc", "--batch", "2"}) == 0);
    CHECK(t.out.str() == "aaaaaaaaaaaa expired at 2026-11-29T18:30:00Z\n"
                         "bbbbbbbbbbbb expired at 2026-11-29T18:30:00Z\n"
                         "cccccccccccc expired at 2026-11-29T18:30:00Z\n");
    CHECK(t.err.str() == "sandbox-kubernetes: gc: batch 1 of 2: 2 of 3 removed so far\n"
                         "sandbox-kubernetes: gc: batch 2 of 2: 3 of 3 removed so far\n");
    const auto existing = t.kubectl.find(claims_get);
    // The second batch is one sandbox, removed alone (its claim looked up by itself).
    REQUIRE(existing.size() == 2);
    CHECK(existing[1].args[2] == "osf-sandbox-cccccccccccc");
    CHECK(existing[0].args ==
          std::vector<std::string>{"get", "sandboxclaims.v1beta1.extensions.agents.x-k8s.io",
                                   "osf-sandbox-aaaaaaaaaaaa", "osf-sandbox-bbbbbbbbbbbb",
                                   "--namespace", "default", "--ignore-not-found", "-o", "name"});
    const auto deletes = t.kubectl.find({"delete"});
    // First batch: Secrets, claims, Sandboxes, the named rest (20, four a call), the
    // claimless one by label; second batch: remove_sandbox's, its 10 named in three calls.
    REQUIRE(deletes.size() == 9 + 6);
    CHECK(deletes[0].args ==
          std::vector<std::string>{"delete", "secrets", "osf-sandbox-aaaaaaaaaaaa-secrets",
                                   "osf-sandbox-bbbbbbbbbbbb-secrets", "--namespace", "default",
                                   "--ignore-not-found", "--wait=false"});
    CHECK(deletes[1].args ==
          std::vector<std::string>{"delete", "sandboxclaims.v1beta1.extensions.agents.x-k8s.io",
                                   "osf-sandbox-aaaaaaaaaaaa", "osf-sandbox-bbbbbbbbbbbb",
                                   "--namespace", "default", "--ignore-not-found",
                                   "--cascade=foreground"});
    CHECK(deletes[2].args[1] == "sandboxes.v1beta1.agents.x-k8s.io");
    CHECK(deletes[2].args.back() == "--cascade=foreground");
    std::vector<std::string> named;
    for (std::size_t at = 3; at < 8; ++at) {
        CHECK(deletes[at].args.size() <= 1 + 4 + 3);
        named.insert(named.end(), deletes[at].args.begin(), deletes[at].args.end());
    }
    CHECK(std::count_if(named.begin(), named.end(), [](const std::string& arg) {
              return arg.find("aaaaaaaaaaaa") != std::string::npos;
          }) == std::count_if(named.begin(), named.end(), [](const std::string& arg) {
              return arg.find("bbbbbbbbbbbb") != std::string::npos;
          }));
    CHECK(deletes[8].args[4] == "-l");
    CHECK(deletes[8].args[5] == "osf.sandbox.id in (bbbbbbbbbbbb)");
    CHECK(deletes[9].args[2] == "osf-sandbox-cccccccccccc-secrets");

    // A batch that fails is tried again one sandbox at a time: each failure named.
    TestContext failing;
    failing.kubectl.on({"get", "--raw"}, ok(raw_list_of(claims)));
    failing.kubectl.on({"get", kSandboxPartResources}, ok(R"({"items":[]})"));
    failing.kubectl.on({"delete"}, fail("Error from server (Forbidden): no\n"));
    CHECK(run(failing, {"gc", "--batch", "3"}) == 1);
    CHECK(failing.out.str().empty());
    for (const auto& id : ids)
        CHECK_THAT(failing.err.str(), Catch::Contains("cannot remove " + id + ": "));

    // --max-seconds: no batch starts after it; what is left is named; exit 0.
    TestContext bounded;
    bounded.kubectl.on({"get", "--raw"}, ok(raw_list_of(claims)));
    bounded.kubectl.on({"get", kSandboxPartResources}, ok(R"({"items":[]})"));
    bounded.kubectl.while_running = [&](const auto& call) {
        if (call.args[0] == "delete") bounded.now += 6s; // 7 deletes a sandbox: 42 s
    };
    CHECK(run(bounded, {"gc", "--batch", "1", "--max-seconds", "60"}) == 0);
    CHECK(bounded.out.str() == "aaaaaaaaaaaa expired at 2026-11-29T18:30:00Z\n"
                               "bbbbbbbbbbbb expired at 2026-11-29T18:30:00Z\n");
    CHECK_THAT(bounded.err.str(),
               Catch::EndsWith("sandbox-kubernetes: gc: stopped after 84 s (--max-seconds 60): 1 "
                               "sandboxes left for the next run\n"));
    TestContext bad;
    CHECK(run(bad, {"gc", "--batch", "0"}) == 2);
    CHECK(bad.kubectl.calls.empty());
}

TEST_CASE("gc --save-logs: a sandbox stays unless its log was kept; existing files never "
          "overwritten") {
    namespace fs = std::filesystem;
    const fs::path dir =
        fs::temp_directory_path() / ("osf-gc-save-logs-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    const std::string other = "bbbbbbbbbbbb";
    json expired = claim();
    expired["spec"]["lifecycle"]["shutdownTime"] = "2026-11-29T18:30:00Z";
    json expired_other = expired;
    expired_other["metadata"]["labels"]["osf.sandbox.id"] = other;
    expired_other["metadata"]["name"] = "osf-sandbox-" + other;
    const std::string both = raw_list_of({expired, expired_other});
    const std::string pem = "-----BEGIN PUBLIC KEY-----\n"
                            "MCowBQYDK2VwAyEAC2SM+2PV64BfZ+NPPYs8Il907pwyIB0eh5X/HiozaLA=\n"
                            "-----END PUBLIC KEY-----\n";
    const auto setup = [&](TestContext& t) {
        t.kubectl.on({"get"}, ok(both));
        t.kubectl.on(
            {"get", "pods"},
            ok(list_of({json{{"metadata", {{"name", "osf-sandbox-" + kId + "-egress"}}}}}).dump()));
        t.kubectl.on({"get", "configmap"},
                     ok(json{{"data", {{"egress-log-key.pub", pem}}}}.dump()));
        t.kubectl.on({"exec"}, ok("not an egress log line\n"));
    };

    TestContext bad_dir; // not a directory: exit 2 before kubectl is asked anything
    CHECK(run(bad_dir, {"gc", "--save-logs", (dir / "missing").string()}) == 2);
    CHECK(bad_dir.err.str() == "sandbox-kubernetes: --save-logs: " + (dir / "missing").string() +
                                   " is not a directory\n");
    CHECK(bad_dir.kubectl.calls.empty());

    TestContext dry; // --dry-run saves nothing
    setup(dry);
    CHECK(run(dry, {"gc", "--dry-run", "--save-logs", dir.string()}) == 0);
    CHECK(dry.kubectl.find({"exec"}).empty());
    CHECK(fs::is_empty(dir));

    // The other sandbox's log is already there: it is skipped, the file untouched.
    std::ofstream(dir / (other + ".jsonl")) << "kept before\n";
    TestContext t;
    setup(t);
    CHECK(run(t, {"gc", "--save-logs", dir.string()}) == 1);
    // kId's log was saved with its key, but it does not verify: the sandbox stays.
    std::ifstream saved(dir / (kId + ".jsonl"));
    CHECK(std::string(std::istreambuf_iterator<char>(saved), {}) == "not an egress log line\n");
    std::ifstream key(dir / (kId + ".jsonl.pub"));
    CHECK(std::string(std::istreambuf_iterator<char>(key), {}) == pem);
    CHECK_THAT(t.err.str(),
               Catch::Contains("sandbox-kubernetes: " + kId +
                               " not removed: its egress log was not kept: saved "
                               "the egress log to " +
                               (dir / (kId + ".jsonl")).string() + " but it does not verify"));
    CHECK_THAT(t.err.str(), Catch::Contains("sandbox-kubernetes: " + other +
                                            " not removed: " + (dir / (other + ".jsonl")).string() +
                                            " already exists (a saved log is never "
                                            "overwritten)\n"));
    std::ifstream before(dir / (other + ".jsonl"));
    CHECK(std::string(std::istreambuf_iterator<char>(before), {}) == "kept before\n");
    CHECK_FALSE(fs::exists(dir / (other + ".jsonl.pub")));
    CHECK(t.kubectl.find({"delete"}).empty());
    CHECK(t.out.str().empty());
    // Every exec was for kId's egress pod (the checkpoint, then the log).
    CHECK(t.kubectl.find({"exec", "osf-sandbox-" + kId + "-egress"}).size() ==
          t.kubectl.find({"exec"}).size());
    fs::remove_all(dir);
}

TEST_CASE("exec --timeout: at the deadline kubectl is stopped, the command killed, exit 137") {
    TestContext t;
    t.kubectl.on(kGetClaim, ok(claim().dump()));
    t.kubectl.on({"exec", "-i"}, fail("", 143));
    bool asked = false;
    t.kubectl.while_running = [&](const osf::kubernetes::kubectl::KubectlCall& call) {
        if (call.args[1] != "-i") return;
        REQUIRE(call.should_stop);
        CHECK_FALSE(call.should_stop()); // not yet
        t.now += 10min + 1s;
        asked = call.should_stop();
    };
    CHECK(run(t, {"exec", "--timeout", "10m", kId, "--", "sleep", "infinity"}) == 137);
    CHECK(asked);
    CHECK(t.err.str() ==
          "sandbox-kubernetes: exec: timed out after 10m; the command was stopped\n");
    // The stop: a second exec in the sandbox container, with this exec's marker.
    const auto execs = t.kubectl.find({"exec"});
    REQUIRE(execs.size() == 2);
    CHECK_THAT(execs[0].args.back(), Catch::Contains("'OSF_EXEC_ID=0123456789ab'"));
    const std::vector<std::string> stop_prefix = {
        "exec", "osf-sandbox-" + kId, "--namespace", "default", "--", "sh", "-c"};
    CHECK(std::equal(stop_prefix.begin(), stop_prefix.end(), execs[1].args.begin()));
    CHECK(execs[1].args[execs[1].args.size() - 2] == "0123456789ab");
    CHECK(execs[1].args.back() == "5");
}

TEST_CASE("exec: Ctrl-C stops the command in the sandbox and exits 130") {
    TestContext t;
    t.kubectl.on(kGetClaim, ok(claim().dump()));
    t.kubectl.on({"exec", "-i"}, fail("", 130));
    t.kubectl.while_running = [&](const osf::kubernetes::kubectl::KubectlCall& call) {
        if (call.args[1] != "-i") return;
        t.signal = 2;
        CHECK(call.should_stop());
    };
    CHECK(run(t, {"exec", kId, "--", "cat"}) == 130);
    CHECK(t.kubectl.find({"exec", "osf-sandbox-" + kId}).size() == 1); // the stop
    CHECK(t.err.str() == "sandbox-kubernetes: interrupted\n");
}

TEST_CASE("exec: the default timeout comes from OSF_SANDBOX_EXEC_TIMEOUT; bad values exit 2") {
    TestContext t;
    t.env["OSF_SANDBOX_EXEC_TIMEOUT"] = "30s";
    t.kubectl.on(kGetClaim, ok(claim().dump()));
    t.kubectl.while_running = [&](const osf::kubernetes::kubectl::KubectlCall& call) {
        if (call.args[1] != "-i") return;
        t.now += 29s;
        CHECK_FALSE(call.should_stop());
        t.now += 1s;
        CHECK(call.should_stop());
    };
    CHECK(run(t, {"exec", kId, "--", "true"}) == 137);
    TestContext bad;
    CHECK(run(bad, {"exec", "--timeout", "5", kId, "--", "true"}) == 2);
    CHECK_THAT(bad.err.str(), Catch::Contains("--timeout '5' has no unit"));
    CHECK(bad.kubectl.calls.empty());
}

namespace {

json sandbox_object(bool persistent, bool suspended) {
    json sandbox = {{"kind", "Sandbox"},
                    {"metadata", {{"name", "osf-sandbox-" + kId}}},
                    {"spec", json::object()}};
    if (persistent)
        sandbox["spec"]["volumeClaimTemplates"] =
            json::array({json{{"metadata", {{"name", "workspace"}}}}});
    if (suspended) sandbox["spec"]["operatingMode"] = "Suspended";
    return sandbox;
}

const std::vector<std::string> kGetSandbox = {"get", "sandboxes.v1beta1.agents.x-k8s.io",
                                              "osf-sandbox-" + kId};
const std::vector<std::string> kGetEgressPod = {"get", "pods", "osf-sandbox-" + kId + "-egress"};
const std::vector<std::string> kGetSandboxPod = {"get", "pods", "osf-sandbox-" + kId};

std::vector<std::string> verbs(const TestContext& t) {
    std::vector<std::string> out;
    for (const auto& call : t.kubectl.calls)
        out.push_back(call.args[0] + " " + call.args[1] +
                      (call.args.size() > 2 && call.args[0] != "exec" ? " " + call.args[2] : ""));
    return out;
}

} // namespace

TEST_CASE(
    "suspend: saves the egress pod, suspends the Sandbox, waits for its pod, stops the proxy") {
    TestContext t;
    t.kubectl.on(kGetClaim, ok(claim().dump()));
    t.kubectl.on(kGetSandbox, ok(sandbox_object(true, false).dump()));
    const json egress = {{"kind", "Pod"},
                         {"metadata", {{"name", "osf-sandbox-" + kId + "-egress"}}},
                         {"spec", json::object()}};
    t.kubectl.on(kGetEgressPod, ok(egress.dump()));
    t.kubectl.on(kGetSandboxPod, std::vector{ok(json{{"kind", "Pod"}}.dump()), ok("")});
    CHECK(run(t, {"suspend", kId}) == 0);
    CHECK(t.err.str() == "suspended sandbox " + kId + "\n");
    const std::string p = "osf-sandbox-" + kId;
    CHECK(verbs(t) == std::vector<std::string>{
                          "get sandboxclaims.v1beta1.extensions.agents.x-k8s.io " + p,
                          "get sandboxes.v1beta1.agents.x-k8s.io " + p,
                          "get pods " + p + "-egress",
                          "delete configmaps " + p + "-egress-pod",
                          "create --namespace default",
                          "patch sandboxclaims.v1beta1.extensions.agents.x-k8s.io " + p,
                          "patch sandboxes.v1beta1.agents.x-k8s.io " + p,
                          "get pods " + p,
                          "get pods " + p,
                          "delete pods " + p + "-egress",
                      });
    const auto creates = t.kubectl.find({"create"});
    CHECK(json::parse(creates[0].input)["metadata"]["name"] == p + "-egress-pod");
    CHECK(t.kubectl.find({"patch", "sandboxes.v1beta1.agents.x-k8s.io"})[0].args.back() ==
          R"({"spec":{"operatingMode":"Suspended"}})");
}

TEST_CASE("suspend: a sandbox without persistence is refused; unknown IDs; already suspended") {
    TestContext t;
    t.kubectl.on(kGetClaim, ok(claim().dump()));
    t.kubectl.on(kGetSandbox, ok(sandbox_object(false, false).dump()));
    CHECK(run(t, {"suspend", kId}) == 1);
    CHECK_THAT(t.err.str(), Catch::Contains("its spec has no persistence"));
    CHECK(t.kubectl.find({"patch"}).empty());
    TestContext unknown;
    unknown.kubectl.on(kGetClaim, ok(""));
    CHECK(run(unknown, {"resume", kId}) == 1);
    CHECK(unknown.err.str() == "sandbox-kubernetes: no sandbox " + kId + "\n");
    TestContext again;
    again.kubectl.on(kGetClaim, ok(claim().dump()));
    again.kubectl.on(kGetSandbox, ok(sandbox_object(true, true).dump()));
    CHECK(run(again, {"suspend", kId}) == 0);
    CHECK(again.err.str() == "sandbox " + kId + " is already suspended\n");
    CHECK(again.kubectl.find({"patch"}).empty());
}

TEST_CASE("resume: the egress pod first, its CA into the ConfigMap, then the sandbox") {
    TestContext t;
    const std::string p = "osf-sandbox-" + kId;
    t.kubectl.on(kGetClaim, ok(claim().dump()));
    t.kubectl.on(kGetSandbox, ok(sandbox_object(true, true).dump()));
    const json ready = {
        {"kind", "Pod"},
        {"status",
         {{"phase", "Running"},
          {"conditions", json::array({json{{"type", "Ready"}, {"status", "True"}}})}}}};
    t.kubectl.on(kGetEgressPod, std::vector{ok(""), ok(ready.dump())});
    t.kubectl.on(kGetSandboxPod, ok(ready.dump()));
    const json saved = {{"kind", "ConfigMap"},
                        {"data", {{"pod.json", R"({"apiVersion":"v1","kind":"Pod"})"}}}};
    t.kubectl.on({"get", "configmaps", p + "-egress-pod"}, ok(saved.dump()));
    const std::string cert = "-----BEGIN CERTIFICATE-----\nNEW\n-----END CERTIFICATE-----\n";
    const std::string key = "-----BEGIN PUBLIC KEY-----\nMCow\n-----END PUBLIC KEY-----\n";
    t.kubectl.on({"exec", p + "-egress"}, ok(cert + key));
    t.kubectl.on({"get", "sandboxclaims.v1beta1.extensions.agents.x-k8s.io", p},
                 ok(claim().dump()));
    REQUIRE(run(t, {"resume", kId}) == 0);
    CHECK(t.err.str().ends_with("resumed sandbox " + kId + "\n"));
    const auto all = verbs(t);
    const auto at = [&](const std::string& verb) {
        return std::find(all.begin(), all.end(), verb) - all.begin();
    };
    CHECK(at("create --namespace default") < at("exec " + p + "-egress"));
    CHECK(at("exec " + p + "-egress") < at("patch configmaps " + p + "-ca"));
    CHECK(at("patch configmaps " + p + "-ca") < at("patch sandboxes.v1beta1.agents.x-k8s.io " + p));
    CHECK(at("patch sandboxes.v1beta1.agents.x-k8s.io " + p) <
          at("patch sandboxclaims.v1beta1.extensions.agents.x-k8s.io " + p));
    CHECK(at("delete configmaps " + p + "-egress-pod") == static_cast<long>(all.size()) - 1);
    const auto ca_patches = t.kubectl.find({"patch", "configmaps"});
    REQUIRE(ca_patches.size() == 1);
    // The new proxy's CA and its egress log key, both republished.
    CHECK(json::parse(ca_patches[0].args.back()) ==
          json{{"data", {{"egress-ca.crt", cert}, {"egress-log-key.pub", key}}}});
    CHECK(t.kubectl.find({"patch", "sandboxclaims.v1beta1.extensions.agents.x-k8s.io"})[0]
              .args.back() == R"({"metadata":{"annotations":{"osf.sandbox.suspended-at":null}}})");
}

TEST_CASE("resume: a sandbox that is not suspended is left alone") {
    TestContext t;
    t.kubectl.on(kGetClaim, ok(claim().dump()));
    t.kubectl.on(kGetSandbox, ok(sandbox_object(true, false).dump()));
    CHECK(run(t, {"resume", kId}) == 0);
    CHECK(t.err.str() == "sandbox " + kId + " is not suspended\n");
    CHECK(t.kubectl.find({"create"}).empty());
}

namespace {

const std::string kStoredSpec = R"({"template": "node:24-alpine", "egress": ["a.test"]})";

json spec_config_map() {
    return {{"kind", "ConfigMap"}, {"data", {{"spec.json", kStoredSpec}}}};
}

json running_egress_pod() {
    return {{"kind", "Pod"},
            {"metadata", {{"name", "osf-sandbox-" + kId + "-egress"}}},
            {"status", {{"phase", "Running"}}}};
}

// A running sandbox whose stored spec allows a.test.
void policy_cluster(TestContext& t, bool suspended) {
    const std::string p = "osf-sandbox-" + kId;
    t.kubectl.on(kGetClaim, ok(claim().dump()));
    t.kubectl.on(kGetSandbox, ok(sandbox_object(true, suspended).dump()));
    t.kubectl.on({"get", "configmaps", p + "-spec"}, ok(spec_config_map().dump()));
    t.kubectl.on(kGetEgressPod, ok(suspended ? "" : running_egress_pod().dump()));
}

} // namespace

TEST_CASE("allow: the running proxy first, through kubectl exec -i, then the CA and spec "
          "ConfigMaps") {
    TestContext t;
    policy_cluster(t, false);
    const std::string p = "osf-sandbox-" + kId;
    t.kubectl.on({"exec", "-i", p + "-egress"}, ok(R"({"generation":1,"allowed":["b.test"]})"));
    const std::string bundle = "-----BEGIN CERTIFICATE-----\nA\n-----END CERTIFICATE-----\n"
                               "-----BEGIN CERTIFICATE-----\nB\n-----END CERTIFICATE-----\n";
    const std::string key = "-----BEGIN PUBLIC KEY-----\nMCow\n-----END PUBLIC KEY-----\n";
    t.kubectl.on({"exec", p + "-egress"}, ok(bundle + key));
    // The stored bundle lacks B: the sandbox must see the new one before allow returns. The
    // kubelet shows it at its second look.
    t.kubectl.on(
        {"get", "configmaps", p + "-ca"},
        ok(json{{"data", {{"egress-ca.crt", bundle.substr(0, bundle.size() / 2)}}}}.dump()));
    const std::vector<std::string> cat = {"exec", p,     "--namespace",           "default",
                                          "--",   "cat", "/etc/osf/egress-ca.crt"};
    t.kubectl.on(cat, std::vector{ok(bundle.substr(0, bundle.size() / 2)), ok(bundle)});
    REQUIRE(run(t, {"allow", kId, "b.test"}) == 0);
    CHECK_THAT(t.out.str(), Catch::StartsWith("allowed in " + kId +
                                              ": b.test (policy 1, in force "
                                              "now)\n"));
    CHECK_THAT(t.err.str(), Catch::Contains("waiting for the sandbox to see its egress proxy's new "
                                            "CA certificate"));
    CHECK(verbs(t) == std::vector<std::string>{
                          "get sandboxclaims.v1beta1.extensions.agents.x-k8s.io " + p,
                          "get sandboxes.v1beta1.agents.x-k8s.io " + p,
                          "get configmaps " + p + "-spec",
                          "get pods " + p + "-egress",
                          "exec -i",
                          "exec " + p + "-egress",
                          "get configmaps " + p + "-ca",
                          "patch configmaps " + p + "-ca",
                          "patch configmaps " + p + "-spec",
                          "get sandboxclaims.v1beta1.extensions.agents.x-k8s.io " + p,
                          "exec " + p,
                          "exec " + p,
                      });
    const auto policy = t.kubectl.find({"exec", "-i"});
    REQUIRE(policy.size() == 1);
    const std::vector<std::string> tail = {
        "-c",          "egress-proxy",          "--",  "/usr/local/bin/egress-proxy", "policy",
        "--state-dir", "/var/lib/egress-proxy", "--by"};
    CHECK(std::search(policy[0].args.begin(), policy[0].args.end(), tail.begin(), tail.end()) !=
          policy[0].args.end());
    // The edited spec on stdin: the new entry added, the rest as it was.
    const auto sent = json::parse(policy[0].input);
    CHECK(sent["egress"] == json::array({"a.test", "b.test"}));
    CHECK(sent["template"] == "node:24-alpine");
    const auto spec_patch = t.kubectl.find({"patch", "configmaps", p + "-spec"});
    REQUIRE(spec_patch.size() == 1);
    CHECK(json::parse(spec_patch[0].input) == json{{"data", {{"spec.json", policy[0].input}}}});
    const auto ca_patch = t.kubectl.find({"patch", "configmaps", p + "-ca"});
    REQUIRE(ca_patch.size() == 1);
    CHECK(json::parse(ca_patch[0].args.back()) ==
          json{{"data", {{"egress-ca.crt", bundle}, {"egress-log-key.pub", key}}}});

    // The sandbox never sees it: the change is in force in the proxy and stored, and the
    // command says what is not (exit 1).
    TestContext stale;
    policy_cluster(stale, false);
    stale.kubectl.on({"exec", "-i", p + "-egress"}, ok(R"({"generation":1,"allowed":["b.test"]})"));
    stale.kubectl.on({"exec", p + "-egress"}, ok(bundle + key));
    stale.kubectl.on(cat, ok("an old bundle"));
    CHECK(run(stale, {"allow", kId, "b.test"}) == 1);
    CHECK_THAT(stale.err.str(),
               Catch::Contains("sandbox-kubernetes: sandbox " + kId +
                               ": the change is in force in its egress proxy and stored, but "
                               "/etc/osf/egress-ca.crt in the sandbox still lacks the new CA "
                               "certificate after 150 s"));
    CHECK(stale.kubectl.find({"patch", "configmaps", p + "-spec"}).size() == 1);
}

TEST_CASE("allow: the proxy's refusal or silence stores nothing and names the reason") {
    const std::string p = "osf-sandbox-" + kId;
    TestContext refused;
    policy_cluster(refused, false);
    refused.kubectl.on({"exec", "-i", p + "-egress"},
                       fail("egress-proxy: the proxy refused the new policy (400): the new spec "
                            "is not valid: x\ncommand terminated with exit code 2\n",
                            2));
    CHECK(run(refused, {"allow", kId, "b.test"}) == 1);
    CHECK(refused.err.str() == "sandbox-kubernetes: sandbox " + kId +
                                   ": its egress proxy refused the change (the proxy refused the "
                                   "new policy (400): the new spec is not valid: x); nothing "
                                   "changed\n");
    CHECK(refused.kubectl.find({"patch"}).empty());
    TestContext silent;
    policy_cluster(silent, false);
    silent.kubectl.on({"exec", "-i", p + "-egress"},
                      fail("error: unable to upgrade connection: container not found\n", 1));
    CHECK(run(silent, {"revoke", kId, "a.test"}) == 1);
    CHECK_THAT(silent.err.str(), Catch::Contains("its egress proxy cannot be reached (error: "
                                                 "unable to upgrade connection"));
    CHECK(silent.kubectl.find({"patch"}).empty());
}

TEST_CASE("allow: a suspended sandbox gets the spec ConfigMap only, in force at resume") {
    TestContext t;
    policy_cluster(t, true);
    const std::string p = "osf-sandbox-" + kId;
    REQUIRE(run(t, {"allow", kId, "b.test", "--mcp", "x:y"}) == 2); // no server x: nothing
    CHECK_THAT(t.err.str(), Catch::Contains("x:y"));
    CHECK(t.kubectl.find({"patch"}).empty());
    TestContext stored;
    policy_cluster(stored, true);
    REQUIRE(run(stored, {"allow", kId, "b.test"}) == 0);
    CHECK(stored.out.str() ==
          "allowed in " + kId + ": b.test (stored: in force when the sandbox resumes)\n");
    CHECK(stored.kubectl.find({"exec"}).empty());
    const auto patches = stored.kubectl.find({"patch"});
    REQUIRE(patches.size() == 1);
    CHECK(patches[0].args[2] == p + "-spec");
    CHECK(json::parse(
              json::parse(patches[0].input)["data"]["spec.json"].get<std::string>())["egress"] ==
          json::array({"a.test", "b.test"}));
}

TEST_CASE("revoke: what the spec does not allow exits 2 naming it; nothing is called after") {
    TestContext t;
    policy_cluster(t, false);
    CHECK(run(t, {"revoke", kId, "c.test"}) == 2);
    CHECK_THAT(t.err.str(), Catch::Contains("c.test"));
    CHECK(t.kubectl.find({"exec"}).empty());
    CHECK(t.kubectl.find({"patch"}).empty());
    TestContext again;
    policy_cluster(again, false);
    CHECK(run(again, {"allow", kId, "a.test"}) == 0);
    CHECK(again.out.str() == "already allowed in " + kId + ": a.test\n");
    CHECK(again.kubectl.find({"exec"}).empty());
}

TEST_CASE(
    "allow: a patch that fails after the proxy applied the change says so and how to finish") {
    TestContext t;
    policy_cluster(t, false);
    const std::string p = "osf-sandbox-" + kId;
    t.kubectl.on({"exec", "-i", p + "-egress"}, ok(R"({"generation":4})"));
    t.kubectl.on({"exec", p + "-egress"},
                 ok("-----BEGIN CERTIFICATE-----\nA\n-----END CERTIFICATE-----\n"
                    "-----BEGIN PUBLIC KEY-----\nMCow\n-----END PUBLIC KEY-----\n"));
    t.kubectl.on({"patch", "configmaps", p + "-spec"},
                 fail("Error from server (Forbidden): configmaps is forbidden\n"));
    CHECK(run(t, {"allow", kId, "b.test"}) == 1);
    CHECK(t.err.str() == "sandbox-kubernetes: sandbox " + kId +
                             ": its egress proxy applied the change (policy 4) but it was not "
                             "stored: kubectl patch failed: Error from server (Forbidden): "
                             "configmaps is forbidden; run the same command again to store it\n");
    // The CA ConfigMap first: a run again finds the spec ConfigMap without the change.
    CHECK(t.kubectl.find({"patch", "configmaps", p + "-ca"}).size() == 1);
}
