"""The egress log as evidence, with the built proxy: a real log verifies against the
published key (file and stdout copy), each kind of tampering is named by line, a log
cut by kill -9 verifies up to its last line, `log checkpoint` signs on demand, and
`log summary` counts what the raw lines say (counted again here in Python)."""
import json
import os
import signal
import subprocess

import pytest

from osftest import Proxy, TestCA, Upstream
from osftest.clients import curl, status_of
from osftest.egress_log import expected_summary, summary_as_expected
from osftest.proxy import run_proxy
from test_bypass_mcp import jsonrpc_route
from test_bypass_smuggling import RawUpstream

API, OTHER, MCP = "api.evidence.test", "other.evidence.test", "mcp.evidence.test"
ALIASES = {API: "127.0.0.1", OTHER: "127.0.0.1", MCP: "127.0.0.1"}
TOKEN = "evidence-token-value-never-logged"
PLACEHOLDER = "osf-secret-placeholder-API_TOKEN"


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    ca = TestCA(str(tmp_path_factory.mktemp("evidence-ca")))
    https = Upstream(ca, [API, OTHER])
    mcp = RawUpstream(route=jsonrpc_route)
    yield ca, https, mcp
    https.stop()
    mcp.stop()


def start(servers, directory, *args):
    ca, _, mcp = servers
    spec = {"template": "debian:12", "egress": [API, OTHER],
            "secrets": {"API_TOKEN": "ref:env/API_TOKEN"},
            "mcp": [{"name": "tools", "url": f"http://{MCP}:{mcp.port}/mcp", "tools": ["search"]}]}
    return Proxy(spec, str(directory), aliases=ALIASES, upstream_ca=ca.cert_path,
                 env={"OSF_SECRET_API_TOKEN": TOKEN}, args=list(args))


def traffic(servers, proxy):
    """Allowed (with and without a secret), refused, failed and MCP requests."""
    _, https, mcp = servers
    assert status_of(curl(proxy, https.url(API, "/plain"))) == 200
    assert status_of(curl(proxy, https.url(API, "/with-secret"), "-H", f"Authorization: Bearer {PLACEHOLDER}")) == 200
    assert status_of(curl(proxy, https.url(OTHER, "/other"))) == 200
    assert status_of(curl(proxy, "https://refused.evidence.test/")) in (0, 403)
    assert status_of(curl(proxy, "http://refused.evidence.test/x")) == 403
    for tool in ("search", "delete_everything", "search"):
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool, "arguments": {}}})
        curl(proxy, f"http://{MCP}:{mcp.port}/mcp", "-X", "POST", "-H", "Content-Type: application/json",
             "-H", "Accept: application/json, text/event-stream", "--data", body)
    proxy.wait_for_log(lambda l: l.get("tool") == "search")


def verify(path, *args):
    run = run_proxy(["log", "verify", *args, str(path)], timeout=60)
    return run.returncode, run.stdout + run.stderr


def lines_of(path):
    with open(path, "rb") as f:
        return f.read().split(b"\n")[:-1]


def write_lines(path, lines):
    with open(path, "wb") as f:
        f.write(b"".join(l + b"\n" for l in lines))


def test_a_real_log_verifies_against_the_published_key(servers, tmp_path):
    proxy = start(servers, tmp_path / "p", "--log-stdout")
    traffic(servers, proxy)
    key = os.path.join(proxy.state_dir, "log-key.pub")
    assert run_proxy(["ca", "--log-key", "--state-dir", proxy.state_dir]).stdout == open(key).read()
    both = run_proxy(["ca", "--with-log-key", "--state-dir", proxy.state_dir]).stdout
    assert both == open(proxy.ca_path).read() + open(key).read()
    assert open(key).read().startswith("-----BEGIN PUBLIC KEY-----")
    # While it runs, before any checkpoint: the chain holds, nothing is signed yet, so
    # nothing verifies against the published key.
    code, out = verify(proxy.log_path)
    assert code == 0, out
    assert "signed: nothing yet" in out and "unsigned tail: lines 1-" in out
    code, out = verify(proxy.log_path, "--pubkey", key)
    assert code == 1 and "no checkpoint: nothing in this log is signed by the given key" in out, out
    assert proxy.stop() == 0
    code, out = verify(proxy.log_path, "--pubkey", key)
    assert code == 0, out
    assert "by the given key" in out and "complete: the log ends with the proxy's final checkpoint" in out
    assert "unsigned tail" not in out
    # The stdout copy (for the cluster's log collector) is the same lines: it verifies too.
    assert open(proxy.stdout_path, "rb").read() == open(proxy.log_path, "rb").read()
    # Another proxy's key is not the published one.
    other = start(servers, tmp_path / "other")
    other.stop()
    code, out = verify(proxy.log_path, "--pubkey", os.path.join(other.state_dir, "log-key.pub"))
    assert code == 1 and "key other than the given one" in out, out
    assert TOKEN not in open(proxy.log_path).read()
    code, out = verify(proxy.log_path, "--pubkey", proxy.ca_path)
    assert code == 2 and "not an Ed25519 public key" in out
    assert verify(tmp_path / "missing.jsonl")[0] == 2


def test_each_kind_of_tampering_is_named_by_line(servers, tmp_path):
    proxy = start(servers, tmp_path / "p", "--checkpoint-lines", "3")
    traffic(servers, proxy)
    assert proxy.stop() == 0
    key = os.path.join(proxy.state_dir, "log-key.pub")
    lines = lines_of(proxy.log_path)
    kinds = [json.loads(l).get("kind") for l in lines]
    assert kinds[0] == "start" and kinds[4] == "checkpoint" and kinds[-1] == "checkpoint"
    assert len(lines) >= 12
    bad = tmp_path / "bad.jsonl"

    def check(tampered, line, words):
        write_lines(bad, tampered)
        code, out = verify(bad, "--pubkey", key)
        assert code == 1, out
        assert out.startswith(f"{bad}:{line}: ") and words in out, out

    edited = list(lines)
    record = json.loads(edited[2])
    edited[2] = edited[2].replace(json.dumps(record["host"]).encode(), b'"innocent.example"')
    assert edited[2] != lines[2]
    check(edited, 4, "line 3 was changed")
    check(lines[:5] + lines[6:], 6, "does not follow line 5")  # line 6 deleted
    check(lines[:6] + [lines[7], lines[6]] + lines[8:], 7, "does not follow line 6")  # 7 and 8 swapped
    check(lines[1:], 1, "beginning of the log is missing")  # start line deleted
    resigned = list(lines)
    resigned[4] = resigned[4].replace(b'"lines":4', b'"lines":3')
    check(resigned, 5, "counts 3 lines")
    # Cut after a checkpoint, at a line boundary: the chain holds, but the log no longer
    # ends with the final checkpoint, which --require-final makes an error.
    write_lines(bad, lines[:5])
    code, out = verify(bad, "--pubkey", key)
    assert code == 0 and "not ended by a final checkpoint" in out, out
    code, out = verify(bad, "--pubkey", key, "--require-final")
    assert code == 1 and "does not end with the proxy's final checkpoint" in out, out
    # Cut mid-line: the piece is said not to be verified.
    with open(bad, "wb") as f:
        f.write(b"".join(l + b"\n" for l in lines) + lines[3][:30])
    code, out = verify(bad, "--pubkey", key)
    assert code == 0 and "the last 30 bytes are not a whole line" in out, out
    assert verify(bad, "--pubkey", key, "--require-final")[0] == 1


def test_kill_9_between_checkpoints_verifies_up_to_the_last_line(servers, tmp_path):
    proxy = start(servers, tmp_path / "p", "--checkpoint-lines", "4")
    traffic(servers, proxy)
    if b'"kind":"checkpoint"' in lines_of(proxy.log_path)[-1]:
        curl(proxy, servers[1].url(API, "/after-the-checkpoint"))
        proxy.wait_for_log(lambda l: l.get("path") == "/after-the-checkpoint")
    first_key = open(os.path.join(proxy.state_dir, "log-key.pub")).read()
    proxy.proc.send_signal(signal.SIGKILL)
    proxy.proc.wait(30)
    proxy.stop()
    lines = lines_of(proxy.log_path)
    last_checkpoint = max(i for i, l in enumerate(lines, 1) if b'"kind":"checkpoint"' in l)
    assert last_checkpoint < len(lines), "the test needs lines after the last checkpoint"
    code, out = verify(proxy.log_path, "--pubkey", os.path.join(proxy.state_dir, "log-key.pub"))
    assert code == 0, out
    assert f"unsigned tail: lines {last_checkpoint + 1}-{len(lines)}" in out
    # The next run continues the chain: the whole file verifies against its new key.
    again = start(servers, tmp_path / "p")
    assert open(os.path.join(again.state_dir, "log-key.pub")).read() != first_key
    curl(again, servers[1].url(API, "/after-restart"))
    again.wait_for_log(lambda l: l.get("path") == "/after-restart")
    assert again.stop() == 0
    code, out = verify(again.log_path, "--pubkey", os.path.join(again.state_dir, "log-key.pub"))
    assert code == 0, out
    assert "(2 runs of the proxy)" in out and "complete" in out


def test_log_checkpoint_signs_a_running_proxys_log(servers, tmp_path):
    proxy = start(servers, tmp_path / "p")
    try:
        curl(proxy, servers[1].url(API, "/before-checkpoint"))
        proxy.wait_for_log(lambda l: l.get("path") == "/before-checkpoint")
        run = run_proxy(["log", "checkpoint", "--state-dir", proxy.state_dir], timeout=60)
        assert run.returncode == 0, run.stderr
        assert json.loads(run.stdout)["kind"] == "checkpoint"
        code, out = verify(proxy.log_path, "--pubkey", os.path.join(proxy.state_dir, "log-key.pub"))
        assert code == 0 and "unsigned tail" not in out, out
        # Asked again with nothing new: the log is already signed to its last line, the proxy
        # writes no second checkpoint, and that one is the answer (no wait for the timeout).
        size = os.path.getsize(proxy.log_path)
        again = run_proxy(["log", "checkpoint", "--state-dir", proxy.state_dir, "--timeout", "30"], timeout=60)
        assert again.returncode == 0 and again.stdout == run.stdout, again.stderr
        assert os.path.getsize(proxy.log_path) == size
        assert proxy.proc.poll() is None  # the signal did not stop it
    finally:
        proxy.stop()
    missing = run_proxy(["log", "checkpoint", "--state-dir", str(tmp_path / "none")])
    assert missing.returncode == 1 and "no running proxy" in missing.stderr


def test_summary_matches_counts_from_the_raw_lines(servers, tmp_path):
    proxy = start(servers, tmp_path / "p", "--checkpoint-lines", "5")
    traffic(servers, proxy)
    assert proxy.stop() == 0
    key = os.path.join(proxy.state_dir, "log-key.pub")
    run = run_proxy(["log", "summary", "--json", "--pubkey", key, proxy.log_path])
    assert run.returncode == 0, run.stderr
    summary = json.loads(run.stdout)
    assert summary["verification"]["ok"] is True and summary["verification"]["final"] is True
    assert summary["verification"]["trustedKey"] is True
    text = open(proxy.log_path).read()
    expected = expected_summary(text)
    assert summary_as_expected(summary) == expected
    # What the traffic was: the counts are not empty by accident.
    assert expected["secrets"] == {("API_TOKEN", API): 1}
    assert expected["mcp"]["tools"]["called"] == {"search": 2}
    assert expected["mcp"]["tools"]["refused"] == {"delete_everything": 1}
    assert expected["hosts"][API]["requests"] == 2 and expected["hosts"][OTHER]["requests"] == 1
    assert sum(n for (reason, host), n in expected["refusals"].items() if host == "refused.evidence.test") == 2
    # The text form says the same for a terminal.
    run = run_proxy(["log", "summary", "--pubkey", key, proxy.log_path])
    assert run.returncode == 0
    assert run.stdout.startswith("chain: verified")
    assert "API_TOKEN  " + API in run.stdout
    assert "delete_everything REFUSED 1" in run.stdout
    # A tampered log is summarised but said not to verify (exit 1).
    lines = lines_of(proxy.log_path)
    bad = tmp_path / "bad.jsonl"
    write_lines(bad, lines[:3] + lines[4:])
    run = run_proxy(["log", "summary", str(bad)])
    assert run.returncode == 1 and run.stdout.startswith("chain: NOT VERIFIED: line 4:"), run.stdout
