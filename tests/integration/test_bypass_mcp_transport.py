"""Bypass suite, MCP transport (issue 14): ways around the MCP filter below the
JSON-RPC layer. An upgrade of an MCP endpoint (a real WebSocket MCP-ish server
records every message it runs), trailer fields of a chunked MCP body, bodies
that end early (each exchange must still end in exactly one log line), and
path spellings an origin routes to the MCP endpoint.

MCP_ONLY is an MCP host only (every path on it is MCP traffic); MIXED is in
egress and has an MCP endpoint at /mcp."""
import asyncio
import base64
import json
import socket
import threading
import time

import pytest
import websockets

import os
import subprocess

from osftest import Proxy
from osftest.paths import repo
from test_bypass_smuggling import LogCursor, RawUpstream, open_tunnel, proxy_address, read_response

MCP_ONLY, MIXED, PLAIN = "mcp-only.transport.test", "mixed.transport.test", "plain.transport.test"
UNDECLARED = "delete_everything"


def assert_log_matches_the_schema(proxy):
    """Every line these tests made (new reasons and errors, cut fields included)
    is valid against the log contract."""
    validator = os.path.join(repo(), "tests", "tools", "ajv", "validate-jsonl.mjs")
    schema = os.path.join(repo(), "contracts", "egress-log.schema.json")
    out = subprocess.run(["node", validator, schema, proxy.log_path], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr


def call(name, id=1):
    return {"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": {}}}


class WebSocketMcpServer:
    """A WebSocket JSON-RPC server (as MCP SDKs ship) on 127.0.0.1 that runs
    every tools/call it gets and records it in `ran`; `handshakes` counts
    upgrade requests that reached it."""

    def __init__(self):
        self.ran, self.handshakes = [], 0
        self.loop = asyncio.new_event_loop()
        started = threading.Event()

        async def handler(ws, path=None):
            async for message in ws:
                m = json.loads(message)
                if m.get("method") == "tools/call":
                    self.ran.append(m["params"]["name"])
                await ws.send(json.dumps({"jsonrpc": "2.0", "id": m.get("id"), "result": {"ran": True}}))

        def process_request(path, headers):
            self.handshakes += 1
            return None

        async def process_request_async(path, headers):
            return process_request(path, headers)

        async def main():
            self.server = await websockets.serve(handler, "127.0.0.1", 0, process_request=process_request_async)
            self.port = self.server.sockets[0].getsockname()[1]
            started.set()
            await self.server.wait_closed()

        self.thread = threading.Thread(target=lambda: self.loop.run_until_complete(main()), daemon=True)
        self.thread.start()
        assert started.wait(10)

    def stop(self):
        self.loop.call_soon_threadsafe(self.server.close)
        self.thread.join(10)


def trailer_route(head, path, body):
    """JSON-RPC answers; `-trailers` ones come chunked with trailer fields."""
    data = json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "search"}, {"name": UNDECLARED}]}}).encode()
    if path.endswith(b"-trailers"):
        return (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n"
                b"Trailer: X-Injected\r\n\r\n%x\r\n%s\r\n0\r\nX-Injected: from-a-trailer\r\n"
                b"Connection: close\r\nSet-Cookie: trailer=1\r\n\r\n" % (len(data), data))
    if path.endswith(b"-huge"):  # a length no answer has: the proxy must not reserve it
        return b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 607710729717788763\r\n\r\n{}"
    if path.endswith(b"-two-te"):  # the parser reads the last coding, the header the first
        return (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: gzip\r\n"
                b"Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n")
    if path.endswith(b"-switch"):
        return (b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"
                b"\x81\x05frame")
    return (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(data) + data)


@pytest.fixture(scope="module")
def ws_server():
    s = WebSocketMcpServer()
    yield s
    s.stop()


@pytest.fixture(scope="module")
def server():
    with RawUpstream(route=trailer_route) as s:
        yield s


@pytest.fixture(scope="module")
def proxy(tmp_path_factory, ws_server, server):
    spec = {"template": "debian:12", "egress": [MIXED, PLAIN],
            "mcp": [{"name": "ws-only", "url": f"http://{MCP_ONLY}:{ws_server.port}/mcp", "tools": ["search"]},
                    {"name": "ws-mixed", "url": f"http://{MIXED}:{ws_server.port}/mcp", "tools": ["search"]},
                    {"name": "raw-mixed", "url": f"http://{MIXED}:{server.port}/mcp", "tools": ["search"]}]}
    with Proxy(spec, str(tmp_path_factory.mktemp("transport")),
               aliases={MCP_ONLY: "127.0.0.1", MIXED: "127.0.0.1", PLAIN: "127.0.0.1"}) as p:
        yield p
        assert_log_matches_the_schema(p)


def exchange(proxy, data, timeout=15):
    with socket.create_connection(proxy_address(proxy), timeout=timeout) as s:
        s.sendall(data)
        return read_response(s, timeout)


def one_line_for(cursor, path, timeout=30):
    """The single log line of the exchange for `path` (waits for it, then, once
    every connection has ended, makes sure no second one followed)."""
    cursor.wait(lambda l: l["path"] == path, timeout)
    cursor.proxy.wait_connections_closed()
    lines = [l for l in cursor.new() if l["path"] == path]
    assert len(lines) == 1, lines
    return lines[0]


# --- class 1: no upgrade of an MCP endpoint ------------------------------------------

KEY = base64.b64encode(b"0123456789abcdef").decode()
UPGRADES = {
    "websocket": ("GET", [f"Upgrade: websocket", "Connection: Upgrade", f"Sec-WebSocket-Key: {KEY}",
                          "Sec-WebSocket-Version: 13"]),
    "h2c, websocket": ("GET", ["Upgrade: h2c, websocket", "Connection: Upgrade, HTTP2-Settings",
                               "HTTP2-Settings: AAMAAABkAAQAAP__", f"Sec-WebSocket-Key: {KEY}",
                               "Sec-WebSocket-Version: 13"]),
    "h2c": ("GET", ["Upgrade: h2c", "Connection: Upgrade, HTTP2-Settings", "HTTP2-Settings: AAMAAABkAAQAAP__"]),
    "POST websocket": ("POST", ["Upgrade: websocket", "Connection: upgrade", f"Sec-WebSocket-Key: {KEY}",
                                "Sec-WebSocket-Version: 13", "Content-Length: 0"]),
    "Upgrade without Connection": ("GET", ["Upgrade: websocket", f"Sec-WebSocket-Key: {KEY}",
                                           "Sec-WebSocket-Version: 13"]),
    "Connection: upgrade alone": ("GET", ["Connection: keep-alive, UPGRADE"]),
    "upper-case WEBSOCKET, folded token list": ("GET", ["Upgrade: foo/1, WEBSOCKET", "Connection: close,upgrade",
                                                         f"Sec-WebSocket-Key: {KEY}", "Sec-WebSocket-Version: 13"]),
}
WHERE = {"MCP-only host, /mcp": (MCP_ONLY, "/mcp"), "MCP-only host, another path": (MCP_ONLY, "/ws"),
         "mixed host, /mcp": (MIXED, "/mcp"), "mixed host, /MCP/x": (MIXED, "/MCP/x"),
         "mixed host, /x/../mcp": (MIXED, "/x/../mcp")}


@pytest.mark.parametrize("where", sorted(WHERE))
@pytest.mark.parametrize("kind", sorted(UPGRADES))
def test_an_upgrade_of_an_mcp_endpoint_is_refused_before_the_server(proxy, ws_server, kind, where):
    host, path = WHERE[where]
    method, fields = UPGRADES[kind]
    before = ws_server.handshakes
    cursor = LogCursor(proxy)
    status, head, body = exchange(proxy, (f"{method} http://{host}:{ws_server.port}{path} HTTP/1.1\r\n"
                                          f"Host: {host}:{ws_server.port}\r\n" + "\r\n".join(fields) +
                                          "\r\n\r\n").encode())
    assert status == 403, head
    assert b"X-Osf-Refused-By: mcp-upgrade" in head
    line = one_line_for(cursor, path)
    assert line["outcome"] == "refused" and line["refusedBy"] == "mcp-upgrade" and "upgrade" not in line
    assert ws_server.handshakes == before and not ws_server.ran


def test_an_upgrade_inside_a_tunnel_is_refused_too(proxy, ws_server):
    before = ws_server.handshakes
    with open_tunnel(proxy, MIXED, ws_server.port, tls=False) as s:
        s.sendall((f"GET /mcp HTTP/1.1\r\nHost: {MIXED}:{ws_server.port}\r\nUpgrade: websocket\r\n"
                   f"Connection: Upgrade\r\nSec-WebSocket-Key: {KEY}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        status, head, _ = read_response(s)
    assert status == 403, head
    assert ws_server.handshakes == before


def masked_text_frame(text):
    data = text.encode()
    assert len(data) < 126
    return bytes([0x81, 0x80 | len(data)]) + b"\0\0\0\0" + data  # mask key 0: the payload as is


def test_a_websocket_off_the_mcp_path_of_an_mcp_host_is_refused(proxy, ws_server):
    # Issue 41: /ws on the mixed host reaches the same server, which would run the
    # call there; an upgrade on a host where an MCP server lives is in doubt: MCP.
    before = ws_server.handshakes
    status, head, body = exchange(proxy, (f"GET http://{MIXED}:{ws_server.port}/ws HTTP/1.1\r\n"
                                          f"Host: {MIXED}:{ws_server.port}\r\nUpgrade: websocket\r\n"
                                          f"Connection: Upgrade\r\nSec-WebSocket-Key: {KEY}\r\n"
                                          "Sec-WebSocket-Version: 13\r\n\r\n").encode())
    assert status == 403 and b"X-Osf-Refused-By: mcp-upgrade" in head, head
    assert ws_server.handshakes == before


def test_the_control_a_websocket_to_a_host_without_mcp_is_relayed(proxy, ws_server):
    # The same server on a plain egress host runs the call: what the refusals above
    # keep from the MCP host.
    with socket.create_connection(proxy_address(proxy), timeout=15) as s:
        s.sendall((f"GET http://{PLAIN}:{ws_server.port}/ws HTTP/1.1\r\nHost: {PLAIN}:{ws_server.port}\r\n"
                   f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {KEY}\r\n"
                   "Sec-WebSocket-Version: 13\r\n\r\n").encode())
        data = b""
        while b"\r\n\r\n" not in data:
            data += s.recv(4096)
        assert data.startswith(b"HTTP/1.1 101"), data
        s.sendall(masked_text_frame(json.dumps(call("search"))))
        deadline = time.monotonic() + 10
        while not ws_server.ran and time.monotonic() < deadline:
            time.sleep(0.05)
    assert ws_server.ran == ["search"]
    ws_server.ran.clear()


def test_an_unasked_101_from_an_mcp_server_is_never_relayed(proxy, server):
    cursor = LogCursor(proxy)
    body = json.dumps(call("search")).encode()
    status, head, rest = exchange(proxy, (f"POST http://{MIXED}:{server.port}/mcp/x-switch HTTP/1.1\r\n"
                                          f"Host: {MIXED}:{server.port}\r\nContent-Type: application/json\r\n"
                                          "Accept: application/json, text/event-stream\r\n"
                                          f"Content-Length: {len(body)}\r\n\r\n").encode() + body)
    assert status == 502, head
    assert b"frame" not in rest
    line = one_line_for(cursor, "/mcp/x-switch")
    assert line["outcome"] == "error" and line["error"] == "upstream-protocol"


# --- class 2: trailers on the MCP path -----------------------------------------------

def chunked_post(host, port, path, body, trailers):
    return (f"POST http://{host}:{port}{path} HTTP/1.1\r\nHost: {host}:{port}\r\n"
            "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
            "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n").encode() + \
        b"%x\r\n%s\r\n0\r\n" % (len(body), body) + "".join(t + "\r\n" for t in trailers).encode() + b"\r\n"


@pytest.mark.parametrize("trailers", [
    ["Host: evil.example"],
    ["Proxy-Authorization: Basic eDp5"],
    ["Connection: Upgrade", "Upgrade: websocket"],
    ["X-Anything: 1"],
    ["Content-Length: 5"],
])
def test_trailer_fields_of_an_mcp_request_are_refused(proxy, server, trailers):
    before = len(server.heads)
    cursor = LogCursor(proxy)
    status, head, _ = exchange(proxy, chunked_post(MIXED, server.port, "/mcp", json.dumps(call("search")).encode(),
                                                   trailers))
    assert status == 400, head
    line = one_line_for(cursor, "/mcp")
    assert line["refusedBy"] == "bad-request"
    assert len(server.heads) == before


def test_a_chunked_mcp_request_without_trailers_passes(proxy, server):
    before = len(server.heads)
    status, head, body = exchange(proxy, chunked_post(MIXED, server.port, "/mcp", json.dumps(call("search")).encode(), []))
    assert status == 200, head
    assert len(server.heads) == before + 1


def test_trailer_fields_of_an_mcp_answer_never_reach_the_sandbox(proxy, server):
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).encode()
    status, head, answer = exchange(proxy, (f"POST http://{MIXED}:{server.port}/mcp/x-trailers HTTP/1.1\r\n"
                                            f"Host: {MIXED}:{server.port}\r\nContent-Type: application/json\r\n"
                                            "Accept: application/json, text/event-stream\r\n"
                                            f"Content-Length: {len(body)}\r\n\r\n").encode() + body)
    assert status == 200, head
    assert b"X-Injected" not in head and b"trailer=1" not in head and b"Trailer:" not in head
    assert UNDECLARED.encode() not in answer and b"search" in answer


# --- class 3: an MCP exchange that ends early still has its one line ------------------

def test_a_bad_chunk_size_in_an_mcp_body_is_answered_and_logged(proxy, server):
    before = len(server.heads)
    cursor = LogCursor(proxy)
    status, head, _ = exchange(proxy, (f"POST http://{MIXED}:{server.port}/mcp HTTP/1.1\r\nHost: {MIXED}:{server.port}\r\n"
                                       "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                                       "zz\r\n{}\r\n0\r\n\r\n").encode())
    assert status == 400, head
    line = one_line_for(cursor, "/mcp")
    assert line["outcome"] == "refused" and line["refusedBy"] == "bad-request"
    assert len(server.heads) == before


@pytest.mark.parametrize("framing", ["content-length", "chunked"])
def test_a_client_leaving_mid_mcp_body_leaves_a_client_closed_line(proxy, server, framing):
    before = len(server.heads)
    cursor = LogCursor(proxy)
    head = (f"POST http://{MIXED}:{server.port}/mcp HTTP/1.1\r\nHost: {MIXED}:{server.port}\r\n"
            "Content-Type: application/json\r\n")
    head += "Content-Length: 500\r\n\r\n" if framing == "content-length" else "Transfer-Encoding: chunked\r\n\r\n40\r\n"
    with socket.create_connection(proxy_address(proxy), timeout=15) as s:
        s.sendall(head.encode() + b'{"jsonrpc":"2.0"')
        s.shutdown(socket.SHUT_WR)
        s.settimeout(15)
        assert s.recv(4096) == b""  # no answer: the client has gone
    line = one_line_for(cursor, "/mcp")
    assert line["outcome"] == "error" and line["error"] == "client-closed" and line["status"] == 0
    assert len(server.heads) == before


def test_an_mcp_body_over_the_limit_and_a_refused_call_each_have_one_line(proxy, server):
    cursor = LogCursor(proxy)
    body = json.dumps(call(UNDECLARED)).encode()
    status, head, _ = exchange(proxy, (f"POST http://{MIXED}:{server.port}/mcp HTTP/1.1\r\nHost: {MIXED}:{server.port}\r\n"
                                       "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
                                       f"Content-Length: {len(body)}\r\n\r\n").encode() + body)
    assert status == 200
    line = one_line_for(cursor, "/mcp")
    assert line["refusedBy"] == "mcp-tool" and line["tool"] == UNDECLARED


@pytest.mark.parametrize("length", ["607710729717788763", "18446744073709551615", "4294967296"])
def test_an_mcp_content_length_over_the_limit_is_refused_before_the_body(proxy, server, length):
    # The proxy once reserved whatever the head said (fuzz-mcp_body): an answer
    # comes at once, without the body, and the server gets nothing.
    before = len(server.heads)
    cursor = LogCursor(proxy)
    status, head, _ = exchange(proxy, (f"POST http://{MIXED}:{server.port}/mcp HTTP/1.1\r\nHost: {MIXED}:{server.port}\r\n"
                                       f"Content-Type: application/json\r\nContent-Length: {length}\r\n\r\n{{}}").encode())
    assert status == 413, head
    assert one_line_for(cursor, "/mcp")["refusedBy"] == "mcp-unreadable"
    assert len(server.heads) == before


def test_an_mcp_answer_with_a_huge_content_length_is_refused(proxy, server):
    cursor = LogCursor(proxy)
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).encode()
    status, head, _ = exchange(proxy, (f"POST http://{MIXED}:{server.port}/mcp/x-huge HTTP/1.1\r\n"
                                       f"Host: {MIXED}:{server.port}\r\nContent-Type: application/json\r\n"
                                       "Accept: application/json, text/event-stream\r\n"
                                       f"Content-Length: {len(body)}\r\n\r\n").encode() + body)
    assert status == 502, head
    assert one_line_for(cursor, "/mcp/x-huge")["refusedBy"] == "mcp-unreadable"


@pytest.mark.parametrize("path", ["/mcp/x-two-te", "/plain-two-te"])
def test_an_answer_with_two_transfer_encodings_is_an_upstream_error(proxy, server, path):
    cursor = LogCursor(proxy)
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).encode()
    status, head, _ = exchange(proxy, (f"POST http://{MIXED}:{server.port}{path} HTTP/1.1\r\n"
                                       f"Host: {MIXED}:{server.port}\r\nContent-Type: application/json\r\n"
                                       "Accept: application/json, text/event-stream\r\n"
                                       f"Content-Length: {len(body)}\r\n\r\n").encode() + body)
    assert status == 502, head
    line = one_line_for(cursor, path)
    assert line["outcome"] == "error" and line["error"] == "upstream-protocol"


# --- class 6: path spellings an origin routes to /mcp ------------------------------------

AMBIGUOUS = ["/mcp%2f", "/mcp%2F", "/x/..%2fmcp", "/mcp%00", "/mcp%5c", "/mcp%5C", "/x%2f..%2fmcp",
             "/mcp%252f", "/mcp\\", "/x\\..\\mcp", "/mcp%", "/mcp%0a", "//mcp"]
ROUTED = ["/mcp.", "/MCP", "/mcp;x=1", "/%6dcp", "/x/../mcp", "/mcp%20", "/./mcp", "/mcp..",
          "/%2e%2e/mcp", "/x/%2E%2E/mcp", "/m%63p/", "/mcp;/x", "/mcp%3b/"]


@pytest.mark.parametrize("path", AMBIGUOUS)
def test_a_path_with_no_single_reading_is_refused_on_an_mcp_host(proxy, server, path):
    before = len(server.heads)
    body = json.dumps(call(UNDECLARED)).encode()
    cursor = LogCursor(proxy)
    status, head, _ = exchange(proxy, (f"POST http://{MIXED}:{server.port}{path} HTTP/1.1\r\nHost: {MIXED}:{server.port}\r\n"
                                       f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n").encode() + body)
    assert status == 400, head
    assert cursor.wait(lambda l: l["outcome"] == "refused")[0]["refusedBy"] == "bad-request"
    assert len(server.heads) == before


@pytest.mark.parametrize("path", ROUTED)
def test_a_spelling_of_the_mcp_path_is_inspected(proxy, server, path):
    before = len(server.heads)
    body = json.dumps(call(UNDECLARED)).encode()
    cursor = LogCursor(proxy)
    status, head, answer = exchange(proxy, (f"POST http://{MIXED}:{server.port}{path} HTTP/1.1\r\nHost: {MIXED}:{server.port}\r\n"
                                            "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
                                            f"Content-Length: {len(body)}\r\n\r\n").encode() + body)
    assert status == 200 and b"error" in answer, head + answer
    line = cursor.wait(lambda l: l["outcome"] == "refused")[0]
    assert line["refusedBy"] == "mcp-tool" and line["mcpServer"] == "raw-mixed"
    assert len(server.heads) == before


@pytest.mark.parametrize("target", ["/x#/../mcp", "/mcp#", "/ok\\..\\mcp"])
def test_a_fragment_or_backslash_in_a_tunnel_target_is_refused(proxy, server, target):
    before = len(server.heads)
    with open_tunnel(proxy, MIXED, server.port, tls=False) as s:
        s.sendall((f"GET {target} HTTP/1.1\r\nHost: {MIXED}:{server.port}\r\nConnection: close\r\n\r\n").encode())
        status, head, _ = read_response(s)
    assert status == 400, head
    assert len(server.heads) == before


# --- class 7: logged fields a client controls are bounded ---------------------------------

def test_a_huge_refused_tool_name_is_logged_cut(proxy, server):
    cursor = LogCursor(proxy)
    name = "t" * 200_000
    body = json.dumps(call(name)).encode()
    status, head, _ = exchange(proxy, (f"POST http://{MIXED}:{server.port}/mcp HTTP/1.1\r\nHost: {MIXED}:{server.port}\r\n"
                                       "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
                                       f"Content-Length: {len(body)}\r\n\r\n").encode() + body)
    assert status == 200, head
    line = one_line_for(cursor, "/mcp")
    assert line["refusedBy"] == "mcp-tool"
    assert len(line["tool"].encode()) <= 1024 and line["tool"].endswith("[cut]")
    assert line["tool"].startswith("tttt")
