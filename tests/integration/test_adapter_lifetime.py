"""sandbox-kubernetes' lifetimes with the real kubectl against the test Kubernetes API server:
expiry through the SandboxClaim's lifecycle, ownerReferences and the garbage collector's
cascade, `extend`, `gc`, `list` as scripts read it, and `exec --timeout` / Ctrl-C stopping the
command in the sandbox. Also the server's own simulation of those controllers."""

import json
import os
import re
import signal
import subprocess
import sys
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from test_adapter import (  # noqa: E402  (shared helpers and the module's server set-up)
    ADAPTER, ALL_KINDS, EXEC_HANDLERS, ID_RE, adapter, create, labelled, pytestmark, write_spec)
from kube_api_fixture import KubeApiServer  # noqa: E402

__all__ = ["pytestmark"]

CLAIMS = "sandboxclaims.extensions.agents.x-k8s.io"
DAY = 24 * 3600


@pytest.fixture(scope="module")
def kube(tmp_path_factory):
    with KubeApiServer(tmp_path_factory.mktemp("kube-api")) as server:
        server.set_exec(handlers=EXEC_HANDLERS)
        yield server


@pytest.fixture
def cluster(kube):
    yield kube
    kube.configure(podRules=[], podDelaySeconds=0.2, sandboxController=True, forbid=[], gcDelaySeconds=0)


def claim_of(kube, sandbox_id):
    return kube.kubectl_json("get", CLAIMS, f"osf-sandbox-{sandbox_id}")


def gone(kube, sandbox_id):
    return labelled(kube, sandbox_id) == []


# -- lifetime and ownership ---------------------------------------------------------------------

def test_create_gives_the_claim_a_lifecycle_and_everything_an_owner(cluster, tmp_path):
    kube = cluster
    before = time.time()
    sandbox_id, _ = create(kube, tmp_path, {"template": "alpine:3", "lifetime": "90m",
                                            "secrets": {"T": "ref:env/T"}}, env={"OSF_SECRET_T": "v"})
    claim = claim_of(kube, sandbox_id)
    lifecycle = claim["spec"]["lifecycle"]
    assert lifecycle["shutdownPolicy"] == "Delete"
    annotations = claim["metadata"]["annotations"]
    assert annotations["osf.sandbox.expires-at"] == lifecycle["shutdownTime"]
    created = time.mktime(time.strptime(annotations["osf.sandbox.created-at"], "%Y-%m-%dT%H:%M:%SZ"))
    expires = time.mktime(time.strptime(lifecycle["shutdownTime"], "%Y-%m-%dT%H:%M:%SZ"))
    assert expires - created == 90 * 60
    assert before - 2 <= created - time.timezone <= time.time() + 1
    uid = claim["metadata"]["uid"]
    owned = [o for o in labelled(kube, sandbox_id) if o["kind"] not in ("SandboxClaim", "Sandbox")]
    kinds = sorted(o["kind"] for o in owned)
    # the sandbox pod is the Sandbox's (agent-sandbox's own chain); everything create made is the
    # claim's, from the moment it was made (create makes the claim first)
    assert kinds == sorted(["ConfigMap", "ConfigMap", "NetworkPolicy", "Pod", "Pod", "Secret", "SandboxTemplate",
                            "SandboxWarmPool", "Service"])
    for obj in owned:
        refs = obj["metadata"].get("ownerReferences") or []
        if obj["kind"] == "Pod" and obj["metadata"]["name"] == f"osf-sandbox-{sandbox_id}":
            assert refs[0]["kind"] == "Sandbox"
            continue
        assert refs == [{"apiVersion": "extensions.agents.x-k8s.io/v1beta1", "kind": "SandboxClaim",
                         "name": f"osf-sandbox-{sandbox_id}", "uid": uid}], obj["metadata"]["name"]
    # The kubelet ends both pods an extend window (1 hour) after the expiry, whatever the controllers
    # do: activeDeadlineSeconds counted from when each was made.
    assert annotations["osf.sandbox.pods-end-at"] == time.strftime("%Y-%m-%dT%H:%M:%SZ",
                                                                   time.gmtime(expires - time.timezone + 3600))
    egress = kube.kubectl_json("get", "pod", f"osf-sandbox-{sandbox_id}-egress")
    assert 150 * 60 - 60 <= egress["spec"]["activeDeadlineSeconds"] <= 150 * 60
    sandbox_pod = kube.kubectl_json("get", "pod", f"osf-sandbox-{sandbox_id}")
    assert 150 * 60 - 60 <= sandbox_pod["spec"]["activeDeadlineSeconds"] <= 150 * 60
    adapter(kube, "destroy", sandbox_id, check=0)


@pytest.mark.parametrize("cascade", ["background", "foreground"])
def test_deleting_the_claim_removes_everything_through_the_garbage_collector(cluster, tmp_path, cascade):
    kube = cluster
    sandbox_id, _ = create(kube, tmp_path, {"template": "alpine:3"})
    kube.kubectl("delete", CLAIMS, f"osf-sandbox-{sandbox_id}", f"--cascade={cascade}", check=True)
    kube.wait_for(lambda: gone(kube, sandbox_id), what="the claim's parts to be collected")
    assert sandbox_id not in adapter(kube, "list", check=0).stdout.split()


def test_the_claim_expires_and_takes_everything_with_it(cluster, tmp_path):
    kube = cluster
    sandbox_id, _ = create(kube, tmp_path, {"template": "alpine:3"})
    # Time passing, compressed: the expiry moved to two seconds from now.
    soon = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + 2))
    kube.kubectl("patch", CLAIMS, f"osf-sandbox-{sandbox_id}", "--type", "merge",
                 "-p", json.dumps({"spec": {"lifecycle": {"shutdownTime": soon}}}), check=True)
    kube.wait_for(lambda: gone(kube, sandbox_id), timeout=30, what="the expired sandbox to go")
    assert adapter(kube, "exec", sandbox_id, "--", "true", check=1).stderr == \
        f"sandbox-kubernetes: no sandbox {sandbox_id}\n"


def test_expired_during_create_fails_and_leaves_nothing(cluster, tmp_path):
    kube = cluster
    result = adapter(kube, "create", write_spec(tmp_path, {"template": "alpine:3", "lifetime": "1s"}), check=1)
    assert "disappeared (its lifetime ended, or it was deleted)" in result.stderr, result.stderr
    sandbox_id = re.search(r"creating sandbox ([0-9a-f]{12})", result.stderr).group(1)
    kube.wait_for(lambda: gone(kube, sandbox_id), what="nothing left")


KILLING_KUBECTL = """#!/bin/bash
# kubectl that, after its Nth write to the cluster has been made, SIGKILLs its caller (create)
"$REAL_KUBECTL" "$@"
rc=$?
case "$1" in
  create|patch|delete|apply)
    if [[ " $* " != *" --dry-run"* && " $* " != *" --local "* ]]; then
      n=$(( $(cat "$WRITES_FILE" 2>/dev/null || echo 0) + 1 ))
      echo "$n" > "$WRITES_FILE"
      [ "$n" = "$KILL_AFTER_WRITE" ] && kill -KILL "$PPID"
    fi;;
esac
exit $rc
"""


def owned_through_a_claim(kube, sandbox_id):
    """The objects left with the sandbox's label, each checked to be the claim or to have an owner
    chain that ends at it: what Kubernetes removes when the claim goes."""
    left = labelled(kube, sandbox_id)
    everything = json.loads(kube.kubectl("get", ALL_KINDS, "-o", "json", check=True).stdout)["items"]
    by_uid = {o["metadata"]["uid"]: o for o in everything}  # the Sandbox has no sandbox label
    for obj in left:
        chain, current = [obj["kind"]], obj
        while current["kind"] != "SandboxClaim":
            refs = current["metadata"].get("ownerReferences") or []
            assert refs and refs[0]["uid"] in by_uid, \
                f"{obj['kind']} {obj['metadata']['name']} has no owner that exists (chain {chain})"
            current = by_uid[refs[0]["uid"]]
            chain.append(current["kind"])
    return left


def test_create_killed_after_any_write_leaves_only_what_the_claims_expiry_removes(cluster, tmp_path):
    """SIGKILL create right after each object it makes (claim, Secret, egress side, sandbox side): at
    every such instant everything that exists belongs to the claim, which carries the sandbox's
    lifecycle, and its expiry with the garbage collector leaves nothing, the Secret included."""
    import shutil
    kube = cluster
    wrapper_dir = tmp_path / "bin"
    wrapper_dir.mkdir()
    (wrapper_dir / "kubectl").write_text(KILLING_KUBECTL)
    (wrapper_dir / "kubectl").chmod(0o755)
    spec = write_spec(tmp_path, {"template": "alpine:3", "lifetime": "1h", "secrets": {"T": "ref:env/T"}})
    writes_seen = []
    for kill_after in range(1, 5):
        writes_file = tmp_path / f"writes-{kill_after}"
        env = {"PATH": f"{wrapper_dir}:{os.environ['PATH']}", "REAL_KUBECTL": shutil.which("kubectl"),
               "WRITES_FILE": str(writes_file), "KILL_AFTER_WRITE": str(kill_after), "OSF_SECRET_T": "v"}
        result = adapter(kube, "create", spec, env=env)
        assert result.returncode == -signal.SIGKILL, (kill_after, result.returncode, result.stderr)
        writes_seen.append(int(writes_file.read_text()))
        sandbox_id = re.search(r"creating sandbox ([0-9a-f]{12})", result.stderr).group(1)
        left = owned_through_a_claim(kube, sandbox_id)
        kinds = sorted(o["kind"] for o in left)
        assert "SandboxClaim" in kinds and (kill_after < 2 or "Secret" in kinds), (kill_after, kinds)
        # The claim's lifetime ends (compressed to a second from now): the collector takes the rest.
        soon = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + 1))
        kube.kubectl("patch", CLAIMS, f"osf-sandbox-{sandbox_id}", "--type", "merge",
                     "-p", json.dumps({"spec": {"lifecycle": {"shutdownTime": soon}}}), check=True)
        kube.wait_for(lambda: gone(kube, sandbox_id), what=f"nothing left after a kill after write {kill_after}")
    assert writes_seen == [1, 2, 3, 4]


def test_the_kubelet_ends_the_pods_at_the_expiry_when_the_controller_is_down(cluster, tmp_path):
    kube = cluster
    sandbox_id, _ = create(kube, tmp_path, {"template": "alpine:3", "lifetime": "15s"},
                           env={"OSF_SANDBOX_EXTEND_WINDOW": "0"})
    kube.configure(sandboxController=False)
    try:
        for name in (f"osf-sandbox-{sandbox_id}", f"osf-sandbox-{sandbox_id}-egress"):
            pod = kube.wait_for(lambda: (lambda p: p if p["status"].get("phase") == "Failed" else None)(
                kube.kubectl_json("get", "pod", name)), timeout=40, what=f"{name} to reach its deadline")
            assert pod["status"]["reason"] == "DeadlineExceeded"
        assert claim_of(kube, sandbox_id)  # the controller, down, has not removed the claim
        result = adapter(kube, "exec", sandbox_id, "--", "true")
        assert result.returncode != 0
    finally:
        kube.configure(sandboxController=True)
    kube.wait_for(lambda: gone(kube, sandbox_id), what="the expired sandbox to go once the controller is back")


def test_lifetime_beyond_the_maximum_and_bad_variables_exit_2(cluster, tmp_path):
    kube = cluster
    result = adapter(kube, "create", write_spec(tmp_path, {"template": "alpine:3", "lifetime": "2d"}),
                     env={"OSF_SANDBOX_MAX_LIFETIME": "1d"}, check=2)
    assert "$.lifetime: lifetime 2d is longer than the maximum 1d (OSF_SANDBOX_MAX_LIFETIME)" in result.stderr
    result = adapter(kube, "create", write_spec(tmp_path, {"template": "alpine:3", "lifetime": "soon"}), check=2)
    assert "$.lifetime: \"soon\" is not a duration" in result.stderr
    result = adapter(kube, "list", env={"OSF_SANDBOX_MAX_LIFETIME": "forever"}, check=2)
    assert result.stderr.startswith("sandbox-kubernetes: OSF_SANDBOX_MAX_LIFETIME 'forever' ")


def test_extend_moves_the_expiry_within_the_maximum(cluster, tmp_path):
    kube = cluster
    env = {"OSF_SANDBOX_MAX_LIFETIME": "3h", "OSF_SANDBOX_EXTEND_WINDOW": "3h"}
    sandbox_id, _ = create(kube, tmp_path, {"template": "alpine:3", "lifetime": "1h"}, env=env)
    before = claim_of(kube, sandbox_id)["spec"]["lifecycle"]["shutdownTime"]
    result = adapter(kube, "extend", sandbox_id, "90m", env=env, check=0)
    after = claim_of(kube, sandbox_id)
    assert result.stdout.strip() == after["spec"]["lifecycle"]["shutdownTime"]
    assert after["metadata"]["annotations"]["osf.sandbox.expires-at"] == result.stdout.strip()
    moved = (time.mktime(time.strptime(result.stdout.strip(), "%Y-%m-%dT%H:%M:%SZ")) -
             time.mktime(time.strptime(before, "%Y-%m-%dT%H:%M:%SZ")))
    assert moved == 90 * 60
    result = adapter(kube, "extend", sandbox_id, "1h", env=env, check=2)
    assert "a sandbox lives at most 3h (OSF_SANDBOX_MAX_LIFETIME)" in result.stderr
    assert claim_of(kube, sandbox_id)["spec"]["lifecycle"]["shutdownTime"] == after["spec"]["lifecycle"]["shutdownTime"]
    adapter(kube, "extend", sandbox_id, "ten minutes", check=2)
    adapter(kube, "destroy", sandbox_id, check=0)
    assert adapter(kube, "extend", sandbox_id, "1h", check=1).stderr == f"sandbox-kubernetes: no sandbox {sandbox_id}\n"


def test_extend_stops_at_the_pods_deadline_which_only_a_wider_window_moves(cluster, tmp_path):
    kube = cluster
    sandbox_id, _ = create(kube, tmp_path, {"template": "alpine:3", "lifetime": "1h"},
                           env={"OSF_SANDBOX_EXTEND_WINDOW": "30m"})
    pods_end = claim_of(kube, sandbox_id)["metadata"]["annotations"]["osf.sandbox.pods-end-at"]
    assert adapter(kube, "extend", sandbox_id, "30m", check=0).stdout.strip() == pods_end
    result = adapter(kube, "extend", sandbox_id, "1s", check=2)
    assert f"the kubelet ends this sandbox's pods at {pods_end} (activeDeadlineSeconds" in result.stderr
    assert claim_of(kube, sandbox_id)["spec"]["lifecycle"]["shutdownTime"] == pods_end
    adapter(kube, "destroy", sandbox_id, check=0)


# -- list ----------------------------------------------------------------------------------------

def test_list_prints_ids_for_scripts_a_wide_table_and_json(cluster, tmp_path):
    kube = cluster
    first, _ = create(kube, tmp_path, {"template": "alpine:3", "lifetime": "2h"})
    second, _ = create(kube, tmp_path, {"template": "node:24-alpine"})
    try:
        ids = adapter(kube, "list", check=0).stdout.split("\n")
        assert ids[-1] == ""
        assert {first, second} <= set(ids[:-1]) and all(ID_RE.match(i) for i in ids[:-1])
        # What scripts do with it.
        script = f'for id in $("{ADAPTER}" list); do "{ADAPTER}" exec "$id" -- echo "hello $id"; done'
        run = subprocess.run(["sh", "-c", script], capture_output=True, text=True, env=kube.env(), timeout=120)
        assert run.returncode == 0, run.stderr
        assert f"hello {first}\n" in run.stdout and f"hello {second}\n" in run.stdout
        wide = adapter(kube, "list", "-o", "wide", check=0).stdout.splitlines()
        assert wide[0].split() == ["ID", "STATUS", "AGE", "EXPIRES", "IMAGE"]
        rows = {line.split()[0]: line.split() for line in wide[1:]}
        assert rows[first][1] == "Ready" and rows[first][-1] == "alpine:3"
        assert rows[first][3:5] in (["in", "2h"], ["in", "119m"], ["in", "118m"])
        # as kubectl prints ages: 8h, or 7h59m a moment later
        assert rows[second][3] == "in" and re.fullmatch(r"8h|7h5\dm", rows[second][4]), rows[second]
        listed = {row["id"]: row for row in json.loads(adapter(kube, "list", "-o", "json", check=0).stdout)}
        assert listed[first]["expires"] == claim_of(kube, first)["spec"]["lifecycle"]["shutdownTime"]
        assert listed[second]["image"] == "node:24-alpine"
    finally:
        adapter(kube, "destroy", first)
        adapter(kube, "destroy", second)


def test_list_in_a_namespace_that_does_not_exist_exits_1(cluster):
    kube = cluster
    result = adapter(kube, "list", env={"OSF_SANDBOX_NAMESPACE": "no-such-namespace"}, check=1)
    assert result.stdout == ""
    assert "no-such-namespace" in result.stderr


# -- gc ------------------------------------------------------------------------------------------

def test_gc_removes_failed_and_leftover_sandboxes_and_says_why(cluster, tmp_path):
    kube = cluster
    failed, _ = create(kube, tmp_path, {"template": "alpine:3"})
    healthy, _ = create(kube, tmp_path, {"template": "alpine:3"})
    kube.set_pod_state(f"osf-sandbox-{failed}-egress", "terminated", exitCode=2)
    kube.wait_for(lambda: kube.kubectl_json("get", "pod", f"osf-sandbox-{failed}-egress")["status"]["phase"]
                  == "Failed", what="the egress pod to fail")
    # Parts without a claim (a create killed before it made the claim), labelled as create labels.
    leftover = "00000000abcd"
    kube.kubectl("create", "configmap", f"osf-sandbox-{leftover}-spec", check=True)
    kube.kubectl("label", "configmap", f"osf-sandbox-{leftover}-spec", f"osf.sandbox.id={leftover}",
                 "app.kubernetes.io/managed-by=sandbox-kubernetes", check=True)
    try:
        dry = adapter(kube, "gc", "--dry-run", check=0).stdout.splitlines()
        assert f"{failed} egress pod osf-sandbox-{failed}-egress Failed" in dry
        assert not any(line.startswith(leftover) for line in dry)  # within the grace period
        assert not any(line.startswith(healthy) for line in dry)
        assert labelled(kube, failed) != []
        time.sleep(2)
        lines = adapter(kube, "gc", env={"OSF_SANDBOX_GC_GRACE": "1s"}, check=0).stdout.splitlines()
        assert f"{failed} egress pod osf-sandbox-{failed}-egress Failed" in lines
        assert any(re.fullmatch(leftover + r" no SandboxClaim, parts left for \d+s", line) for line in lines), lines
        assert labelled(kube, failed) == [] and labelled(kube, leftover) == []
        assert labelled(kube, healthy) != []
        assert adapter(kube, "gc", check=0).stdout == ""
    finally:
        adapter(kube, "destroy", healthy)


def test_list_shows_a_sandbox_whose_pod_ended_as_agent_sandbox_reports_it(cluster, tmp_path):
    """agent-sandbox's reasons (PodFailed, PodSucceeded, with a Finished condition) as list's words."""
    kube = cluster
    failed, _ = create(kube, tmp_path, {"template": "alpine:3"})
    exited, _ = create(kube, tmp_path, {"template": "alpine:3"})
    try:
        kube.set_pod_state(f"osf-sandbox-{failed}", "terminated", exitCode=3)
        kube.set_pod_state(f"osf-sandbox-{exited}", "terminated", exitCode=0)

        def conditions(sandbox_id):
            return {c["type"]: c for c in kube.kubectl_json("get", "sandboxes.agents.x-k8s.io",
                                                            f"osf-sandbox-{sandbox_id}")["status"]["conditions"]}
        kube.wait_for(lambda: "Finished" in conditions(failed) and "Finished" in conditions(exited),
                      what="the Finished conditions")
        assert (conditions(failed)["Finished"]["reason"], conditions(exited)["Finished"]["reason"]) == \
            ("PodFailed", "PodSucceeded")
        def statuses():
            rows = json.loads(adapter(kube, "list", "-o", "json", check=0).stdout)
            return {r["id"]: r["status"] for r in rows if r["id"] in (failed, exited)}
        kube.wait_for(lambda: statuses() == {failed: "Failed", exited: "Exited"},
                      what="list to show Failed and Exited")
    finally:
        adapter(kube, "destroy", failed)
        adapter(kube, "destroy", exited)


def test_destroy_returns_when_nothing_of_the_sandbox_is_left_with_an_asynchronous_collector(cluster, tmp_path):
    """On a real cluster the garbage collector is asynchronous: while a deleted claim's Sandbox
    lingers, its controller recreates a deleted pod. destroy must still return with nothing of
    the sandbox left, and list must not show it."""
    kube = cluster
    sandbox_id, _ = create(kube, tmp_path, {"template": "alpine:3"})
    kube.configure(gcDelaySeconds=3)
    try:
        adapter(kube, "destroy", sandbox_id, check=0)
        assert labelled(kube, sandbox_id) == []
        assert kube.kubectl("get", "sandboxes.agents.x-k8s.io", f"osf-sandbox-{sandbox_id}").returncode != 0
        assert sandbox_id not in adapter(kube, "list", check=0).stdout
        time.sleep(1)  # and nothing comes back
        assert labelled(kube, sandbox_id) == []
    finally:
        kube.configure(gcDelaySeconds=0)


def test_gc_and_destroy_racing_both_end_cleanly(cluster, tmp_path):
    kube = cluster
    sandbox_id, _ = create(kube, tmp_path, {"template": "alpine:3"})
    kube.set_pod_state(f"osf-sandbox-{sandbox_id}", "terminated", exitCode=0)
    kube.wait_for(lambda: kube.kubectl_json("get", "pod", f"osf-sandbox-{sandbox_id}")["status"]["phase"]
                  == "Succeeded", what="the sandbox pod to end")
    env = kube.env()
    gc = subprocess.Popen([ADAPTER, "gc"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    destroy = subprocess.Popen([ADAPTER, "destroy", sandbox_id], env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    gc_out, gc_err = gc.communicate(timeout=120)
    destroy_out, destroy_err = destroy.communicate(timeout=120)
    assert gc.returncode == 0, gc_err
    # destroy either removed it or found it already gone
    assert destroy.returncode == 0 or destroy_err == f"sandbox-kubernetes: no sandbox {sandbox_id}\n", destroy_err
    assert gc_out in ("", f"{sandbox_id} sandbox pod osf-sandbox-{sandbox_id} Succeeded\n")
    kube.wait_for(lambda: gone(kube, sandbox_id), what="nothing left")


# -- no read of a Secret -------------------------------------------------------------------------

SECRET_READS = [{"verb": verb, "resource": "secrets", "namespace": "*", "name": "*"}
                for verb in ("get", "list", "watch")]
SECRET_READ_LINE = re.compile(r"kube-api INFO kube-api\.api: GET /api/v1/namespaces/[^/ ]+/secrets[/ ]")


def test_no_command_reads_a_secret_and_none_is_left(cluster, tmp_path):
    """With every get, list and watch of a Secret refused (403, as RBAC without a read verb on
    secrets refuses them), create with secrets, destroy, and gc of a failed sandbox and of what a
    killed create left all work; the server saw no read of a Secret, and no Secret is left."""
    kube = cluster
    log_path = os.path.join(kube.state_dir, "server.log")
    seen = []  # the server's request lines while the adapter ran
    offset = [0]

    def record(keep=True):
        with open(log_path, errors="replace") as f:
            f.seek(offset[0])
            lines = f.read().splitlines()
            offset[0] = f.tell()
        if keep:
            seen.extend(lines)

    kube.configure(forbid=SECRET_READS)
    assert "Forbidden" in kube.kubectl("get", "secrets").stderr, "the server does not refuse reads of Secrets"
    record(keep=False)
    spec = {"template": "alpine:3", "secrets": {"T": "ref:env/T"}}
    env = {"OSF_SECRET_T": "t0ken-value"}
    destroyed, _ = create(kube, tmp_path, spec, env=env)
    failed, _ = create(kube, tmp_path, spec, env=env)
    adapter(kube, "destroy", destroyed, check=0)
    kube.set_pod_state(f"osf-sandbox-{failed}-egress", "terminated", exitCode=2)
    kube.wait_for(lambda: kube.kubectl_json("get", "pod", f"osf-sandbox-{failed}-egress")["status"]["phase"]
                  == "Failed", what="the egress pod to fail")
    # A create killed once its Secret exists: its egress pod never gets ready, then SIGKILL.
    kube.configure(podRules=[{"image": "*egress-proxy*", "behavior": "ContainerCreating"}])
    full_env = kube.env()
    full_env.update(env)

    def egress_pods():
        out = kube.kubectl("get", "pods", "-l", "osf.sandbox.role=egress", "-o", "json", check=True).stdout
        return [p["metadata"]["labels"]["osf.sandbox.id"] for p in json.loads(out)["items"]
                if p["status"].get("phase") == "Pending"]

    earlier = set(egress_pods())  # other tests' pending pods are not the killed create's
    killed = subprocess.Popen([ADAPTER, "create", write_spec(tmp_path, spec, "killed.json")], env=full_env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        left = kube.wait_for(lambda: [i for i in egress_pods() if i not in earlier], timeout=60,
                             what="the killed create's egress pod")[0]
    finally:
        os.killpg(killed.pid, signal.SIGKILL)
        killed.communicate(timeout=30)
    record()
    kube.configure(podRules=[], forbid=[])
    assert kube.kubectl("get", "secret", f"osf-sandbox-{left}-secrets").returncode == 0, "the kill came too early"
    kube.configure(forbid=SECRET_READS)
    record(keep=False)  # this test's own read
    time.sleep(2)
    lines = adapter(kube, "gc", env={"OSF_SANDBOX_GC_GRACE": "1s"}, check=0).stdout.splitlines()
    assert f"{failed} egress pod osf-sandbox-{failed}-egress Failed" in lines
    assert any(line.startswith(left + " create did not finish: no SandboxWarmPool") for line in lines), lines
    record()
    assert [line for line in seen if SECRET_READ_LINE.match(line)] == []
    deletes = [line for line in seen if re.search(r"DELETE /api/v1/namespaces/[^/ ]+/secrets/", line)]
    assert len(deletes) >= 3, "destroy and gc did not delete the Secrets by name"

    kube.configure(forbid=[])
    for sandbox_id in (destroyed, failed, left):
        assert labelled(kube, sandbox_id) == [], sandbox_id
        assert kube.kubectl("get", "secret", f"osf-sandbox-{sandbox_id}-secrets").returncode != 0


# -- exec bounded in time ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def sandbox(kube, tmp_path_factory):
    sandbox_id, _ = create(kube, tmp_path_factory.mktemp("spec"), {"template": "alpine:3"})
    yield sandbox_id
    adapter(kube, "destroy", sandbox_id)


def processes(kube, sandbox_id):
    """The command lines of every process in the sandbox's pod."""
    script = 'for p in /proc/[0-9]*; do tr "\\0" " " < "$p/cmdline" 2>/dev/null; echo; done'
    return adapter(kube, "exec", sandbox_id, "--", "sh", "-c", script, check=0).stdout


def test_exec_timeout_kills_a_command_that_ignores_term(cluster, sandbox):
    kube = cluster
    marker = "sleep 7301"
    started = time.monotonic()
    result = adapter(kube, "exec", "--timeout", "3s", sandbox, "--", "sh", "-c",
                     f"trap '' TERM; echo started; {marker}; echo never", check=137)
    elapsed = time.monotonic() - started
    assert result.stdout == "started\n"
    assert result.stderr == "sandbox-kubernetes: exec: timed out after 3s; the command was stopped\n"
    assert elapsed >= 3
    assert marker not in processes(kube, sandbox)
    # A command within its time is untouched; the variable's default applies without --timeout.
    assert adapter(kube, "exec", "--timeout", "1m", sandbox, "--", "echo", "ok", check=0).stdout == "ok\n"
    result = adapter(kube, "exec", sandbox, "--", "sleep", "7302", env={"OSF_SANDBOX_EXEC_TIMEOUT": "2s"}, check=137)
    assert "sleep 7302" not in processes(kube, sandbox)
    adapter(kube, "exec", "--timeout", "2", sandbox, "--", "true", check=2)


def test_ctrl_c_on_exec_stops_the_command_in_the_sandbox(cluster, sandbox):
    kube = cluster
    marker = "sleep 7303"
    # A terminal's Ctrl-C: SIGINT to the whole foreground process group (adapter and kubectl).
    proc = subprocess.Popen([ADAPTER, "exec", sandbox, "--", "sh", "-c", f"echo started; {marker} & wait"],
                            env=kube.env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        assert proc.stdout.readline() == "started\n"
        assert marker in processes(kube, sandbox)
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert err.endswith("sandbox-kubernetes: interrupted\n")
    kube.wait_for(lambda: marker not in processes(kube, sandbox), timeout=20, what="the command to stop")


def test_a_killed_kubectl_leaves_the_command_running_in_the_test_server_as_a_runtime_does(cluster, sandbox):
    """What the adapter's stop works against: a plain kubectl exec that is killed leaves its command
    running (the container runtime keeps it), so Ctrl-C alone would not end it."""
    kube = cluster
    marker = "sleep 7304"
    proc = subprocess.Popen(["kubectl", "exec", "-i", f"osf-sandbox-{sandbox}", "--", "sh", "-c",
                             f"echo started; exec {marker}"], env=kube.env(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, stdin=subprocess.PIPE, text=True)
    assert proc.stdout.readline() == "started\n"
    proc.kill()
    proc.wait(timeout=30)
    time.sleep(1)
    assert marker in processes(kube, sandbox)
    adapter(kube, "exec", sandbox, "--", "sh", "-c", "pkill -f 'sleep 7304' || kill $(pgrep -f 'sleep 7304')")
    kube.wait_for(lambda: marker not in processes(kube, sandbox), timeout=20, what="the command to stop")


# -- the test server's simulation of these controllers ------------------------------------------

def test_kube_api_collects_dependents_whose_owner_is_gone(cluster):
    kube = cluster
    kube.kubectl("create", "configmap", "gc-owner", check=True)
    owner = kube.kubectl_json("get", "configmap", "gc-owner")
    for name, uid in (("gc-dependent", owner["metadata"]["uid"]), ("gc-dangling", "no-such-uid")):
        kube.kubectl("create", "-f", "-", check=True, input=json.dumps({
            "apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": name, "ownerReferences": [
                {"apiVersion": "v1", "kind": "ConfigMap", "name": "gc-owner", "uid": uid}]}}))
    kube.wait_for(lambda: kube.kubectl("get", "configmap", "gc-dangling").returncode != 0,
                  what="the dangling dependent to be collected")
    assert kube.kubectl("get", "configmap", "gc-dependent").returncode == 0
    kube.kubectl("delete", "configmap", "gc-owner", "--cascade=orphan", check=True)
    orphan = kube.kubectl_json("get", "configmap", "gc-dependent")
    assert "ownerReferences" not in orphan["metadata"] or orphan["metadata"]["ownerReferences"] == []
    kube.kubectl("delete", "configmap", "gc-dependent", check=True)


def test_kube_api_active_deadline_fails_a_pod(cluster):
    kube = cluster
    kube.kubectl("create", "-f", "-", check=True, input=json.dumps({
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "deadline"},
        "spec": {"activeDeadlineSeconds": 1, "containers": [{"name": "c", "image": "alpine:3"}]}}))
    pod = kube.wait_for(lambda: (lambda p: p if p["status"].get("phase") == "Failed" else None)(
        kube.kubectl_json("get", "pod", "deadline")), what="DeadlineExceeded")
    assert pod["status"]["reason"] == "DeadlineExceeded"
    kube.kubectl("delete", "pod", "deadline", check=True)


def test_kube_api_sandbox_volume_claims_and_operating_mode(cluster):
    kube = cluster
    ext = "extensions.agents.x-k8s.io/v1beta1"
    objects = [
        {"apiVersion": ext, "kind": "SandboxTemplate", "metadata": {"name": "vct"},
         "spec": {"podTemplate": {"spec": {"containers": [{"name": "c", "image": "alpine:3",
                                                           "volumeMounts": [{"name": "workspace",
                                                                             "mountPath": "/workspace"}]}]}},
                  "volumeClaimTemplates": [{"metadata": {"name": "workspace"},
                                            "spec": {"accessModes": ["ReadWriteOnce"],
                                                     "resources": {"requests": {"storage": "1Gi"}}}}]}},
        {"apiVersion": ext, "kind": "SandboxWarmPool", "metadata": {"name": "vct"},
         "spec": {"replicas": 0, "sandboxTemplateRef": {"name": "vct"}}},
        {"apiVersion": ext, "kind": "SandboxClaim", "metadata": {"name": "vct"},
         "spec": {"warmPoolRef": {"name": "vct"}}},
    ]
    kube.kubectl("create", "-f", "-", check=True, input=json.dumps({"apiVersion": "v1", "kind": "List",
                                                                    "items": objects}))
    try:
        kube.wait_for(lambda: kube.kubectl("get", "pod", "vct").returncode == 0, what="the sandbox pod")
        pvc = kube.kubectl_json("get", "pvc", "workspace-vct")
        assert pvc["metadata"]["ownerReferences"][0]["kind"] == "Sandbox"
        volumes = kube.kubectl_json("get", "pod", "vct")["spec"]["volumes"]
        assert {"name": "workspace", "persistentVolumeClaim": {"claimName": "workspace-vct"}} in volumes
        kube.kubectl("patch", "sandboxes.agents.x-k8s.io", "vct", "--type", "merge",
                     "-p", '{"spec": {"operatingMode": "Suspended"}}', check=True)
        kube.wait_for(lambda: kube.kubectl("get", "pod", "vct").returncode != 0, what="the pod to go")
        assert kube.kubectl("get", "pvc", "workspace-vct").returncode == 0
        kube.kubectl("patch", "sandboxes.agents.x-k8s.io", "vct", "--type", "merge",
                     "-p", '{"spec": {"operatingMode": "Running"}}', check=True)
        kube.wait_for(lambda: kube.kubectl("get", "pod", "vct").returncode == 0, what="the pod back")
    finally:
        kube.kubectl("delete", CLAIMS, "vct", "--cascade=foreground")
        kube.kubectl("delete", "sandboxwarmpools.extensions.agents.x-k8s.io,sandboxtemplates.extensions.agents.x-k8s.io",
                     "vct")
    kube.wait_for(lambda: kube.kubectl("get", "pvc", "workspace-vct").returncode != 0,
                  what="the PVC to go with its Sandbox")


# -- suspend, resume, persistent workspaces ----------------------------------------------------

def test_suspend_and_resume_keep_files_and_trust_the_new_proxy(cluster, tmp_path):
    from test_adapter import CA_PEM, make_ca_pem
    kube = cluster
    sandbox_id, _ = create(kube, tmp_path, {"template": "alpine:3", "persistence": {"size": "2Gi"},
                                            "secrets": {"T": "ref:env/T"}}, env={"OSF_SECRET_T": "v"})
    pod = f"osf-sandbox-{sandbox_id}"
    try:
        pvc = kube.kubectl_json("get", "pvc", f"workspace-{pod}")
        assert pvc["spec"]["resources"]["requests"]["storage"] == "2Gi"
        assert pvc["metadata"]["labels"]["osf.sandbox.id"] == sandbox_id
        adapter(kube, "exec", sandbox_id, "--", "sh", "-c",
                'echo kept > /workspace/work.txt && echo home > "$HOME/.profile-osf" && echo "$HOME"',
                check=0)
        secret_before = kube.kubectl_json("get", "secret", f"{pod}-secrets")["metadata"]["uid"]
        assert adapter(kube, "exec", sandbox_id, "--", "cat", "/etc/osf/egress-ca.crt", check=0).stdout == CA_PEM

        result = adapter(kube, "suspend", sandbox_id, check=0)
        assert result.stderr == f"suspended sandbox {sandbox_id}\n"
        assert kube.kubectl("get", "pod", pod).returncode != 0
        assert kube.kubectl("get", "pod", f"{pod}-egress").returncode != 0
        assert kube.kubectl("get", "pvc", f"workspace-{pod}").returncode == 0
        rows = {line.split()[0]: line.split() for line in
                adapter(kube, "list", "-o", "wide", check=0).stdout.splitlines()[1:]}
        assert rows[sandbox_id][1] == "Suspended"
        assert adapter(kube, "suspend", sandbox_id, check=0).stderr == f"sandbox {sandbox_id} is already suspended\n"
        suspended = f"sandbox-kubernetes: sandbox {sandbox_id} is suspended (resume starts it again)\n"
        assert adapter(kube, "exec", sandbox_id, "--", "true", check=1).stderr == suspended
        assert adapter(kube, "copy", f"{sandbox_id}:/workspace/work.txt", str(tmp_path / "w"),
                       check=1).stderr == suspended

        # The proxy that serves the resumed sandbox has a new CA (made in its memory).
        new_ca = make_ca_pem()
        log_key = EXEC_HANDLERS[0]["stdout"][len(CA_PEM):]  # the egress log's public key, kept
        kube.set_exec(handlers=[{"image": "*egress-proxy*",
                                 "command": ["/usr/local/bin/egress-proxy", "ca", "--with-log-key"],
                                 "stdout": new_ca + log_key}] + EXEC_HANDLERS[1:])
        result = adapter(kube, "resume", sandbox_id, check=0)
        assert result.stderr.endswith(f"resumed sandbox {sandbox_id}\n")
        assert adapter(kube, "exec", sandbox_id, "--", "cat", "/workspace/work.txt", check=0).stdout == "kept\n"
        assert adapter(kube, "exec", sandbox_id, "--", "sh", "-c", 'cat "$HOME/.profile-osf"', check=0).stdout == "home\n"
        assert adapter(kube, "exec", sandbox_id, "--", "cat", "/etc/osf/egress-ca.crt", check=0).stdout == new_ca
        assert kube.kubectl_json("get", "configmap", f"{pod}-ca")["data"]["egress-ca.crt"] == new_ca
        # Its secrets keep working: the same Secret, read by the new egress pod.
        assert kube.kubectl_json("get", "secret", f"{pod}-secrets")["metadata"]["uid"] == secret_before
        egress = kube.kubectl_json("get", "pod", f"{pod}-egress")
        refs = [e["valueFrom"]["secretKeyRef"]["name"] for e in egress["spec"]["containers"][0]["env"]
                if "valueFrom" in e]
        assert refs == [f"{pod}-secrets"]
        assert egress["metadata"]["ownerReferences"][0]["kind"] == "SandboxClaim"
        assert kube.kubectl("get", "configmap", f"{pod}-egress-pod").returncode != 0
        rows = {line.split()[0]: line.split() for line in
                adapter(kube, "list", "-o", "wide", check=0).stdout.splitlines()[1:]}
        assert rows[sandbox_id][1] == "Ready"
        assert adapter(kube, "resume", sandbox_id, check=0).stderr == f"sandbox {sandbox_id} is not suspended\n"
    finally:
        kube.set_exec(handlers=EXEC_HANDLERS)
        adapter(kube, "destroy", sandbox_id)
    # destroy takes the workspace claim too
    kube.wait_for(lambda: kube.kubectl("get", "pvc", f"workspace-{pod}").returncode != 0, what="the PVC to go")
    result = adapter(kube, "resume", sandbox_id, check=1)
    assert result.stderr == f"sandbox-kubernetes: no sandbox {sandbox_id}\n"


def test_suspend_without_persistence_is_refused(cluster, sandbox):
    kube = cluster
    result = adapter(kube, "suspend", sandbox, check=1)
    assert "its spec has no persistence" in result.stderr
    assert kube.kubectl("get", "pod", f"osf-sandbox-{sandbox}").returncode == 0


# -- shared package caches -----------------------------------------------------------------------

def test_package_cache_is_shared_through_the_named_claim_and_private_without(cluster, tmp_path, sandbox):
    kube = cluster
    kube.kubectl("create", "-f", "-", check=True, input=json.dumps({
        "apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "package-cache"},
        "spec": {"accessModes": ["ReadWriteMany"], "resources": {"requests": {"storage": "5Gi"}}}}))
    spec = {"template": "alpine:3", "cache": {"claimName": "package-cache"}}
    first, _ = create(kube, tmp_path, spec)
    second, _ = create(kube, tmp_path, spec)
    try:
        adapter(kube, "exec", first, "--", "sh", "-c", 'mkdir -p "$npm_config_cache" && echo warm > "$npm_config_cache/pkg"',
                check=0)
        assert adapter(kube, "exec", second, "--", "cat", "/cache/npm/pkg", check=0).stdout == "warm\n"
        env = adapter(kube, "exec", second, "--", "sh", "-c",
                      'echo "$XDG_CACHE_HOME $PIP_CACHE_DIR $GOMODCACHE $GOCACHE $COMPOSER_CACHE_DIR"', check=0).stdout
        assert env == "/cache /cache/pip /cache/go/mod /cache/go/build /cache/composer\n"
        # A sandbox without `cache` has its own, empty /cache.
        assert adapter(kube, "exec", sandbox, "--", "sh", "-c", 'ls -A /cache; echo "$npm_config_cache"',
                       check=0).stdout == "/cache/npm\n"
    finally:
        adapter(kube, "destroy", first)
        adapter(kube, "destroy", second)
    # The claim is the operator's: destroy leaves it.
    assert kube.kubectl("get", "pvc", "package-cache").returncode == 0
    kube.kubectl("delete", "pvc", "package-cache", check=True)
