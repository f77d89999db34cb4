"""Bypass suite, ceilings and exceptions (issue 26, classes 1, 4 and 5): every buffer
the proxy fills from the network has a ceiling, and going past one ends the exchange
with a refusal or error line of its own reason, never with unbounded memory or a
dropped connection and an `aborted` line. Floods are bounded (a few MiB each) and
stop as soon as the proxy ends the exchange; memory under many floods at once is
test_memory_ceiling.py's."""
import json
import socket
import time

import pytest

from osftest import Proxy, TestCA
from osftest.upstream import RawServer
from osftest.waiting import wait_until
from test_bypass_smuggling import LogCursor, RawUpstream, open_tunnel, proxy_address, read_response, tls_server_context

API, FLOOD, MCP = "api.ceil.test", "flood.ceil.test", "mcp.ceil.test"
BIG = "B" * (32 * 1024)  # a 32 KiB secret value
SHORT = "abcd"           # shorter than its placeholder
PLACEHOLDER_BIG = "osf-secret-placeholder-BIG"
FLOOD_BYTES = 8 * 1024 * 1024  # far past every ceiling (a head plus 64 KiB)


class FloodUpstream(RawServer):
    """An HTTP server whose answers never end their framing: a chunk-size line with
    endless extensions, or a trailer section that never ends, up to FLOOD_BYTES.
    `/mcp` answers as an MCP server's event stream would start. `/stall-json` sends a
    JSON head and part of its body, then nothing."""

    def __init__(self):
        self.sent = {}
        super().__init__()

    def serve(self, conn):
        with conn:
            conn.settimeout(30)
            data = b""
            while b"\r\n\r\n" not in data:
                more = conn.recv(65536)
                if not more:
                    return
                data += more
            path = data.split(b" ")[1].decode()
            path = path[path.find("/", path.find("//") + 2):] if path.startswith("http") else path
            kind = "text/event-stream" if "sse" in path else "application/json"
            if "stall-json" in path:
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{")
                time.sleep(10)
                return
            head = f"HTTP/1.1 200 OK\r\nContent-Type: {kind}\r\nTransfer-Encoding: chunked\r\n\r\n".encode()
            if "trailers" in path:
                start, piece = b"2\r\n{}\r\n0\r\n", b"X-Trailer: " + b"t" * 1000 + b"\r\n"
            else:
                start, piece = b"1;ext=", b"e" * 4096
            sent = 0
            try:
                conn.sendall(head + start)
                while sent < FLOOD_BYTES:
                    conn.sendall(piece)
                    sent += len(piece)
            except OSError:
                pass
            self.sent[path] = sent


def api_route(head, path, body):
    if path.startswith(b"/echo-short"):
        # An echo of the short value many times over: masked, each becomes its longer placeholder.
        return b"HTTP/1.1 200 OK\r\nX-Echo: " + SHORT.encode() * 15000 + b"\r\nContent-Length: 0\r\n\r\n"
    return None


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    ca = TestCA(str(tmp_path_factory.mktemp("ceil-ca")))
    api = RawUpstream(tls=tls_server_context(ca, [API]), route=api_route)
    flood = FloodUpstream()
    mcp = RawUpstream()
    spec = {"template": "debian:12", "egress": [API, FLOOD],
            "secrets": {"BIG": "ref:env/BIG", "SHORT": "ref:env/SHORT"},
            "mcp": [{"name": "tools", "url": f"http://{MCP}:{mcp.port}/mcp", "tools": ["search"]},
                    {"name": "flood", "url": f"http://{FLOOD}:{flood.port}/mcp-sse", "tools": ["search"]}]}
    with Proxy(spec, str(tmp_path_factory.mktemp("ceil")), upstream_ca=ca.cert_path,
               aliases={API: "127.0.0.1", FLOOD: "127.0.0.1", MCP: "127.0.0.1"},
               env={"OSF_SECRET_BIG": BIG, "OSF_SECRET_SHORT": SHORT},
               args=["--idle-timeout", "3"]) as p:
        yield {"proxy": p, "api": api, "flood": flood, "mcp": mcp}
        assert BIG not in p.stderr() + p.stdout()
    for s in (api, mcp, flood):
        s.stop()


def flood_request(proxy, head, start, piece, limit=FLOOD_BYTES):
    """Sends a head and then `piece` over and over until the proxy answers or closes.
    Returns (status, bytes sent)."""
    with socket.create_connection(proxy_address(proxy), timeout=20) as s:
        s.sendall(head + start)
        sent = 0
        try:
            while sent < limit:
                s.sendall(piece)
                sent += len(piece)
        except OSError:
            pass
        status, answer_head, _ = read_response(s, timeout=10)
        return status, sent


def chunked_head(host, port, path, extra=""):
    return (f"POST http://{host}:{port}{path} HTTP/1.1\r\nHost: {host}:{port}\r\n"
            f"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n{extra}\r\n").encode()


@pytest.mark.parametrize("where", ["plain", "mcp"])
@pytest.mark.parametrize("what", ["chunk-line", "trailers"])
def test_a_request_chunk_line_or_trailer_section_that_never_ends_is_refused(env, where, what):
    proxy = env["proxy"]
    host, port = (FLOOD, env["flood"].port) if where == "plain" else (MCP, env["mcp"].port)
    path = "/upload" if where == "plain" else "/mcp"
    start, piece = ((b"1;ext=", b"e" * 4096) if what == "chunk-line" else
                    (b"2\r\n{}\r\n0\r\n", b"X-Trailer: " + b"t" * 1000 + b"\r\n"))
    cursor = LogCursor(proxy)
    status, sent = flood_request(proxy, chunked_head(host, port, path), start, piece)
    line = cursor.wait(lambda l: l.get("path") == path and l.get("method") == "POST")[0]
    assert sent < FLOOD_BYTES, "the proxy read the whole flood"
    if where == "plain" or what == "chunk-line":
        assert status == 413, status
        assert line["outcome"] == "refused" and line["refusedBy"] == "limit", line
    else:
        # An MCP message's trailers: refused as soon as its end is read, or at the ceiling.
        assert status in (400, 413), status
        assert line["outcome"] == "refused" and line["refusedBy"] in ("limit", "bad-request"), line


@pytest.mark.parametrize("path", ["/answer-chunk-line", "/answer-trailers", "/mcp-sse"])
def test_an_answer_chunk_line_or_trailer_section_that_never_ends_is_an_error_of_its_own(env, path):
    proxy, flood = env["proxy"], env["flood"]
    cursor = LogCursor(proxy)
    method = "POST" if path.startswith("/mcp") else "GET"
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}) if method == "POST" else ""
    with socket.create_connection(proxy_address(proxy), timeout=20) as s:
        s.sendall((f"{method} http://{FLOOD}:{flood.port}{path} HTTP/1.1\r\nHost: {FLOOD}:{flood.port}\r\n"
                   "Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n"
                   f"Content-Length: {len(body)}\r\n\r\n{body}").encode())
        s.settimeout(20)
        received = b""
        try:
            while len(received) < FLOOD_BYTES:
                more = s.recv(65536)
                if not more:
                    break
                received += more
        except OSError:
            pass
    line = cursor.wait(lambda l: l.get("path") == path)[0]
    assert line["outcome"] == "error" and line["error"] == "upstream-limit", line
    assert len(received) < 1024 * 1024, len(received)
    wait_until(lambda: path in flood.sent, 30, "the flood server to count what it sent")
    assert flood.sent[path] < FLOOD_BYTES, "the proxy read the whole flood"


def admin_flood(proxy, limit=FLOOD_BYTES):
    """A chunk-size line that never ends, sent to the admin port; the bytes it took."""
    host, port = proxy.admin.rsplit(":", 1)
    sent = 0
    with socket.create_connection((host, int(port)), timeout=20) as s:
        s.sendall(b"POST /metrics HTTP/1.1\r\nHost: admin\r\nTransfer-Encoding: chunked\r\n\r\n1;")
        try:
            while sent < limit:
                s.sendall(b"e" * 4096)
                sent += 4096
        except OSError:
            pass
    return sent


def test_the_admin_port_ends_a_request_that_never_ends(env):
    assert admin_flood(env["proxy"]) < FLOOD_BYTES, "the admin port read the whole flood"


def test_a_head_that_grows_past_its_ceiling_by_substitution_is_refused(env):
    proxy, api = env["proxy"], env["api"]
    before = len(api.heads)
    cursor = LogCursor(proxy)
    fields = "".join(f"X-F{i}: {PLACEHOLDER_BIG}\r\n" for i in range(1500))  # ~50 KB in, ~48 MiB out
    with open_tunnel(proxy, API, api.port) as s:
        s.sendall(f"GET /many HTTP/1.1\r\nHost: {API}:{api.port}\r\n{fields}\r\n".encode())
        status, head, body = read_response(s)
    assert status == 431, head + body
    assert b"once secrets are substituted" in body, body
    line = cursor.wait(lambda l: l.get("path") == "/many")[0]
    assert line["outcome"] == "refused" and line["refusedBy"] == "limit", line
    assert len(api.heads) == before


def test_a_field_over_64_kib_after_substitution_is_refused_not_dropped(env):
    proxy, api = env["proxy"], env["api"]
    cursor = LogCursor(proxy)
    with open_tunnel(proxy, API, api.port) as s:
        s.sendall(f"GET /one HTTP/1.1\r\nHost: {API}:{api.port}\r\n"
                  f"Authorization: Bearer {PLACEHOLDER_BIG}{PLACEHOLDER_BIG}{PLACEHOLDER_BIG}\r\n\r\n".encode())
        status, head, body = read_response(s)
    assert status == 431, head + body
    lines = cursor.wait(lambda l: l.get("path") == "/one")
    assert lines[0]["outcome"] == "refused" and lines[0]["refusedBy"] == "limit", lines
    proxy.wait_connections_closed()
    assert not [l for l in cursor.new() if l.get("error") == "aborted"], cursor.new()


def test_an_echo_whose_masked_field_would_outgrow_its_limit_is_refused(env):
    proxy, api = env["proxy"], env["api"]
    cursor = LogCursor(proxy)
    with open_tunnel(proxy, API, api.port) as s:
        s.sendall(f"GET /echo-short HTTP/1.1\r\nHost: {API}:{api.port}\r\n"
                  f"X-Token: osf-secret-placeholder-SHORT\r\n\r\n".encode())
        status, head, body = read_response(s)
    assert status == 502, head + body
    assert SHORT.encode() * 2 not in head + body
    line = cursor.wait(lambda l: l.get("path") == "/echo-short")[0]
    assert line.get("refusedBy") == "secret-echo", json.dumps(line)
    proxy.wait_connections_closed()
    assert not [l for l in cursor.new() if l.get("error") == "aborted"], cursor.new()


def mcp_post(env, extra, body, method="POST", chunked=False):
    proxy, mcp = env["proxy"], env["mcp"]
    payload = (b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body)) if chunked else body
    framing = "" if chunked else f"Content-Length: {len(body)}\r\n"
    with socket.create_connection(proxy_address(proxy), timeout=15) as s:
        s.sendall((f"{method} http://{MCP}:{mcp.port}/mcp HTTP/1.1\r\nHost: {MCP}:{mcp.port}\r\n"
                   "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
                   f"{framing}{extra}\r\n").encode() + payload)
        return read_response(s)


CALL = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                   "params": {"name": "delete_everything", "arguments": {}}}).encode()


@pytest.mark.parametrize("case", ["trace with a body", "gzip, chunked", "two content-encodings"])
def test_mcp_messages_the_upstream_could_read_otherwise_are_answered_and_refused(env, case):
    mcp = env["mcp"]
    before = len(mcp.bodies)
    cursor = LogCursor(env["proxy"])
    if case == "trace with a body":
        status, head, body = mcp_post(env, "", CALL, method="TRACE")
    elif case == "gzip, chunked":
        status, head, body = mcp_post(env, "Transfer-Encoding: gzip, chunked\r\n", CALL, chunked=True)
    else:
        status, head, body = mcp_post(env, "Content-Encoding: identity\r\nContent-Encoding: gzip\r\n", CALL)
    assert status == 400, head + body
    line = cursor.wait(lambda l: l.get("path") == "/mcp")[0]
    assert line["outcome"] == "refused" and line["refusedBy"] == "bad-request", line
    assert len(mcp.bodies) == before


def test_a_trace_with_a_body_in_a_tunnel_has_one_line_and_no_aborted_connect(env):
    proxy, mcp = env["proxy"], env["mcp"]
    cursor = LogCursor(proxy)
    with open_tunnel(proxy, MCP, mcp.port, tls=False) as s:
        s.sendall((f"TRACE /mcp HTTP/1.1\r\nHost: {MCP}:{mcp.port}\r\nContent-Type: application/json\r\n"
                   f"Content-Length: {len(CALL)}\r\n\r\n").encode() + CALL)
        status, head, body = read_response(s)
    assert status == 400, head + body
    cursor.wait(lambda l: l.get("method") == "TRACE")
    proxy.wait_connections_closed()
    assert [l.get("error") for l in cursor.new() if l.get("method") == "CONNECT"] == [], cursor.new()


def test_an_mcp_answer_that_stalls_is_a_timeout_as_on_the_plain_path(env):
    """One mapping from a failed read to the log's error: an answer body that stalls past
    --idle-timeout is `upstream-timeout` on the MCP path as on the plain one (it was
    `upstream-reset` and 502 there)."""
    proxy, flood = env["proxy"], env["flood"]
    cursor = LogCursor(proxy)
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    for method, path in (("GET", "/stall-json"), ("POST", "/mcp-sse/stall-json")):
        with socket.create_connection(proxy_address(proxy), timeout=20) as s:
            s.sendall((f"{method} http://{FLOOD}:{flood.port}{path} HTTP/1.1\r\nHost: {FLOOD}:{flood.port}\r\n"
                       "Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n"
                       f"Content-Length: {len(body) if method == 'POST' else 0}\r\n\r\n"
                       f"{body if method == 'POST' else ''}").encode())
            status, head, _ = read_response(s, timeout=15)
        line = cursor.wait(lambda l, p=path: l.get("path") == p, timeout=15)[0]
        assert line["outcome"] == "error" and line["error"] == "upstream-timeout", line
        if method == "POST":
            assert status == 504, head
