"""MCP tool filtering through the built egress-proxy, with the official MCP
TypeScript SDK on both ends (tests/mcp): a real server exposing `search`,
`fetch_page` and `delete_everything` over HTTPS on loopback, in three
transports (Streamable HTTP answering in JSON, Streamable HTTP answering in
SSE, and the 2024-11-05 HTTP+SSE transport), and a real SDK client going
through the proxy and trusting its CA. The spec declares only `search` and
`fetch_page`. The server writes every JSON-RPC message it receives to its own
log, so a test can show a refused call never arrived."""
import contextlib
import itertools
import json
import os
import shutil
import subprocess
import time

import pytest

from osftest import Proxy, repo
from osftest import TestCA as UpstreamCA  # aliased: pytest would collect a Test* class
from osftest.clients import body_of, curl, status_of
from osftest.waiting import wait_until

MCP_DIR = os.path.join(repo(), "tests", "mcp")
DECLARED = ["search", "fetch_page"]
ALL_TOOLS = ["search", "fetch_page", "delete_everything"]
# One host per transport: each is only an MCP host, so every path on it (the
# legacy transport's /messages too) is MCP traffic.
TRANSPORTS = {
    "json": {"host": "mcp-json.test", "path": "/mcp-json", "client": "streamable"},
    "sse": {"host": "mcp-sse.test", "path": "/mcp-sse", "client": "streamable"},
    "legacy": {"host": "mcp-legacy.test", "path": "/sse", "client": "legacy"},
}
NODE = shutil.which("node") or "/usr/bin/node"


def _ensure_node_modules():
    if os.path.isdir(os.path.join(MCP_DIR, "node_modules", "@modelcontextprotocol", "sdk")):
        return
    res = subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=MCP_DIR, capture_output=True,
                         text=True, timeout=600)
    if res.returncode != 0:
        pytest.fail("npm ci in tests/mcp failed: " + res.stderr[-2000:])


class McpServer:
    """tests/mcp/server.mjs on 127.0.0.1, a kernel-chosen port, our test CA's leaf."""

    def __init__(self, directory, cert, key, page_size=2):
        self.log_path = os.path.join(directory, "server-received.jsonl")
        self.stderr_path = os.path.join(directory, "server.stderr")
        self._err = open(self.stderr_path, "wb")
        self.proc = subprocess.Popen(
            [NODE, os.path.join(MCP_DIR, "server.mjs"), "--cert", cert, "--key", key,
             "--log", self.log_path, "--page-size", str(page_size)],
            stdout=subprocess.PIPE, stderr=self._err, stdin=subprocess.DEVNULL, text=True)
        line = self.proc.stdout.readline()  # {"port": N} once it listens
        if not line:
            self.stop()
            raise RuntimeError("the MCP test server did not start: " + self.stderr())
        self.port = json.loads(line)["port"]

    def stderr(self):
        with open(self.stderr_path, errors="replace") as f:
            return f.read()

    def received(self):
        try:
            with open(self.log_path) as f:
                return [json.loads(line) for line in f if line.strip()]
        except FileNotFoundError:
            return []

    def calls(self, transport):
        return [m["tool"] for m in self.received()
                if m["transport"] == transport and m["method"] == "tools/call"]

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._err.close()


def spec_of(server, tools):
    """A spec granting `tools` on the test server's every transport (one MCP server each)."""
    return {"template": "node:24-alpine",
            "mcp": [{"name": f"wiki-{name}", "url": f"https://{t['host']}:{server.port}{t['path']}",
                     "tools": tools} for name, t in TRANSPORTS.items()]}


@contextlib.contextmanager
def mcp_environment(base, tools):
    """The MCP test server behind our test CA's leaf, and a proxy whose spec grants `tools`
    on each transport; both stopped afterwards."""
    _ensure_node_modules()
    ca = UpstreamCA(str(base / "upstream-ca"))
    cert, key = ca.issue([t["host"] for t in TRANSPORTS.values()])
    server = McpServer(str(base), cert, key)
    try:
        proxy = Proxy(spec_of(server, tools), str(base / "proxy"), upstream_ca=ca.cert_path,
                      aliases={t["host"]: "127.0.0.1" for t in TRANSPORTS.values()})
    except Exception:
        server.stop()
        raise
    try:
        yield {"server": server, "proxy": proxy, "base": base}
    finally:
        proxy.stop()
        server.stop()


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    with mcp_environment(tmp_path_factory.mktemp("mcp"), DECLARED) as environment:
        yield environment


def url_of(env, name):
    t = TRANSPORTS[name]
    return f"https://{t['host']}:{env['server'].port}{t['path']}"


def run_client(env, name, *args, timeout=90):
    """The SDK client through the proxy; returns its JSON output."""
    child_env = dict(os.environ)
    for k in list(child_env):
        if k.lower().endswith("_proxy"):
            del child_env[k]
    child_env["NODE_EXTRA_CA_CERTS"] = env["proxy"].ca_path
    res = subprocess.run(
        [NODE, os.path.join(MCP_DIR, "client.mjs"), "--url", url_of(env, name),
         "--transport", TRANSPORTS[name]["client"], "--proxy", env["proxy"].url, *args],
        capture_output=True, text=True, timeout=timeout, env=child_env, cwd=MCP_DIR)
    try:
        out = json.loads(res.stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        raise AssertionError(f"client printed no result (exit {res.returncode}): {res.stdout} {res.stderr}")
    assert "failure" not in out, out["failure"] + "\nproxy stderr: " + env["proxy"].stderr()[-2000:]
    return out


@pytest.mark.parametrize("transport", list(TRANSPORTS))
def test_listing_shows_only_declared_tools(env, transport):
    out = run_client(env, transport)
    assert out["tools"] == DECLARED
    # The server pages two tools at a time: the second page lost its only
    # tool, and the client still followed nextCursor to it.
    assert out["pages"] == 2
    # The answers that held delete_everything are logged with what was removed.
    # (On the legacy transport they came on the GET stream, whose line is
    # written when that stream ends, which the server decides.)
    if transport != "legacy":
        env["proxy"].wait_for_log(lambda l: l.get("mcpServer") == f"wiki-{transport}"
                                  and l.get("toolsRemoved", 0) >= 1, timeout=30)


@pytest.mark.parametrize("transport", list(TRANSPORTS))
def test_calling_a_declared_tool_works(env, transport):
    out = run_client(env, transport, "--skip-list", "--call", "search", "--args",
                     json.dumps({"text": "kittens-" + transport}))
    assert "result" in out["call"], out
    texts = [c["text"] for c in out["call"]["result"]["content"]]
    assert texts == ['search ran with {"text":"kittens-%s"}' % transport]
    assert "search" in env["server"].calls(transport)
    line = env["proxy"].wait_for_log(
        lambda l: l.get("mcpServer") == f"wiki-{transport}" and l.get("tool") == "search")[-1]
    assert line["outcome"] == "allowed"
    # Arguments never reach the log.
    assert not any("kittens" in json.dumps(l) for l in env["proxy"].log_lines())


@pytest.mark.parametrize("transport", list(TRANSPORTS))
def test_calling_an_undeclared_tool_never_reaches_the_server(env, transport):
    out = run_client(env, transport, "--skip-list", "--call", "delete_everything", "--args",
                     json.dumps({"text": "all"}))
    assert out["call"].get("error"), out
    assert out["call"]["error"]["code"] == -32602
    assert "Unknown tool: delete_everything" in out["call"]["error"]["message"]
    line = env["proxy"].wait_for_log(
        lambda l: l.get("mcpServer") == f"wiki-{transport}" and l.get("tool") == "delete_everything")[-1]
    assert line["outcome"] == "refused"
    assert line["refusedBy"] == "mcp-tool"
    # The client connected (initialize arrived) but the call did not.
    received = received_since(env, 0)
    assert any(m["transport"] == transport and m["method"] == "initialize" for m in received)
    assert not any(m["tool"] == "delete_everything" for m in received)


_fences = itertools.count()


def received_since(env, before):
    """What the server logged from message `before` on, once it has read everything the proxy
    sent it before now: a fence message sent now is logged (the server logs what it reads
    in order, on one event loop). The fence itself is left out. (Not the proxy's connection
    fence: an SDK client's event stream stays counted until the server writes on it.)"""
    fence = f"fence-{next(_fences)}"
    status, _ = post(env, json.dumps({"jsonrpc": "2.0", "id": fence, "method": "tools/list"}))
    assert status == 200
    wait_until(lambda: any(m["id"] == fence for m in env["server"].received()[before:]),
               what="the fence message at the MCP server")
    return [m for m in env["server"].received()[before:] if m["id"] != fence]


# Raw JSON-RPC through the proxy with curl: the shapes the SDK client never sends.

def post(env, body, *, content_type="application/json", extra=()):
    headers = ["-H", f"Content-Type: {content_type}", "-H", "Accept: application/json, text/event-stream",
               "-H", "MCP-Protocol-Version: 2025-06-18", *extra]
    data = body if isinstance(body, bytes) else body.encode()
    path = os.path.join(str(env["base"]), "body.bin")
    with open(path, "wb") as f:
        f.write(data)
    res = curl(env["proxy"], url_of(env, "json"), "-X", "POST", *headers, "--data-binary", "@" + path)
    return status_of(res), body_of(res)


def test_a_batch_with_an_undeclared_call_is_answered_without_the_server(env):
    before = len(env["server"].received())
    status, body = post(env, json.dumps([
        {"jsonrpc": "2.0", "id": 41, "method": "tools/call", "params": {"name": "search", "arguments": {}}},
        {"jsonrpc": "2.0", "id": 42, "method": "tools/call", "params": {"name": "delete_everything"}},
    ]))
    assert status == 200
    answers = {a["id"]: a for a in json.loads(body)}
    assert answers[42]["error"] == {"code": -32602, "message": "Unknown tool: delete_everything"}
    assert "error" in answers[41]
    assert received_since(env, before) == []


@pytest.mark.parametrize("body, content_type, extra, status", [
    ('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","name":"delete_everything"}}',
     "application/json", (), 400),
    ('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"delete_everything"}}',
     "text/plain", (), 415),
    ('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"delete_everything"}}',
     "application/json", ("-H", "Content-Encoding: gzip"), 415),
    ("not json", "application/json", (), 400),
], ids=["duplicate-key", "content-type", "compressed", "not-json"])
def test_unreadable_requests_are_refused(env, body, content_type, extra, status):
    before = len(env["server"].received())
    got, answer = post(env, body, content_type=content_type, extra=extra)
    assert got == status
    assert json.loads(answer)["error"]["code"] in (-32700, -32600)
    env["proxy"].wait_for_log(lambda l: l.get("refusedBy") == "mcp-unreadable" and l.get("status") == status)
    assert received_since(env, before) == []


def test_escaped_method_names_are_calls_and_case_variants_are_not(env):
    status, body = post(env, '{"jsonrpc":"2.0","id":7,"method":"tools\\/call","params":{"name":"delete_everything"}}')
    assert status == 200
    assert json.loads(body)["error"]["code"] == -32602
    assert "delete_everything" not in env["server"].calls("json")
    # JSON-RPC is case-sensitive: the server sees Tools/Call and rejects it itself.
    status, body = post(env, '{"jsonrpc":"2.0","id":8,"method":"Tools/Call","params":{"name":"delete_everything"}}')
    assert json.loads(body)["error"]["code"] == -32601  # method not found, from the server
    assert any(m["method"] == "Tools/Call" for m in env["server"].received())
