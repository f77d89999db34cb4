"""HTTP/2 on the client leg of an intercepted CONNECT tunnel (`--http2 on`, the
default), with real h2 clients (curl with nghttp2, Node's http2 module, Debian's
python3-h2, raw frames) through the built proxy to HTTP/1.1 HTTPS upstreams on
loopback. Proves: curl negotiates h2 and gets whole bodies both ways, and `--http2
off` gives it http/1.1; each stream is one request held to the same rules as an
HTTP/1.1 request in the tunnel (an :authority naming another host refused like a
Host mismatch, secret placeholders swapped for their values upstream and masked back,
undeclared MCP tools refused and pruned) and written as exactly one log line with
"http": "2"; 50 streams on one connection are all answered, at once; streams beyond
--h2-max-streams are refused and never reach the upstream; a header list over
--max-header-bytes is a 431 on its stream; CONTINUATION, rapid-reset, SETTINGS and
PING floods end their connection while the proxy stays up, serves the next client
and its RSS stays bounded; h2c (prior knowledge on the proxy port or in a plain
tunnel, `Upgrade: h2c`) is refused or served as HTTP/1.1, as before."""
import hashlib
import json
import os
import secrets as random_tokens
import shutil
import socket
import struct
import subprocess
import threading
import time

import hpack
import pytest

from osftest import Proxy, TestCA, Upstream, repo
from osftest.h2 import (answer_when_all_arrived, ACK, CANCEL, CONTINUATION, END_HEADERS, END_STREAM, HEADERS, PING, PREFACE, REFUSED_STREAM,
                        RST_STREAM, SETTINGS, SETTINGS_ENABLE_PUSH, SETTINGS_MAX_CONCURRENT_STREAMS, H2Client, RssPeak,
                        curl_h2, flood, frame, read_frames_until, read_until_closed, settings_frame, tls_tunnel)
from osftest.proxy import rss_checks_apply, run_proxy
from osftest.waiting import wait_until
from test_bypass_edges import assert_log_matches_the_schema
from test_bypass_smuggling import LogCursor, open_tunnel, proxy_address, read_response, read_until_close
from test_mcp import DECLARED, McpServer, _ensure_node_modules
from test_secrets import proxy_outputs

UP, OTHER, MCP_HOST = "upstream.test", "other.test", "mcp.h2.test"
ALIASES = {UP: "127.0.0.1", OTHER: "127.0.0.1", MCP_HOST: "127.0.0.1"}
PREFIX = "osf-secret-placeholder-"
API_TOKEN = "real-h2-api-token-" + random_tokens.token_hex(8)
NODE = shutil.which("node") or "/usr/bin/node"
MULTIPLEX = os.path.join(repo(), "tests", "integration", "h2", "multiplex.mjs")
MIB = 1024 * 1024
RSS_GROWTH = 64 * MIB  # generous, yet under what the 64 MiB CONTINUATION flood would take if held
GATE = {"barrier": None}  # /together/<i> waits here until all its streams are at the upstream


def route(handler, url, body):
    """The upstream's own paths; anything else is osftest's JSON echo."""
    if url.path.startswith("/check"):  # answers whether the real value arrived, never echoes it
        ok = handler.headers.get("Authorization") == f"Bearer {API_TOKEN}"
        handler._send(200 if ok else 401, json.dumps({"authorized": ok}).encode())
        return True
    if url.path.startswith("/echo-back"):  # a careless server reflecting the credential
        handler._send(200, b"{}", extra=[("X-Echo-Authorization", handler.headers.get("Authorization", ""))])
        return True
    if url.path.startswith("/together/"):
        return answer_when_all_arrived(handler, url, GATE)
    if url.path.startswith("/slow/"):
        time.sleep(1)
    return False


def assert_no_real_value(*texts):
    for text in texts:
        if isinstance(text, bytes):
            text = text.decode(errors="replace")
        assert API_TOKEN not in text, f"the real secret value leaked into: {text[:500]!r}"


def start_proxy(directory, ca, *args):
    spec = {"template": "debian:12", "egress": [UP], "secrets": {"API_TOKEN": "ref:env/API_TOKEN"}}
    return Proxy(spec, directory, aliases=ALIASES, upstream_ca=ca.cert_path,
                 env={"OSF_SECRET_API_TOKEN": API_TOKEN}, args=["--log-every-refusal", *args])


@pytest.fixture(scope="module")
def ca(tmp_path_factory):
    return TestCA(str(tmp_path_factory.mktemp("h2-upstream-ca")))


@pytest.fixture(scope="module")
def upstream(ca):
    with Upstream(ca, [UP, OTHER], route=route) as u:
        u.server.socket.listen(256)  # many streams at once are many upstream connections at once
        yield u


@pytest.fixture(scope="module")
def plain():
    with Upstream(None) as u:
        yield u


@pytest.fixture(scope="module")
def proxy(tmp_path_factory, ca, upstream):
    with start_proxy(str(tmp_path_factory.mktemp("h2-proxy")), ca) as p:
        yield p
        assert_no_real_value(*proxy_outputs(p))
        assert_log_matches_the_schema(p)  # the lines with "http": "2" among them


@pytest.fixture(scope="module")
def proxy_off(tmp_path_factory, ca, upstream):
    with start_proxy(str(tmp_path_factory.mktemp("h2-off-proxy")), ca, "--http2", "off") as p:
        yield p


@pytest.fixture
def fresh_proxy(tmp_path, ca, upstream):
    """A proxy of its own, for a test that attacks it."""
    with start_proxy(str(tmp_path / "proxy"), ca) as p:
        yield p


def the_line(proxy, path, timeout=30):
    """The one log line of the request for `path` (fails on none or on two)."""
    proxy.wait_for_log(lambda l: l.get("path") == path, timeout)
    proxy.wait_connections_closed()  # a second line for the same request would be there by now
    lines = [l for l in proxy.log_lines() if l.get("path") == path]
    assert len(lines) == 1, lines
    return lines[0]


def still_serving(proxy, upstream, path="/still-serving"):
    assert proxy.proc.poll() is None, "the proxy exited: " + proxy.stderr()[-3000:]
    status, version, body, res = curl_h2(proxy, upstream.url(UP, path))
    assert (status, version) == (200, "2"), res.stderr + proxy.stderr()[-3000:]
    assert json.loads(body)["path"] == path


# 1. curl --http2 through the proxy.

def test_curl_gets_h2_from_the_proxy_in_front_of_an_http11_upstream(proxy, upstream):
    status, version, body, res = curl_h2(proxy, upstream.url(UP, "/h2-get?token=abc"), "-H", "X-Custom: visible")
    assert (status, version) == (200, "2"), res.stderr
    echo = json.loads(body)
    assert echo["method"] == "GET" and echo["path"] == "/h2-get" and echo["query"] == "token=abc"
    assert echo["headers"]["x-custom"] == "visible"
    # The upstream got an HTTP/1.1 request for the tunnel's host, over TLS with its name.
    assert echo["headers"]["host"] == f"{UP}:{upstream.port}" and echo["sni"] == UP
    line = the_line(proxy, "/h2-get")
    assert line["http"] == "2", line
    assert line["outcome"] == "allowed" and line["status"] == 200 and line["method"] == "GET"
    assert line["host"] == UP and line["port"] == upstream.port and line["scheme"] == "https"


def test_a_large_answer_arrives_whole_over_h2(proxy, upstream):
    # Past the initial flow-control windows (64 KiB): the proxy must keep the stream moving.
    status, version, body, res = curl_h2(proxy, upstream.url(UP, f"/bytes/{MIB}"))
    assert (status, version) == (200, "2"), res.stderr
    assert body == "x" * MIB
    line = the_line(proxy, f"/bytes/{MIB}")
    assert line["http"] == "2" and line["bytesDown"] == MIB, line


def test_a_one_mib_post_over_h2_arrives_whole_at_the_upstream(proxy, upstream, tmp_path):
    data = os.urandom(MIB)
    path = tmp_path / "upload.bin"
    path.write_bytes(data)
    status, version, body, res = curl_h2(proxy, upstream.url(UP, "/h2-upload"), "--data-binary", f"@{path}",
                                         "-H", "Content-Type: application/octet-stream")
    assert (status, version) == (200, "2"), res.stderr
    assert json.loads(body)["bodyLength"] == MIB
    [received] = [r for r in upstream.requests if r["path"] == "/h2-upload"]
    assert received["method"] == "POST"
    assert hashlib.sha256(received["body"]).hexdigest() == hashlib.sha256(data).hexdigest()
    line = the_line(proxy, "/h2-upload")
    assert line["http"] == "2" and line["method"] == "POST" and line["bytesUp"] == MIB, line


# 2. What is negotiated: h2 when offered (and on), http/1.1 otherwise.

@pytest.mark.parametrize("offered, chosen", [(("h2", "http/1.1"), "h2"), (("http/1.1", "h2"), "h2"),
                                             (("http/1.1",), "http/1.1")])
def test_alpn_with_http2_on(proxy, upstream, offered, chosen):
    with tls_tunnel(proxy, UP, upstream.port, alpn=offered) as t:
        assert t.selected_alpn_protocol() == chosen


def test_an_http11_client_of_an_h2_proxy_gets_http11_and_a_line_without_http(proxy, upstream):
    status, version, body, res = curl_h2(proxy, upstream.url(UP, "/still-http11"), version="--http1.1")
    assert (status, version) == (200, "1.1"), res.stderr
    assert "http" not in the_line(proxy, "/still-http11")


def test_http2_off_negotiates_http11(proxy_off, upstream):
    status, version, body, res = curl_h2(proxy_off, upstream.url(UP, "/h2-off"))
    assert (status, version) == (200, "1.1"), res.stderr
    assert json.loads(body)["path"] == "/h2-off"
    line = the_line(proxy_off, "/h2-off")
    assert "http" not in line and line["outcome"] == "allowed", line
    with tls_tunnel(proxy_off, UP, upstream.port, alpn=("h2", "http/1.1")) as t:
        assert t.selected_alpn_protocol() == "http/1.1"


def test_a_bad_http2_value_stops_the_proxy_with_exit_2(tmp_path):
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"template": "debian:12", "egress": [UP]}))
    res = run_proxy(["--spec", str(spec), "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0",
                     "--state-dir", str(tmp_path / "state"), "--http2", "maybe"])
    assert res.returncode == 2, res.stderr
    assert "http2" in res.stderr, res.stderr
    assert not os.path.exists(tmp_path / "state" / "listen.json")


# 3. The allowlist by :authority.

@pytest.mark.parametrize("host", ["other.test", "other.test:{port}"])
def test_an_authority_naming_another_host_is_refused_like_an_http11_host_mismatch(proxy, upstream, tmp_path, host):
    host = host.format(port=upstream.port)
    outcomes = {}
    for version, flag in (("2", "--http2"), ("1.1", "--http1.1")):
        path = f"/mismatch-{version}-{host.replace(':', '-')}"
        heads = tmp_path / f"heads-{version}.txt"
        status, got, body, res = curl_h2(proxy, upstream.url(UP, path), "-H", f"Host: {host}", "-D", str(heads),
                                         version=flag)
        assert got == version, res.stderr
        line = the_line(proxy, path)
        assert ("http" in line) == (version == "2"), line
        assert line["outcome"] == "refused", line
        refused_by_header = [l.split(":", 1)[1].strip() for l in heads.read_text().splitlines()
                             if l.lower().startswith("x-osf-refused-by:")]
        outcomes[version] = (status, line["refusedBy"], line["status"], refused_by_header)
        assert not [r for r in upstream.requests if r["path"] == path]
    assert outcomes["2"] == outcomes["1.1"] == (403, "host-mismatch", 403, ["host-mismatch"]), outcomes


# 4. Secrets.

def test_a_secret_placeholder_in_an_h2_header_reaches_the_upstream_as_its_value(proxy, upstream, tmp_path):
    heads = tmp_path / "heads.txt"
    status, version, body, res = curl_h2(proxy, upstream.url(UP, "/check-h2"), "-D", str(heads),
                                         "-H", f"Authorization: Bearer {PREFIX}API_TOKEN")
    assert (status, version) == (200, "2"), res.stderr
    assert json.loads(body) == {"authorized": True}
    line = the_line(proxy, "/check-h2")
    assert line["http"] == "2" and line["outcome"] == "allowed" and line["secrets"] == ["API_TOKEN"], line
    assert_no_real_value(res.stdout, res.stderr, heads.read_text(), *proxy_outputs(proxy))


def test_a_value_echoed_in_an_answer_header_reaches_the_h2_client_as_its_placeholder(proxy, upstream, tmp_path):
    heads = tmp_path / "heads.txt"
    status, version, body, res = curl_h2(proxy, upstream.url(UP, "/echo-back-h2"), "-D", str(heads),
                                         "-H", f"Authorization: Bearer {PREFIX}API_TOKEN")
    assert (status, version) == (200, "2"), res.stderr
    text = heads.read_text()
    assert f"x-echo-authorization: bearer {PREFIX}api_token" in text.lower(), text
    # The upstream did get the real value (so the echo had something to mask).
    [received] = [r for r in upstream.requests if r["path"] == "/echo-back-h2"]
    assert dict((k.lower(), v) for k, v in received["headers"])["authorization"] == f"Bearer {API_TOKEN}"
    assert_no_real_value(res.stdout, res.stderr, text, *proxy_outputs(proxy))


# 5. MCP over h2: the SDK server of test_mcp.py, raw JSON-RPC from curl.

@pytest.fixture(scope="module")
def mcp(tmp_path_factory):
    _ensure_node_modules()
    base = tmp_path_factory.mktemp("h2-mcp")
    ca = TestCA(str(base / "upstream-ca"))
    cert, key = ca.issue([MCP_HOST])
    server = McpServer(str(base), cert, key, page_size=0)  # one page: the list itself is pruned
    spec = {"template": "node:24-alpine",
            "mcp": [{"name": "wiki", "url": f"https://{MCP_HOST}:{server.port}/mcp-json", "tools": DECLARED}]}
    try:
        proxy = Proxy(spec, str(base / "proxy"), upstream_ca=ca.cert_path, aliases={MCP_HOST: "127.0.0.1"})
    except Exception:
        server.stop()
        raise
    yield {"server": server, "proxy": proxy}
    proxy.stop()
    server.stop()


def mcp_post(mcp, message, version="--http2"):
    url = f"https://{MCP_HOST}:{mcp['server'].port}/mcp-json"
    status, got, body, res = curl_h2(mcp["proxy"], url, "-H", "Content-Type: application/json",
                                     "-H", "Accept: application/json, text/event-stream",
                                     "-H", "MCP-Protocol-Version: 2025-06-18",
                                     "--data-binary", json.dumps(message), version=version)
    assert got == {"--http2": "2", "--http1.1": "1.1"}[version], res.stderr
    return status, body


def mcp_lines(mcp, predicate, count=1, timeout=10):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        lines = [l for l in mcp["proxy"].log_lines() if l.get("mcpServer") == "wiki" and predicate(l)]
        if len(lines) >= count:
            return lines
        time.sleep(0.05)
    raise AssertionError("no matching MCP line: " + json.dumps(mcp["proxy"].log_lines())[-3000:])


def test_mcp_tools_list_over_h2_is_pruned(mcp):
    status, body = mcp_post(mcp, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    assert status == 200, body
    assert [t["name"] for t in json.loads(body)["result"]["tools"]] == DECLARED
    line = mcp_lines(mcp, lambda l: l.get("toolsRemoved"))[-1]
    assert line["http"] == "2" and line["toolsRemoved"] == 1 and line["outcome"] == "allowed", line


def test_mcp_call_of_a_declared_tool_over_h2_goes_through(mcp):
    status, body = mcp_post(mcp, {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                                  "params": {"name": "search", "arguments": {"text": "h2-kittens"}}})
    assert status == 200, body
    assert json.loads(body)["result"]["content"][0]["text"] == 'search ran with {"text":"h2-kittens"}'
    assert "search" in mcp["server"].calls("json")
    line = mcp_lines(mcp, lambda l: l.get("tool") == "search")[-1]
    assert line["http"] == "2" and line["outcome"] == "allowed", line
    assert "h2-kittens" not in json.dumps(mcp["proxy"].log_lines())


def test_mcp_call_of_an_undeclared_tool_over_h2_is_refused_as_over_http11(mcp):
    call = {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"name": "delete_everything", "arguments": {"text": "all"}}}
    status, body = mcp_post(mcp, call)
    answer = json.loads(body)
    assert answer["error"]["code"] == -32602 and "Unknown tool: delete_everything" in answer["error"]["message"]
    status11, body11 = mcp_post(mcp, call, version="--http1.1")
    assert (status, answer) == (status11, json.loads(body11))
    lines = mcp_lines(mcp, lambda l: l.get("tool") == "delete_everything", count=2)
    assert [l.get("http") for l in lines] == ["2", None], lines
    assert all(l["outcome"] == "refused" and l["refusedBy"] == "mcp-tool" for l in lines), lines
    assert "delete_everything" not in mcp["server"].calls("json")


# 6. Many streams on one connection (Node's http2 client).

def run_multiplex(proxy, upstream, paths, timeout=60):
    res = subprocess.run([NODE, MULTIPLEX, "--proxy", proxy.listen, "--authority", f"{UP}:{upstream.port}",
                          "--ca", proxy.ca_path, "--timeout-ms", str(timeout * 1000),
                          *[a for p in paths for a in ("--path", p)]],
                         capture_output=True, text=True, timeout=timeout + 15)
    try:
        out = json.loads(res.stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        raise AssertionError(f"multiplex.mjs printed no result (exit {res.returncode}): {res.stdout} {res.stderr}")
    assert "failure" not in out, out["failure"] + "\nproxy stderr: " + proxy.stderr()[-2000:]
    assert out["alpn"] == "h2", out
    return out


def test_fifty_streams_on_one_connection_are_each_answered_and_logged_once(proxy, upstream):
    paths = [f"/mux/{i}" for i in range(50)]
    out = run_multiplex(proxy, upstream, paths)
    assert [r["path"] for r in out["results"]] == paths
    for r in out["results"]:
        assert r.get("status") == 200, r
        assert json.loads(r["body"])["path"] == r["path"], r
    wait_until(lambda: len([l for l in proxy.log_lines() if l.get("path", "").startswith("/mux/")]) >= 50,
               60, "a line for each of the 50 streams")
    proxy.wait_connections_closed()  # a second line for a stream would be written by now
    lines = [l for l in proxy.log_lines() if l.get("path", "").startswith("/mux/")]
    assert sorted(l["path"] for l in lines) == sorted(paths), [l["path"] for l in lines]
    assert len({l["connection"] for l in lines}) == 1, {l["connection"] for l in lines}
    assert all(l["http"] == "2" and l["outcome"] == "allowed" and l["status"] == 200 for l in lines), lines
    # The lines are in the log's hash chain like any other.
    verify = run_proxy(["log", "verify", proxy.log_path])
    assert verify.returncode == 0, verify.stdout + verify.stderr


def test_streams_on_one_connection_are_served_at_once(proxy, upstream):
    # Each answer is held at the upstream until all 8 requests are there: a proxy that
    # served a connection's streams one after another would never get them together.
    GATE["barrier"] = threading.Barrier(8, timeout=20)
    paths = [f"/together/{i}" for i in range(8)]
    out = run_multiplex(proxy, upstream, paths)
    for r in out["results"]:
        assert r.get("status") == 200 and json.loads(r["body"])["together"], r


# 7. Limits and floods (python3-h2 and raw frames).

def test_streams_beyond_the_advertised_maximum_are_refused(tmp_path, ca, upstream):
    with start_proxy(str(tmp_path / "proxy"), ca, "--h2-max-streams", "4") as proxy:
        authority = f"{UP}:{upstream.port}"
        with tls_tunnel(proxy, UP, upstream.port) as sock:
            assert sock.selected_alpn_protocol() == "h2"
            client = H2Client(sock, authority)
            # The proxy's SETTINGS are read but not yet given to h2 (which would then
            # refuse to open more streams than they allow).
            frames, held = read_frames_until(sock, lambda fs: any(f.kind == SETTINGS and not f.flags & ACK
                                                                  for f in fs))
            [settings] = [f for f in frames if f.kind == SETTINGS and not f.flags & ACK][:1]
            assert settings.settings().get(SETTINGS_MAX_CONCURRENT_STREAMS) == 4, frames
            sids = [client.request(f"/slow/{i}", flush=False) for i in range(10)]  # 10 at once
            client.flush()
            client.feed(held)
            client.pump(lambda: all(client.finished(s) for s in sids), timeout=30)
            outcome = {client.streams[s]["path"]: (client.streams[s]["status"], client.streams[s]["reset"])
                       for s in sids}
            report = f"streams: {outcome}; GOAWAY: {client.terminated}; closed: {client.closed}"
            print(report)
            extra = [f"/slow/{i}" for i in range(4, 10)]
            # No stream past the fourth was answered or reached the upstream.
            assert all(outcome[p][0] is None for p in extra), report
            if client.terminated is None:  # refused one by one: RST_STREAM REFUSED_STREAM
                assert all(outcome[f"/slow/{i}"] == (200, None) for i in range(4)), report
                assert all(outcome[p] == (None, REFUSED_STREAM) for p in extra), report
                sid = client.request("/after-refused-streams")  # the connection goes on
                [after] = client.wait(sid)
                assert after["status"] == 200, (after, report)
        time.sleep(0.5)
        reached = {r["path"] for r in upstream.requests}
        assert not reached & set(extra), report
        still_serving(proxy, upstream)


def test_a_header_list_over_the_limit_is_a_431_on_its_stream_logged_like_http11(proxy, upstream):
    authority = f"{UP}:{upstream.port}"
    big = [(f"x-big-{i}", "v" * 4000) for i in range(20)]  # 80,000 bytes decoded, over 65,536
    cursor = LogCursor(proxy)
    with tls_tunnel(proxy, UP, upstream.port) as sock:
        client = H2Client(sock, authority)
        assert client.advertised_max_streams() == 100  # --h2-max-streams' default
        sid = client.request("/too-big-header-list", headers=big)
        [answer] = client.wait(sid)
        report = f"stream: {answer}; GOAWAY: {client.terminated}; closed: {client.closed}"
        assert answer["status"] == 431 and answer["ended"], report
        assert ("x-osf-refused-by", "limit") in answer["headers"], report
        # The connection goes on.
        sid = client.request("/after-431")
        [after] = client.wait(sid)
        assert after["status"] == 200, (after, report)
    line = cursor.wait(lambda l: l.get("http") == "2" and l.get("status") == 431)[0]
    # The same head over HTTP/1.1, for what its line says.
    with tls_tunnel(proxy, UP, upstream.port, alpn=("http/1.1",)) as t:
        fields = "".join(f"{k}: {v}\r\n" for k, v in big)
        t.sendall(f"GET /too-big-head-http11 HTTP/1.1\r\nHost: {authority}\r\n{fields}\r\n".encode())
        assert read_response(t)[0] == 431
    line11 = the_line(proxy, "/too-big-head-http11")
    assert (line11["method"], line11["refusedBy"], line11["status"]) == ("GET", "limit", 431), line11
    assert (line["method"], line["path"], line["outcome"], line["refusedBy"]) == (
        "GET", "/too-big-header-list", "refused", "limit"), line
    assert not [r for r in upstream.requests if r["path"] in ("/too-big-header-list", "/too-big-head-http11")]


def request_block(encoder, authority, path):
    return encoder.encode([(":method", "GET"), (":scheme", "https"), (":authority", authority), (":path", path)])


def flood_ends_the_connection(proxy, upstream, first, batch, batches):
    """Sends the preface, an empty SETTINGS and `first`, then `batch` up to `batches`
    times without reading; then reads until the proxy closes. The connection must end
    within 20 s of the last write, the proxy stay up with its RSS within RSS_GROWTH
    of its baseline, and a new client be served."""
    still_serving(proxy, upstream, "/warm-up")  # TLS, nghttp2, the pools: in the baseline
    with RssPeak(proxy.pid) as rss, tls_tunnel(proxy, UP, upstream.port) as sock:
        assert sock.selected_alpn_protocol() == "h2"
        sock.sendall(PREFACE + settings_frame() + first)
        written, stopped = flood(sock, batch, batches)
        closing = read_until_closed(sock, timeout=20)
    report = (f"wrote {written} of {batches} batches ({stopped}); then {closing}; "
              f"RSS {rss.baseline / MIB:.1f} MiB before, {rss.peak / MIB:.1f} MiB at the peak")
    print(report)
    assert closing.closed, report
    assert closing.goaways, "the connection ended without a GOAWAY saying why: " + report
    assert proxy.proc.poll() is None, report + "\n" + proxy.stderr()[-3000:]
    if rss_checks_apply():
        assert rss.peak - rss.baseline < RSS_GROWTH, report
    still_serving(proxy, upstream)
    return closing


@pytest.mark.parametrize("filled", [False, True], ids=["empty", "filled"])
def test_a_continuation_flood_ends_the_connection(fresh_proxy, upstream, filled):
    authority = f"{UP}:{upstream.port}"
    block = request_block(hpack.Encoder(), authority, "/continuation-flood")
    first = frame(HEADERS, END_STREAM, 1, block)  # no END_HEADERS: CONTINUATION frames must follow
    if filled:  # each frame one more 1 KiB field (never indexed: every frame the same bytes)
        field = hpack.Encoder().encode([hpack.NeverIndexedHeaderTuple("x-flood", "f" * 1024)], huffman=False)
        batch, batches = frame(CONTINUATION, 0, 1, field) * 16, 4096  # up to 64 MiB of fields
    else:
        batch, batches = frame(CONTINUATION, 0, 1) * 1000, 100  # up to 100,000 empty frames
    flood_ends_the_connection(fresh_proxy, upstream, first, batch, batches)
    assert not [r for r in upstream.requests if r["path"] == "/continuation-flood"]


def test_a_rapid_reset_flood_ends_the_connection(fresh_proxy, upstream):
    authority = f"{UP}:{upstream.port}"
    encoder = hpack.Encoder()  # one encoder for the connection: its dynamic table is the proxy's view

    def pairs(i):  # 100 streams opened and cancelled per batch
        out = b""
        for n in range(100):
            sid = 1 + 2 * (i * 100 + n)
            out += frame(HEADERS, END_STREAM | END_HEADERS, sid, request_block(encoder, authority, "/rapid-reset"))
            out += frame(RST_STREAM, 0, sid, struct.pack("!I", CANCEL))
        return out

    flood_ends_the_connection(fresh_proxy, upstream, b"", pairs, 50)  # up to 5,000 streams


# Two sizes of flood: 100,000 frames, whose answers (0.9 and 1.7 MB) fit in loopback's
# socket buffers, so the proxy can answer them all; and up to 1,000,000, whose answers
# cannot: a proxy that goes on reading then queues them, one that stops reading stalls
# the flood (the writes stop for 5 s), and either way the connection must end.
FLOOD_SIZES = pytest.mark.parametrize("batches", [100, 1000], ids=["100k-frames", "1M-frames"])


@FLOOD_SIZES
def test_a_settings_flood_ends_the_connection(fresh_proxy, upstream, batches):
    batch = settings_frame([(SETTINGS_ENABLE_PUSH, 0)]) * 1000
    flood_ends_the_connection(fresh_proxy, upstream, b"", batch, batches)


@FLOOD_SIZES
def test_a_ping_flood_ends_the_connection(fresh_proxy, upstream, batches):
    batch = frame(PING, 0, 0, b"floodpng") * 1000
    flood_ends_the_connection(fresh_proxy, upstream, b"", batch, batches)


# 8. h2c stays refused.

PRIOR_KNOWLEDGE = PREFACE + settings_frame()


def test_h2c_prior_knowledge_on_the_proxy_port_is_refused(proxy, plain):
    before = plain.connections
    cursor = LogCursor(proxy)
    with socket.create_connection(proxy_address(proxy), timeout=15) as s:
        s.sendall(PRIOR_KNOWLEDGE)
        answer = read_until_close(s, 10)
    assert answer.startswith(b"HTTP/1.1 400 "), answer  # HTTP/1.1, never an h2 SETTINGS frame
    assert b"\r\nx-osf-refused-by: bad-request\r\n" in answer.lower(), answer
    line = cursor.wait(lambda l: l["outcome"] == "refused")[0]
    assert line["refusedBy"] == "bad-request" and line["status"] == 400 and "http" not in line, line
    assert plain.connections == before


def test_h2c_prior_knowledge_in_a_plain_tunnel_is_refused(proxy, plain):
    before = len(plain.requests)
    cursor = LogCursor(proxy)
    with open_tunnel(proxy, UP, plain.port, tls=False) as s:
        s.sendall(PRIOR_KNOWLEDGE)
        answer = read_until_close(s, 10)
    assert answer.startswith(b"HTTP/1.1 400 "), answer
    line = cursor.wait(lambda l: l["outcome"] == "refused")[0]
    assert line["refusedBy"] == "bad-request" and line["host"] == UP and line["port"] == plain.port, line
    assert "http" not in line, line
    # A real client doing the same: curl's prior knowledge inside a CONNECT tunnel gets no HTTP/2 answer.
    status, version, body, res = curl_h2(proxy, plain.url(UP, "/h2c-prior-knowledge"), "--proxytunnel",
                                         version="--http2-prior-knowledge")
    assert (status, version) == (0, "0") and res.returncode != 0, (res.stdout, res.stderr)
    def refusals():
        return [l for l in cursor.new() if l.get("port") == plain.port and l.get("refusedBy") == "bad-request"]

    wait_until(lambda: len(refusals()) >= 2, 30, "the second refusal's line")
    proxy.wait_connections_closed()
    assert len(refusals()) == 2, cursor.new()
    assert len(plain.requests) == before


@pytest.mark.parametrize("route", ["absolute-form", "plain-tunnel"])
def test_an_upgrade_to_h2c_is_served_as_http11_without_it(proxy, plain, route):
    path = f"/h2c-upgrade-{route}"
    args = ["-v"] + (["--proxytunnel"] if route == "plain-tunnel" else [])
    status, version, body, res = curl_h2(proxy, plain.url(UP, path), *args)  # curl asks for h2c on http://
    assert "> Upgrade: h2c" in res.stderr, res.stderr
    assert (status, version) == (200, "1.1"), res.stderr
    assert "< HTTP/1.1 101" not in res.stderr
    [sent] = [r for r in plain.requests if r["path"] == path]
    names = {k.lower() for k, v in sent["headers"]}
    assert "upgrade" not in names and "http2-settings" not in names, sent
    line = the_line(proxy, path)
    assert line["outcome"] == "allowed" and "http" not in line and "upgrade" not in line, line


def test_an_upgrade_to_h2c_inside_an_intercepted_tunnel_is_served_as_http11_without_it(proxy, upstream):
    with tls_tunnel(proxy, UP, upstream.port, alpn=("http/1.1",)) as t:
        assert t.selected_alpn_protocol() == "http/1.1"
        t.sendall((f"GET /h2c-upgrade-in-tls HTTP/1.1\r\nHost: {UP}:{upstream.port}\r\n"
                   "Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAAP__\r\n\r\n")
                  .encode())
        status, head, body = read_response(t)
    assert status == 200, head
    [sent] = [r for r in upstream.requests if r["path"] == "/h2c-upgrade-in-tls"]
    names = {k.lower() for k, v in sent["headers"]}
    assert "upgrade" not in names and "http2-settings" not in names, sent
    line = the_line(proxy, "/h2c-upgrade-in-tls")
    assert line["outcome"] == "allowed" and "http" not in line and "upgrade" not in line, line
