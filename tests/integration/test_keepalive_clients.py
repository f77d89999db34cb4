"""Keep-alive through an intercepted tunnel with Node.js clients: undici's
fetch with its ProxyAgent (what the MCP SDK uses) and node:https with a
keep-alive Agent over CONNECT. Several requests, with idle pauses between
them, must travel on ONE client connection: the egress log's `connection`
field (one id per client connection) shows it. Also: a client that goes away
in the middle of an answer costs only its own connection, never the proxy."""
import json
import os
import shutil
import socket
import ssl
import struct
import subprocess
import time

import pytest

from osftest import Proxy, TestCA, Upstream, repo
from osftest.clients import curl, status_of

MCP_DIR = os.path.join(repo(), "tests", "mcp")  # its node_modules hold undici
NODE = shutil.which("node") or "/usr/bin/node"
ALIASES = {"upstream.test": "127.0.0.1"}
REQUESTS = 5

# Each script reads OSF_ARGS {"proxy", "base", "count"} and prints one JSON line.
UNDICI_SCRIPT = r"""
import { fetch, ProxyAgent } from 'undici';
const { proxy, base, count } = JSON.parse(process.env.OSF_ARGS);
const dispatcher = new ProxyAgent(proxy);
const statuses = [];
for (let i = 0; i < count; i++) {
  // GETs and POSTs with a body: a request head and its body come in separate TLS records.
  const init = i % 2 ? { method: 'POST', body: JSON.stringify({ i, pad: 'y'.repeat(3000) }),
                         headers: { 'content-type': 'application/json' } } : {};
  const res = await fetch(`${base}/keepalive/undici/${i}`, { ...init, dispatcher });
  await res.text();
  statuses.push(res.status);
  await new Promise((r) => setTimeout(r, 300)); // the tunnel goes idle between requests
}
await dispatcher.close();
console.log(JSON.stringify({ statuses }));
"""

AGENT_SCRIPT = r"""
import http from 'node:http';
import https from 'node:https';
import tls from 'node:tls';
const { proxy, base, count } = JSON.parse(process.env.OSF_ARGS);
const proxyUrl = new URL(proxy);
let tunnels = 0;
class TunnelAgent extends https.Agent {
  createConnection(options, done) {
    tunnels++;
    const authority = `${options.host}:${options.port}`;
    const req = http.request({ host: proxyUrl.hostname, port: proxyUrl.port, method: 'CONNECT',
                               path: authority, headers: { host: authority } });
    req.on('connect', (res, socket) => {
      if (res.statusCode !== 200) return done(new Error(`CONNECT answered ${res.statusCode}`));
      done(null, tls.connect({ socket, servername: options.servername || options.host }));
    });
    req.on('error', done);
    req.end();
  }
}
const agent = new TunnelAgent({ keepAlive: true, maxSockets: 1 });
const get = (url) => new Promise((resolve, reject) => {
  https.get(url, { agent }, (res) => {
    res.resume();
    res.on('end', () => resolve({ status: res.statusCode, reused: res.req.reusedSocket }));
  }).on('error', reject);
});
const results = [];
for (let i = 0; i < count; i++) {
  results.push(await get(`${base}/keepalive/agent/${i}`));
  await new Promise((r) => setTimeout(r, 300));
}
agent.destroy();
console.log(JSON.stringify({ tunnels, results }));
"""


@pytest.fixture
def ca(tmp_path):
    return TestCA(str(tmp_path / "upstream-ca"))


@pytest.fixture
def upstream(ca):
    with Upstream(ca, ["upstream.test"]) as u:
        yield u


@pytest.fixture
def proxy(tmp_path, ca):
    spec = {"template": "node:24-alpine", "egress": ["upstream.test"]}
    with Proxy(spec, str(tmp_path / "proxy"), aliases=ALIASES, upstream_ca=ca.cert_path) as p:
        yield p


def _ensure_node_modules():
    if os.path.isdir(os.path.join(MCP_DIR, "node_modules", "undici")):
        return
    res = subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=MCP_DIR, capture_output=True,
                         text=True, timeout=600)
    if res.returncode != 0:
        pytest.fail("npm ci in tests/mcp failed: " + res.stderr[-2000:])


def run_node(script, proxy, upstream):
    _ensure_node_modules()
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    env["NODE_EXTRA_CA_CERTS"] = proxy.ca_path
    env["OSF_ARGS"] = json.dumps({"proxy": proxy.url, "base": upstream.url().rstrip("/"),
                                  "count": REQUESTS})
    res = subprocess.run([NODE, "--input-type=module", "-e", script], capture_output=True,
                         text=True, timeout=120, env=env, cwd=MCP_DIR)
    assert res.returncode == 0, f"node failed: {res.stderr}\nproxy: {proxy.stderr()[-2000:]}"
    return json.loads(res.stdout.strip().splitlines()[-1])


def connections_of(proxy, prefix):
    lines = proxy.wait_for_log(lambda l: l["path"] == f"{prefix}/{REQUESTS - 1}")
    lines = [l for l in proxy.log_lines() if l["path"].startswith(prefix + "/")]
    assert len(lines) == REQUESTS, lines
    assert all(l["outcome"] == "allowed" and l["status"] == 200 for l in lines), lines
    return {l["connection"] for l in lines}


def test_undici_fetch_reuses_one_tunnel(proxy, upstream):
    out = run_node(UNDICI_SCRIPT, proxy, upstream)
    assert out["statuses"] == [200] * REQUESTS
    assert len(connections_of(proxy, "/keepalive/undici")) == 1
    posts = [r for r in upstream.requests if r["method"] == "POST"]
    assert [json.loads(r["body"])["i"] for r in posts] == list(range(1, REQUESTS, 2))


def test_https_agent_reuses_one_tunnel(proxy, upstream):
    out = run_node(AGENT_SCRIPT, proxy, upstream)
    assert [r["status"] for r in out["results"]] == [200] * REQUESTS
    assert out["tunnels"] == 1, out
    assert [r["reused"] for r in out["results"]] == [False] + [True] * (REQUESTS - 1), out
    assert len(connections_of(proxy, "/keepalive/agent")) == 1


def _tunnel(proxy, upstream):
    host, port = proxy.listen.rsplit(":", 1)
    raw = socket.create_connection((host, int(port)), timeout=30)
    authority = f"upstream.test:{upstream.port}"
    raw.sendall(f"CONNECT {authority} HTTP/1.1\r\nHost: {authority}\r\n\r\n".encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = raw.recv(1)
        assert chunk, "the proxy closed the CONNECT"
        head += chunk
    assert head.startswith(b"HTTP/1.1 200"), head
    ctx = ssl.create_default_context(cafile=proxy.ca_path)
    return ctx.wrap_socket(raw, server_hostname="upstream.test")


@pytest.mark.parametrize("abort", ["reset", "close"])
def test_client_leaving_mid_answer_does_not_stop_the_proxy(proxy, upstream, abort):
    for _ in range(3):
        tls = _tunnel(proxy, upstream)
        tls.sendall(f"GET /bytes/50000000 HTTP/1.1\r\nHost: upstream.test:{upstream.port}\r\n\r\n"
                    .encode())
        assert tls.recv(4096).startswith(b"HTTP/1.1 200")
        if abort == "reset":
            tls.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        else:
            tls.shutdown(socket.SHUT_RDWR)  # the TCP connection, without close_notify
        tls.close()
        time.sleep(0.5)  # the proxy keeps writing into the closed connection
    assert proxy.proc.poll() is None, "the proxy died: " + proxy.stderr()[-2000:]
    res = curl(proxy, upstream.url(path="/after"))
    assert status_of(res) == 200, res.stderr


def test_tls_bytes_sent_with_the_connect_head_and_pipelined_requests(proxy, upstream):
    """A client may send its ClientHello in the same packet as CONNECT (the
    proxy has read those bytes already), and two requests in one TLS write:
    nothing of either may be lost."""
    host, port = proxy.listen.rsplit(":", 1)
    raw = socket.create_connection((host, int(port)), timeout=30)
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    tls = ssl.create_default_context(cafile=proxy.ca_path).wrap_bio(
        incoming, outgoing, server_hostname="upstream.test")
    with pytest.raises(ssl.SSLWantReadError):
        tls.do_handshake()
    authority = f"upstream.test:{upstream.port}"
    raw.sendall(f"CONNECT {authority} HTTP/1.1\r\nHost: {authority}\r\n\r\n".encode() +
                outgoing.read())
    got = b""
    while b"\r\n\r\n" not in got:
        chunk = raw.recv(65536)
        assert chunk, "the proxy closed the tunnel: " + proxy.stderr()[-2000:]
        got += chunk
    head, rest = got.split(b"\r\n\r\n", 1)
    assert head.startswith(b"HTTP/1.1 200"), head
    incoming.write(rest)

    def pump_until(done):
        while True:
            try:
                result = done()
                raw.sendall(outgoing.read())
                return result
            except ssl.SSLWantReadError:
                raw.sendall(outgoing.read())
                chunk = raw.recv(65536)
                assert chunk, "the proxy closed the tunnel: " + proxy.stderr()[-2000:]
                incoming.write(chunk)

    pump_until(tls.do_handshake)
    requests = b"".join(
        f"GET /pipelined/{i} HTTP/1.1\r\nHost: {authority}\r\n\r\n".encode() for i in range(2))
    tls.write(requests)  # one TLS record holding both requests
    raw.sendall(outgoing.read())
    answers = b""
    while answers.count(b"HTTP/1.1 200") < 2 or not answers.endswith(b"}"):
        answers += pump_until(lambda: tls.read(65536))
    assert b'"/pipelined/0"' in answers and b'"/pipelined/1"' in answers
    raw.close()
    proxy.wait_for_log(lambda l: l["path"] == "/pipelined/1")
    lines = [l for l in proxy.log_lines() if l["path"].startswith("/pipelined/")]
    assert len({l["connection"] for l in lines}) == 1 and len(lines) == 2, lines
