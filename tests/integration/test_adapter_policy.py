"""sandbox-kubernetes allow and revoke against the test Kubernetes API server, with the real
egress proxy running in the egress pod (the test server binds the built egress-proxy, behind a
wrapper that starts it as the pod's container would, at /usr/local/bin, where the adapter's
kubectl exec finds it) and curl in the sandbox pod: a host outside the spec is refused, allowed
(the CA ConfigMap gets the proxy's new CA bundle, which curl in the sandbox pod trusts),
revoked; a TLS tunnel open across a revoke of its host is ended; an MCP tool is
allowed (tools/list through the proxy lists it); bad entries exit 2 naming the entry and change nothing; a
refusing or absent proxy changes nothing; a suspended sandbox gets a stored change, in force in
the new proxy resume starts (with its new CA); the egress log verifies with the policy lines;
the admin port stays out of the sandbox's reach; list -o json shows the policy in force;
egress-log --refused --follow prints each new refusal once, as it happens."""

import http.client
import json
import os
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from osftest import TestCA as UpstreamCA  # noqa: E402  (aliased: pytest would collect a Test* class)
from osftest import Followed, Upstream, proxy_bin  # noqa: E402
from osftest.waiting import scaled, wait_until  # noqa: E402
from test_adapter import ADAPTER, adapter, create, pytestmark  # noqa: E402,F401
from kube_api_fixture import KubeApiServer  # noqa: E402
from test_local_sandbox import answer_tools_list  # noqa: E402  (the same MCP server side)

__all__ = ["pytestmark"]

PROXY = "/usr/local/bin/egress-proxy"
STATE = "/var/lib/egress-proxy"
ALIASES = "allowed.test=127.0.0.1,tools.test=127.0.0.1,refused.test=127.0.0.1"

if shutil.which("bwrap") is None:
    pytestmark = pytestmark + [pytest.mark.skip(reason="the test API server runs pod commands in bubblewrap")]


# The egress pod's container, as the test API server does not run containers' own commands:
# the first command run in the pod starts the proxy as the pod would (its spec from the spec
# ConfigMap, its state in the pod's emptyDir), listening on loopback here, then runs.
WRAPPER = """#!/bin/sh
state=/var/lib/egress-proxy
if mkdir "$state/.started" 2>/dev/null; then
  OSF_SANDBOX_HOST_ALIASES={aliases} {real} --spec /etc/osf/spec/spec.json \\
    --listen 127.0.0.1:0 --admin-listen 127.0.0.1:0 --state-dir "$state" \\
    --upstream-ca /usr/local/bin/upstream-ca.crt >"$state/proxy.out" 2>&1 &
fi
tries=0
while [ ! -s "$state/listen.json" ] && [ "$tries" -lt 300 ]; do sleep 0.1; tries=$((tries + 1)); done
[ -s "$state/listen.json" ] || cat "$state/proxy.out" >&2  # why the proxy did not start
exec {real} "$@"
"""


@pytest.fixture(scope="module")
def upstream():
    with tempfile.TemporaryDirectory(prefix="okp-ca-") as d:
        ca = UpstreamCA(d)
        with Upstream(ca, ["allowed.test", "tools.test", "refused.test"], route=answer_tools_list) as u:
            u.ca = ca
            yield u


@pytest.fixture(scope="module")
def proxy_bin_dirs(tmp_path_factory, upstream):
    """The test API server's binDirs: WRAPPER as /usr/local/bin/egress-proxy in egress pods,
    beside a copy of the built binary (a copy, not a link: pods have their own /tmp and /root,
    where a checkout may be, as in the fresh Debian root's /root/osf-sandbox) and the upstreams'
    CA."""
    d = tmp_path_factory.mktemp("proxy-bin")
    shutil.copy2(os.path.realpath(proxy_bin()), d / "egress-proxy-real")
    shutil.copy(upstream.ca.cert_path, d / "upstream-ca.crt")
    d.chmod(0o755)  # an image's /usr/local/bin: the proxy runs as its own user
    wrapper = d / "egress-proxy"
    wrapper.write_text(WRAPPER.format(aliases=ALIASES, real="/usr/local/bin/egress-proxy-real"))
    wrapper.chmod(0o755)
    return [{"image": "*egress-proxy*", "dir": str(d), "at": "/usr/local/bin"}]


@pytest.fixture(scope="module")
def kube(tmp_path_factory, proxy_bin_dirs):
    with KubeApiServer(tmp_path_factory.mktemp("kube-api")) as server:
        server.set_exec(handlers=[], bin_dirs=proxy_bin_dirs)
        yield server


@pytest.fixture
def cluster(kube, proxy_bin_dirs):
    yield kube
    kube.configure(podRules=[], podDelaySeconds=0.2, sandboxController=True, forbid=[], gcDelaySeconds=0,
                   configMapRefreshSeconds=0)
    kube.set_exec(handlers=[], bin_dirs=proxy_bin_dirs)


def spec_for(upstream, **extra):
    return {"template": "alpine:3", "egress": ["allowed.test"],
            "mcp": [{"name": "tools", "url": f"https://tools.test:{upstream.port}/mcp", "tools": ["search"]}],
            **extra}


def listening(kube, sandbox_id):
    """The listen.json of the proxy in the sandbox's egress pod (started by create's
    `egress-proxy ca`, or resume's)."""
    state = kube.pod_filesystem(f"osf-sandbox-{sandbox_id}-egress")["volumes"]["state"]
    with open(os.path.join(state, "listen.json")) as f:
        return json.load(f)


def curl_status(kube, sandbox_id, proxy, url):
    """curl in the sandbox pod through the proxy (the pod's CA variables name the CA ConfigMap's
    file): the answer's status, or the proxy's answer to the CONNECT when there was none."""
    res = adapter(kube, "exec", sandbox_id, "--", "sh", "-c",
                  f"curl -s -o /dev/null -w '%{{http_code}} %{{http_connect}}' --max-time 20 "
                  f"--proxy http://{proxy} {url}")
    code, connect = res.stdout.strip().split(" ")
    return code if code != "000" else connect


def listed_tools(kube, sandbox_id, proxy, upstream):
    """tools/list from the sandbox pod through the proxy: the tool names the proxy let through."""
    body = '{"jsonrpc":"2.0","id":1,"method":"tools/list"}'
    res = adapter(kube, "exec", sandbox_id, "--", "curl", "-s", "--max-time", "20", "--proxy", f"http://{proxy}",
                  "-H", "Content-Type: application/json", "-H", "Accept: application/json, text/event-stream",
                  "--data", body, f"https://tools.test:{upstream.port}/mcp", check=0)
    return [tool["name"] for tool in json.loads(res.stdout)["result"]["tools"]]


def policy_lines(kube, sandbox_id):
    res = adapter(kube, "egress-log", sandbox_id, "--raw", check=0)
    return [json.loads(l) for l in res.stdout.splitlines() if '"kind":"policy"' in l]


def stored_spec(kube, sandbox_id):
    return json.loads(kube.kubectl_json("get", "configmap", f"osf-sandbox-{sandbox_id}-spec")["data"]["spec.json"])


def listed_policy(kube, sandbox_id):
    listed = json.loads(adapter(kube, "list", "-o", "json", check=0).stdout)
    return next(row["policy"] for row in listed if row["id"] == sandbox_id)


def test_allow_then_revoke_a_host_in_a_running_sandbox(cluster, upstream, tmp_path):
    kube = cluster
    sandbox_id, _ = create(kube, tmp_path, spec_for(upstream))
    try:
        proxy = listening(kube, sandbox_id)["proxy"]
        url = f"https://refused.test:{upstream.port}/live"
        assert curl_status(kube, sandbox_id, proxy, f"https://allowed.test:{upstream.port}/") == "200"
        assert curl_status(kube, sandbox_id, proxy, url) == "403"
        refused = adapter(kube, "egress-log", sandbox_id, "--refused", check=0)
        assert refused.stdout == f"refused.test:{upstream.port}\n"

        res = adapter(kube, "allow", sandbox_id, "refused.test", check=0)
        assert res.stdout == f"allowed in {sandbox_id}: refused.test (policy 1, in force now)\n"
        assert stored_spec(kube, sandbox_id)["egress"] == ["allowed.test", "refused.test"]
        assert listed_policy(kube, sandbox_id) == {"egress": ["allowed.test", "refused.test"],
                                                   "mcp": {"tools": ["search"]}}
        # The CA ConfigMap holds the proxy's bundle now (a CA made for refused.test in it),
        # which curl in the sandbox pod reads.
        ca = kube.kubectl_json("get", "configmap", f"osf-sandbox-{sandbox_id}-ca")["data"]["egress-ca.crt"]
        assert ca.count("-----BEGIN CERTIFICATE-----") == 2
        assert curl_status(kube, sandbox_id, proxy, url) == "200"
        assert curl_status(kube, sandbox_id, proxy, f"https://allowed.test:{upstream.port}/") == "200"
        again = adapter(kube, "allow", sandbox_id, "refused.test", check=0)
        assert again.stdout == f"already allowed in {sandbox_id}: refused.test\n"

        res = adapter(kube, "revoke", sandbox_id, "refused.test", check=0)
        assert res.stdout == f"revoked in {sandbox_id}: refused.test (policy 2, in force now)\n"
        assert curl_status(kube, sandbox_id, proxy, url) == "403"
        assert stored_spec(kube, sandbox_id)["egress"] == ["allowed.test"]
        assert listed_policy(kube, sandbox_id)["egress"] == ["allowed.test"]
        lines = policy_lines(kube, sandbox_id)
        assert [(l["change"], l["entries"], l["generation"]) for l in lines] == [
            ("allow", ["refused.test"], 1), ("revoke", ["refused.test"], 2)]
        assert all("@" in l["by"] for l in lines)
        # The log verifies against the key in the CA ConfigMap (the running proxy's, republished
        # with its CA bundle), with the policy lines in its chain.
        verify = adapter(kube, "egress-log", sandbox_id, "--verify", check=0)
        assert verify.stdout.startswith(f"egress log of {sandbox_id}: verified:"), verify.stdout
        summary = adapter(kube, "egress-log", sandbox_id, "--summary", check=0).stdout
        assert "allow by" in summary and "revoke by" in summary, summary
        assert summary.startswith("chain: verified"), summary
    finally:
        adapter(kube, "destroy", sandbox_id)


def test_allow_returns_once_the_sandbox_trusts_the_new_ca(cluster, upstream, tmp_path):
    """A kubelet shows a changed ConfigMap to a running pod only at its next sync (the test
    server: configMapRefreshSeconds). allow, which gives the proxy a CA for the new host, says
    "in force now" only once the sandbox's CA file holds it: HTTPS to the host works at once."""
    kube = cluster
    sandbox_id, _ = create(kube, tmp_path, spec_for(upstream))
    waiting = "waiting for the sandbox to see its egress proxy's new CA certificate"
    try:
        # The kubelet's next sync is held back until allow says it waits for it (a sync
        # timed in seconds may come before allow looks on a loaded machine).
        kube.configure(configMapRefreshSeconds=3600)
        proxy = listening(kube, sandbox_id)["proxy"]
        url = f"https://refused.test:{upstream.port}/at-once"
        err_path = tmp_path / "allow.stderr"
        with open(err_path, "w") as err:
            allow = subprocess.Popen([ADAPTER, "allow", sandbox_id, "refused.test"], stdout=subprocess.PIPE,
                                     stderr=err, text=True, env=kube.env())
        try:
            wait_until(lambda: waiting in err_path.read_text(), 120, "allow to say it waits for the sandbox")
            kube.configure(configMapRefreshSeconds=0)  # the kubelet syncs
            out, _ = allow.communicate(timeout=scaled(180))
        finally:
            if allow.poll() is None:
                allow.kill()
                allow.wait()
        assert allow.returncode == 0, err_path.read_text()
        assert out == f"allowed in {sandbox_id}: refused.test (policy 1, in force now)\n"
        ca = kube.kubectl_json("get", "configmap", f"osf-sandbox-{sandbox_id}-ca")["data"]["egress-ca.crt"]
        seen = adapter(kube, "exec", sandbox_id, "--", "cat", "/etc/osf/egress-ca.crt", check=0).stdout
        assert seen == ca
        assert curl_status(kube, sandbox_id, proxy, url) == "200"
        # A revoke needs no new CA: nothing to wait for.
        res = adapter(kube, "revoke", sandbox_id, "refused.test", check=0)
        assert res.stdout == f"revoked in {sandbox_id}: refused.test (policy 2, in force now)\n"
        assert "waiting" not in res.stderr
    finally:
        kube.configure(configMapRefreshSeconds=0)
        adapter(kube, "destroy", sandbox_id)


def test_refused_follow_prints_each_new_refusal_once_as_it_happens(cluster, upstream, tmp_path):
    kube = cluster
    sandbox_id, _ = create(kube, tmp_path, spec_for(upstream))
    followed = None
    try:
        proxy = listening(kube, sandbox_id)["proxy"]
        port = upstream.port
        assert curl_status(kube, sandbox_id, proxy, f"https://refused.test:{port}/before") == "403"
        followed = Followed([ADAPTER, "egress-log", sandbox_id, "--refused", "--follow"], kube.env())
        # What was refused before it started, then each new refusal once.
        assert followed.next_line() == f"refused.test:{port}\n"
        assert curl_status(kube, sandbox_id, proxy, f"https://other.test:{port}/new") == "403"
        assert followed.next_line() == f"other.test:{port}\n"
        assert curl_status(kube, sandbox_id, proxy, f"https://refused.test:{port}/again") == "403"
        assert curl_status(kube, sandbox_id, proxy, f"https://third.test:{port}/new") == "403"
        assert followed.next_line() == f"third.test:{port}\n"  # not refused.test again
        code, err, rest = followed.interrupt()
        followed = None
        # Ctrl-C stops kubectl and exits as egress-log --follow does.
        assert (code, err, rest) == (130, "sandbox-kubernetes: interrupted\n", [])
    finally:
        if followed is not None:
            followed.interrupt()
        adapter(kube, "destroy", sandbox_id)


def connect_status(sock, target):
    """Sends CONNECT `target` and reads the answer's head byte by byte (what follows is the
    tunnel's); returns its status code."""
    sock.sendall(f"CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n\r\n".encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(1)
        assert chunk, head
        head += chunk
    return head.split(b" ")[1]


def test_a_tunnel_open_across_a_revoke_of_its_host_is_ended(cluster, upstream, tmp_path):
    kube = cluster
    sandbox_id, _ = create(kube, tmp_path, spec_for(upstream))
    try:
        host, port = listening(kube, sandbox_id)["proxy"].rsplit(":", 1)
        ca = kube.kubectl_json("get", "configmap", f"osf-sandbox-{sandbox_id}-ca")["data"]["egress-ca.crt"]
        target = f"allowed.test:{upstream.port}"
        with socket.create_connection((host, int(port)), timeout=30) as sock:
            assert connect_status(sock, target) == b"200"
            with ssl.create_default_context(cadata=ca).wrap_socket(sock, server_hostname="allowed.test") as tls:
                def get(path):
                    tls.sendall(f"GET {path} HTTP/1.1\r\nHost: {target}\r\n\r\n".encode())
                    answer = http.client.HTTPResponse(tls)
                    answer.begin()
                    answer.read()
                    return answer.status

                assert get("/before") == 200
                adapter(kube, "revoke", sandbox_id, "allowed.test", check=0)
                # A revoke ends the open tunnels to the host it revokes (in force when it
                # returns): the same keep-alive connection carries nothing more.
                with pytest.raises((http.client.RemoteDisconnected, ConnectionError, ssl.SSLError)):
                    get("/after")
        # And a new tunnel there is refused.
        with socket.create_connection((host, int(port)), timeout=30) as sock:
            assert connect_status(sock, target) == b"403"
    finally:
        adapter(kube, "destroy", sandbox_id)


def test_an_mcp_tool_and_bad_entries(cluster, upstream, tmp_path):
    kube = cluster
    sandbox_id, _ = create(kube, tmp_path, spec_for(upstream))
    try:
        proxy = listening(kube, sandbox_id)["proxy"]
        assert listed_tools(kube, sandbox_id, proxy, upstream) == ["search"]
        res = adapter(kube, "allow", sandbox_id, "--mcp", "tools:delete_everything", check=0)
        assert res.stdout == f"allowed in {sandbox_id}: tools:delete_everything (policy 1, in force now)\n"
        assert stored_spec(kube, sandbox_id)["mcp"][0]["tools"] == ["search", "delete_everything"]
        # The server's tools/list, pruned to the declared tools: the allowed one is in it now.
        assert listed_tools(kube, sandbox_id, proxy, upstream) == ["search", "delete_everything"]
        before = kube.kubectl_json("get", "configmap", f"osf-sandbox-{sandbox_id}-spec")["data"]
        for args, words in [(["https://x.test/"], "https://x.test/"),
                            (["--mcp", "jira:create"], "declares no MCP server"),
                            (["--mcp", "nocolon"], "SERVER:TOOL")]:
            bad = adapter(kube, "allow", sandbox_id, *args, check=2)
            assert words in bad.stderr, bad.stderr
            assert len(bad.stderr.strip().splitlines()) == 1
        missing = adapter(kube, "revoke", sandbox_id, "never.test", check=2)
        assert "is not in the sandbox's egress" in missing.stderr
        adapter(kube, "allow", sandbox_id, check=2)
        assert adapter(kube, "allow", "000000000000", "x.test", check=1).stderr == \
            "sandbox-kubernetes: no sandbox 000000000000\n"
        assert kube.kubectl_json("get", "configmap", f"osf-sandbox-{sandbox_id}-spec")["data"] == before
        assert [l["tools"] for l in policy_lines(kube, sandbox_id)] == [["tools:delete_everything"]]
    finally:
        adapter(kube, "destroy", sandbox_id)


def test_a_proxy_that_cannot_be_reached_changes_nothing(cluster, upstream, tmp_path):
    kube = cluster
    sandbox_id, _ = create(kube, tmp_path, spec_for(upstream))
    try:
        before = kube.kubectl_json("get", "configmap", f"osf-sandbox-{sandbox_id}-spec")["data"]
        ca_before = kube.kubectl_json("get", "configmap", f"osf-sandbox-{sandbox_id}-ca")["data"]
        # The proxy's answer as a refusal (400), then no proxy at all (exit 1).
        kube.set_exec(handlers=[{"image": "*egress-proxy*", "command": [PROXY, "policy"], "exitCode": 2,
                                 "stderr": "egress-proxy: the proxy refused the new policy (400): no\n"}])
        res = adapter(kube, "allow", sandbox_id, "refused.test", check=1)
        assert res.stderr == (f"sandbox-kubernetes: sandbox {sandbox_id}: its egress proxy refused the change "
                              "(the proxy refused the new policy (400): no); nothing changed\n")
        kube.set_exec(handlers=[{"image": "*egress-proxy*", "command": [PROXY, "policy"], "exitCode": 1,
                                 "stderr": f"egress-proxy: no running proxy named in {STATE}/listen.json\n"}])
        res = adapter(kube, "allow", sandbox_id, "refused.test", check=1)
        assert "its egress proxy cannot be reached (no running proxy named in" in res.stderr
        assert kube.kubectl_json("get", "configmap", f"osf-sandbox-{sandbox_id}-spec")["data"] == before
        assert kube.kubectl_json("get", "configmap", f"osf-sandbox-{sandbox_id}-ca")["data"] == ca_before
    finally:
        adapter(kube, "destroy", sandbox_id)


def test_a_suspended_sandbox_resumes_with_the_changed_policy(cluster, upstream, tmp_path):
    kube = cluster
    sandbox_id, _ = create(kube, tmp_path, spec_for(upstream, persistence={"size": "1Gi"}))
    egress = f"osf-sandbox-{sandbox_id}-egress"
    try:
        ca_before = kube.kubectl_json("get", "configmap", f"osf-sandbox-{sandbox_id}-ca")["data"]["egress-ca.crt"]
        adapter(kube, "suspend", sandbox_id, check=0)
        assert kube.kubectl("get", "pod", egress).returncode != 0
        res = adapter(kube, "allow", sandbox_id, "refused.test", check=0)
        assert res.stdout == f"allowed in {sandbox_id}: refused.test (stored: in force when the sandbox resumes)\n"
        assert stored_spec(kube, sandbox_id)["egress"] == ["allowed.test", "refused.test"]
        # resume: a new egress pod, whose proxy starts from the spec ConfigMap with a new CA,
        # which resume puts into the CA ConfigMap before the sandbox pod starts.
        adapter(kube, "resume", sandbox_id, check=0)
        spec = kube.kubectl("exec", egress, "-c", "egress-proxy", "--", "cat", "/etc/osf/spec/spec.json",
                            check=True).stdout
        assert json.loads(spec)["egress"] == ["allowed.test", "refused.test"]
        ca_after = kube.kubectl_json("get", "configmap", f"osf-sandbox-{sandbox_id}-ca")["data"]["egress-ca.crt"]
        assert ca_after != ca_before and ca_after.count("-----BEGIN CERTIFICATE-----") == 1
        proxy = listening(kube, sandbox_id)["proxy"]
        assert curl_status(kube, sandbox_id, proxy, f"https://refused.test:{upstream.port}/resumed") == "200"
        assert curl_status(kube, sandbox_id, proxy, f"https://allowed.test:{upstream.port}/") == "200"
        assert curl_status(kube, sandbox_id, proxy, f"https://never.test:{upstream.port}/") == "403"
        # A change to the resumed sandbox is live; the new proxy's log numbers its policies anew.
        res = adapter(kube, "revoke", sandbox_id, "allowed.test", check=0)
        assert res.stdout == f"revoked in {sandbox_id}: allowed.test (policy 1, in force now)\n"
        assert curl_status(kube, sandbox_id, proxy, f"https://allowed.test:{upstream.port}/") == "403"
        assert curl_status(kube, sandbox_id, proxy, f"https://refused.test:{upstream.port}/after") == "200"
        assert [(l["change"], l["entries"]) for l in policy_lines(kube, sandbox_id)] == [("revoke", ["allowed.test"])]
        adapter(kube, "egress-log", sandbox_id, "--verify", check=0)
        # The new egress pod's state directory is new: its log is a chain of its own (the change
        # made while suspended is its spec, in no line).
        raw = adapter(kube, "egress-log", sandbox_id, "--raw", check=0).stdout
        assert [json.loads(l).get("kind") for l in raw.splitlines()].count("start") == 1
    finally:
        adapter(kube, "destroy", sandbox_id)


def test_the_admin_port_is_out_of_the_sandboxs_reach(cluster, upstream, tmp_path):
    kube = cluster
    sandbox_id, _ = create(kube, tmp_path, spec_for(upstream))
    pod = f"osf-sandbox-{sandbox_id}"
    try:
        listen = listening(kube, sandbox_id)
        # The cluster's side: only the proxy port is admitted into the egress pod, only from the
        # sandbox pod, and the Service's two ports (HTTP and SOCKS5) both lead to it.
        policy = kube.kubectl_json("get", "networkpolicy", f"{pod}-egress")
        assert policy["spec"]["policyTypes"] == ["Ingress"]
        [rule] = policy["spec"]["ingress"]
        assert rule["ports"] == [{"protocol": "TCP", "port": 8080}]
        assert rule["from"] == [{"podSelector": {"matchLabels": {"osf.sandbox.id": sandbox_id,
                                                                 "osf.sandbox.role": "sandbox"}}}]
        service = kube.kubectl_json("get", "service", f"{pod}-egress")
        assert [(p["port"], p["targetPort"]) for p in service["spec"]["ports"]] == [(8080, 8080), (1080, 8080)]
        # Through the proxy, its own admin port is refused.
        admin = listen["admin"]
        assert curl_status(kube, sandbox_id, listen["proxy"], f"-X POST http://{admin}/policy") == "403"
        # Pods of the test server share this machine's network, which a cluster's pods do not:
        # even reaching the admin port directly, a sandbox without the token changes nothing.
        direct = adapter(kube, "exec", sandbox_id, "--", "curl", "-s", "-o", "/dev/null", "-w", "%{http_code}",
                         "--noproxy", "*", "--max-time", "10", "-X", "POST", "--data", '{"spec": "{}"}',
                         f"http://{admin}/policy", check=0)
        assert direct.stdout == "401"
        # The token lives in the egress pod's emptyDir, which no other pod can mount; the sandbox
        # pod mounts only its own volumes and the CA ConfigMap.
        egress = kube.kubectl_json("get", "pod", f"{pod}-egress")
        state = [v for v in egress["spec"]["volumes"] if v["name"] == "state"]
        assert state and "emptyDir" in state[0]
        sandbox_pod = kube.kubectl_json("get", "pod", pod)
        assert not [v for v in sandbox_pod["spec"]["volumes"] if "secret" in v or "hostPath" in v]
        assert policy_lines(kube, sandbox_id) == []
    finally:
        adapter(kube, "destroy", sandbox_id)


def test_an_idle_sandboxs_log_verifies_and_is_saved(cluster, upstream, tmp_path):
    """A sandbox that made no request: its log holds only the proxy's start line, which the
    checkpoint asked for signs. verify, destroy --save-log and gc --save-logs work at once."""
    kube = cluster
    idle, _ = create(kube, tmp_path, spec_for(upstream))
    gone, _ = create(kube, tmp_path, spec_for(upstream))
    logs = tmp_path / "logs"
    logs.mkdir()
    try:
        verify = adapter(kube, "egress-log", idle, "--verify", check=0, timeout=60)
        assert verify.stdout.startswith(f"egress log of {idle}: verified: 2 lines"), verify.stdout
        res = adapter(kube, "destroy", idle, "--save-log", str(logs / "idle.jsonl"), check=0, timeout=60)
        assert f"{logs}/idle.jsonl: verified: " in res.stderr and f"removed sandbox {idle}" in res.stderr
        kinds = [json.loads(l)["kind"] for l in (logs / "idle.jsonl").read_text().splitlines()]
        assert kinds[0] == "start" and "checkpoint" in kinds
        run = subprocess.run([proxy_bin(), "log", "verify", "--pubkey", str(logs / "idle.jsonl.pub"),
                              str(logs / "idle.jsonl")], capture_output=True, text=True, timeout=60)
        assert run.returncode == 0, run.stderr
        # gc: the sandbox pod ended while its proxy, never asked for anything, still runs.
        kube.set_pod_state(f"osf-sandbox-{gone}", "terminated", exitCode=0)
        kube.wait_for(lambda: kube.kubectl_json("get", "pod", f"osf-sandbox-{gone}")["status"]["phase"] == "Succeeded",
                      what="the sandbox pod to end")
        res = adapter(kube, "gc", "--save-logs", str(logs), check=0, timeout=120)
        assert f"{gone} sandbox pod osf-sandbox-{gone} Succeeded" in res.stdout.splitlines(), res.stderr
        assert f"{logs}/{gone}.jsonl: verified: " in res.stderr
    finally:
        adapter(kube, "destroy", idle)
        adapter(kube, "destroy", gone)


def test_socks5_from_the_sandbox_pod_reaches_a_tcp_destination_raw(cluster, upstream, tmp_path):
    """The egress pod's proxy as the test API server runs it, on the container port the
    Service's second port (1080) leads to: SOCKS5 to a `tcp` destination is a raw tunnel (the
    origin's own certificate reaches the client, which the proxy's CA in the pod cannot verify),
    a name in neither list is refused; both are in the log, which verifies."""
    kube = cluster
    port = upstream.port
    sandbox_id, _ = create(kube, tmp_path, spec_for(upstream, tcp=[f"refused.test:{port}"]))
    try:
        proxy = listening(kube, sandbox_id)["proxy"]

        def socks(url, *extra):
            return adapter(kube, "exec", sandbox_id, "--", "curl", "-s", "-o", "/dev/null", "-w", "%{http_code}",
                           "--max-time", "60", "--socks5-hostname", proxy, *extra, url)

        assert socks(f"https://refused.test:{port}/raw").returncode == 60  # not the proxy's certificate
        res = socks(f"https://refused.test:{port}/raw", "-k")
        assert (res.returncode, res.stdout) == (0, "200"), res.stderr
        assert socks(f"https://nowhere.test:{port}/").returncode == 97  # the SOCKS server refused

        def tunnels():
            lines = adapter(kube, "egress-log", sandbox_id, "--raw", check=0).stdout.splitlines()
            return [json.loads(l) for l in lines if '"scheme":"tcp"' in l]

        seen = wait_until(lambda: (lambda t: t if len(t) >= 3 else None)(tunnels()), 60,
                          "the three tunnels' lines in the egress log")
        # The first ends as curl left it on its failed check (closed while the origin's bytes
        # still came: client-closed, or not), tunnelled all the same; the second allowed whole;
        # the third refused before any connection.
        assert (seen[0]["host"], seen[0]["via"]) == ("refused.test", "socks5"), seen
        assert (seen[0]["outcome"], seen[0].get("error")) in [("allowed", None), ("error", "client-closed")], seen
        assert [(l["host"], l["via"], l["outcome"], l.get("error"), l.get("refusedBy")) for l in seen[1:]] == [
            ("refused.test", "socks5", "allowed", None, None),
            ("nowhere.test", "socks5", "refused", None, "tcp-destination-not-allowed")], seen
        verify = adapter(kube, "egress-log", sandbox_id, "--verify", check=0)
        assert verify.stdout.startswith(f"egress log of {sandbox_id}: verified:"), verify.stdout
    finally:
        adapter(kube, "destroy", sandbox_id)
