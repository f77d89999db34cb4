"""The proxy's memory under floods on many connections at once (issue 26, class 1):
one flood per buffer the proxy fills from the network (a request's chunk-size line and
trailer section on the plain and MCP paths, an answer's chunk-size line and trailers,
an MCP event stream's, the admin port's), 24 connections at a time, each flood up to
16 MiB. The proxy's RSS stays under egress-proxy/README.md's formula for that many
connections (each: two read buffers of --max-header-bytes + 64 KiB, a 64 KiB relay
buffer, TLS and allocator overhead) over its baseline. Before the ceilings each flood
was buffered whole (128 MiB on one connection took it from 13 to 275 MiB).

HTTP/2 (issue 32): 24 HTTP/2 connections, each with its --h2-max-streams streams at
once, every stream with a header list near --max-header-bytes and either a request
body filling its window to an upstream that stops reading, or an endless answer the
client never reads. The RSS stays under the formula per stream (an HTTP/1.1
connection's, plus the stream's window, its answer queue and its header list's three
forms) times the streams.

Issue 41, class 4: one MCP message read whole costs at most MESSAGE_FACTOR times its
bytes (the README's formula), whatever its shape: a batch of a million empty objects,
an array of a million zeros, an object of many keys (plain and escaped), an id that is
a large object. Before, a 4 MiB batch of 1.4 million empty objects took 13 to 245 MiB."""
import concurrent.futures
import json
import socket
import ssl
import threading
import time

import h2.config
import h2.connection
import pytest

from test_bypass_ceilings import FLOOD, MCP, admin_flood, chunked_head, env, flood_request  # noqa: F401 (fixture)
from osftest import Proxy, TestCA
from osftest.h2 import tls_tunnel
from osftest.proxy import rss_bytes
from osftest.waiting import scaled
from test_bypass_smuggling import proxy_address, tls_server_context

FLOOD_BYTES = 16 * 1024 * 1024
CONNECTIONS = 24
READ_BUFFER = 64 * 1024 + 64 * 1024  # --max-header-bytes (default) + one read
PER_CONNECTION = 2 * READ_BUFFER + 64 * 1024 + 160 * 1024  # + relay buffer + TLS/allocator
SLACK = 24 * 1024 * 1024  # allocator arenas, the log writer, Python's view of RSS



def answer_flood(env, path):
    flood = env["flood"]
    method = "POST" if path.startswith("/mcp") else "GET"
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}) if method == "POST" else ""
    with socket.create_connection(proxy_address(env["proxy"]), timeout=30) as s:
        s.sendall((f"{method} http://{FLOOD}:{flood.port}{path} HTTP/1.1\r\nHost: {FLOOD}:{flood.port}\r\n"
                   "Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n"
                   f"Content-Length: {len(body)}\r\n\r\n{body}").encode())
        s.settimeout(30)
        received = 0
        try:
            while received < FLOOD_BYTES:
                more = s.recv(65536)
                if not more:
                    break
                received += len(more)
        except OSError:
            pass
        return received


def floods(env):
    proxy = env["proxy"]
    plain = chunked_head(FLOOD, env["flood"].port, "/upload")
    mcp = chunked_head(MCP, env["mcp"].port, "/mcp")
    line, trailers = (b"1;ext=", b"e" * 4096), (b"2\r\n{}\r\n0\r\n", b"X-Trailer: " + b"t" * 1000 + b"\r\n")
    return [
        lambda: flood_request(proxy, plain, *line, limit=FLOOD_BYTES)[1],
        lambda: flood_request(proxy, plain, *trailers, limit=FLOOD_BYTES)[1],
        lambda: flood_request(proxy, mcp, *line, limit=FLOOD_BYTES)[1],
        lambda: flood_request(proxy, mcp, *trailers, limit=FLOOD_BYTES)[1],
        lambda: answer_flood(env, "/answer-chunk-line"),
        lambda: answer_flood(env, "/answer-trailers"),
        lambda: answer_flood(env, "/mcp-sse"),
        lambda: admin_flood(proxy, FLOOD_BYTES),
    ]


def test_rss_stays_under_the_formula_while_floods_run_on_many_connections(env):
    proxy = env["proxy"]
    kinds = floods(env)
    # Warm up: one of each, so that pools, arenas and the log writer exist before the baseline.
    for flood in kinds:
        flood()
    proxy.wait_connections_closed()  # the warm-up's connections are not in the baseline
    baseline = rss_bytes(proxy.pid)
    peak = baseline
    stop = threading.Event()

    def sample():
        nonlocal peak
        while not stop.is_set():
            peak = max(peak, rss_bytes(proxy.pid))
            time.sleep(0.02)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    with concurrent.futures.ThreadPoolExecutor(max_workers=CONNECTIONS) as pool:
        jobs = [pool.submit(kinds[i % len(kinds)]) for i in range(CONNECTIONS * 3)]
        moved = [j.result(timeout=scaled(120)) for j in jobs]
    stop.set()
    sampler.join()
    bound = baseline + CONNECTIONS * PER_CONNECTION + SLACK
    print(f"memory ceiling: baseline {baseline >> 10} KiB, peak {peak >> 10} KiB, bound {bound >> 10} KiB, "
          f"moved at most {max(moved)} bytes per flood")
    assert peak <= bound, (f"VmRSS {baseline >> 20} MiB before, {peak >> 20} MiB peak, "
                           f"bound {bound >> 20} MiB for {CONNECTIONS} connections")
    # Each flood was cut short by the proxy, not read whole.
    assert max(moved) < FLOOD_BYTES, moved


H2_STREAMS = 8  # --h2-max-streams for this test
H2_HOST = "h2flood.test"
HEADER_FIELDS = [("x-fill-%d" % i, "h" * 6000) for i in range(10)]  # about 60 KiB decoded
# Per stream: an HTTP/1.1 connection's ceiling, the stream's window (64 KiB), its
# answer queue (64 KiB), and its header list three times (as decoded, as the
# HTTP/1.1 head, as Beast's parsed fields).
PER_STREAM = PER_CONNECTION + 64 * 1024 + 64 * 1024 + 3 * 64 * 1024


class StallingUpstream:
    """An HTTPS server that reads a request's head and then never reads again: an
    upload stalls; `/answer-flood` gets an endless chunked answer (up to 16 MiB per
    stream, while the proxy reads it). Stops when stop() is called."""

    def __init__(self, ca):
        self.ctx = tls_server_context(ca, [H2_HOST])
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(512)
        self.port = self.sock.getsockname()[1]
        self.stopping = threading.Event()
        self.connections = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while not self.stopping.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections.append(conn)
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn):
        try:
            conn.settimeout(30)
            t = self.ctx.wrap_socket(conn, server_side=True)
            head = b""
            while b"\r\n\r\n" not in head and len(head) < 512 * 1024:
                more = t.recv(65536)
                if not more:
                    return
                head += more
            if b" /answer-flood " in head.split(b"\r\n", 1)[0]:
                t.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
                piece = b"4000\r\n" + b"a" * 0x4000 + b"\r\n"
                for _ in range(16 * 64):  # 16 MiB at most
                    if self.stopping.is_set():
                        break
                    t.sendall(piece)
            self.stopping.wait(60)
        except OSError:
            pass

    def stop(self):
        self.stopping.set()
        self.sock.close()
        for c in self.connections:
            try:
                c.close()
            except OSError:
                pass


def h2_flood_connection(proxy, port, hold):
    """One HTTP/2 connection: H2_STREAMS streams, half uploads filling their window,
    half endless answers; nothing read back. Held open until `hold` is set."""
    authority = f"{H2_HOST}:{port}"
    with tls_tunnel(proxy, H2_HOST, port) as sock:
        assert sock.selected_alpn_protocol() == "h2"
        conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
        conn.initiate_connection()
        for i in range(H2_STREAMS):
            sid = conn.get_next_available_stream_id()
            upload = i % 2 == 0
            fields = [(":method", "POST" if upload else "GET"), (":scheme", "https"),
                      (":authority", authority), (":path", "/upload" if upload else "/answer-flood"),
                      *HEADER_FIELDS]
            conn.send_headers(sid, fields, end_stream=not upload)
            if upload:  # the default window: what the proxy lets in before it reads
                room = conn.local_flow_control_window(sid)
                while room > 0:
                    piece = min(room, conn.max_outbound_frame_size)
                    conn.send_data(sid, b"u" * piece)
                    room -= piece
        sock.sendall(conn.data_to_send())
        hold.wait(60)


def test_rss_stays_under_the_formula_while_h2_streams_flood_many_connections(tmp_path):
    ca = TestCA(str(tmp_path / "ca"))
    upstream = StallingUpstream(ca)
    spec = {"template": "debian:12", "egress": [H2_HOST]}
    try:
        with Proxy(spec, str(tmp_path / "proxy"), upstream_ca=ca.cert_path, aliases={H2_HOST: "127.0.0.1"},
                   args=["--h2-max-streams", str(H2_STREAMS), "--idle-timeout", "20"]) as proxy:
            warm = threading.Event()
            warm.set()
            h2_flood_connection(proxy, upstream.port, warm)  # pools, arenas, nghttp2: in the baseline
            proxy.wait_connections_closed()
            baseline = rss_bytes(proxy.pid)
            before = len(upstream.connections)
            peak = baseline
            hold = threading.Event()
            with concurrent.futures.ThreadPoolExecutor(max_workers=CONNECTIONS) as pool:
                jobs = [pool.submit(h2_flood_connection, proxy, upstream.port, hold) for _ in range(CONNECTIONS)]
                # The floods run: the RSS is sampled until every stream is at the
                # upstream and for 3 s more (a hang ends at a scaled deadline).
                everyone = before + CONNECTIONS * H2_STREAMS
                deadline, settled = time.monotonic() + scaled(120), None
                while time.monotonic() < deadline and (settled is None or time.monotonic() < settled):
                    peak = max(peak, rss_bytes(proxy.pid))
                    if settled is None and len(upstream.connections) >= everyone:
                        settled = time.monotonic() + 3
                    time.sleep(0.02)
                reached = len(upstream.connections)
                hold.set()
                for j in jobs:
                    j.result(timeout=scaled(60))
            bound = baseline + CONNECTIONS * H2_STREAMS * PER_STREAM + SLACK
            print(f"HTTP/2 memory ceiling: baseline {baseline >> 10} KiB, peak {peak >> 10} KiB, "
                  f"bound {bound >> 10} KiB")
            assert peak <= bound, (f"VmRSS {baseline >> 20} MiB before, {peak >> 20} MiB peak, "
                                   f"bound {bound >> 20} MiB for {CONNECTIONS} connections of {H2_STREAMS} streams")
            assert proxy.proc.poll() is None
            # Every stream of every connection was in flight at the upstream.
            assert reached >= everyone, reached
    finally:
        upstream.stop()


# --- one MCP message, every shape (issue 41, class 4) -----------------------------------

MESSAGE_BYTES = 4 * 1024 * 1024 - 4096  # under --max-mcp-message-bytes (4 MiB)
MESSAGE_FACTOR = 6  # egress-proxy/README.md: an MCP message read whole costs at most 6 x its bytes
MESSAGE_SLACK = 8 * 1024 * 1024  # allocator arenas, the answer, Python's view of RSS


def filled(prefix, piece, suffix, size=MESSAGE_BYTES):
    """prefix + piece(0), piece(1)... (comma separated) + suffix, at most `size` bytes."""
    parts, used, i = [], len(prefix) + len(suffix), 0
    while used + len(piece(i)) + 1 <= size:
        parts.append(piece(i))
        used += len(parts[-1]) + 1
        i += 1
    return prefix + ",".join(parts) + suffix


def call(arguments):
    return '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":' + arguments + "}}"


SHAPES = {
    "batch-of-empty-objects": lambda: filled("[", lambda i: "{}", "]"),
    "batch-of-pings": lambda: filled("[", lambda i: '{"jsonrpc":"2.0","method":"ping"}', "]"),
    "array-of-zeros": lambda: call(filled('{"a":[', lambda i: "0", "]}", MESSAGE_BYTES - 100)),
    "nested-empty-arrays": lambda: call(filled('{"a":[', lambda i: "[[]]", "]}", MESSAGE_BYTES - 100)),
    "many-keys": lambda: call(filled("{", lambda i: '"%x":0' % i, "}", MESSAGE_BYTES - 100)),
    "many-escaped-keys": lambda: call(filled("{", lambda i: '"\\u00%02x%x":0' % (0x61 + i % 26, i), "}",
                                             MESSAGE_BYTES - 100)),
    "object-id": lambda: ('{"jsonrpc":"2.0","method":"tools/list","id":' +
                          filled('{"a":[', lambda i: "0", "]}", MESSAGE_BYTES - 100) + "}"),
}


def post_mcp(proxy, port, body):
    data = body.encode()
    with socket.create_connection(proxy_address(proxy), timeout=60) as s:
        s.sendall((f"POST http://{MCP}:{port}/mcp HTTP/1.1\r\nHost: {MCP}:{port}\r\n"
                   "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
                   f"Content-Length: {len(data)}\r\nConnection: close\r\n\r\n").encode() + data)
        s.settimeout(60)
        answer = b""
        while b"\r\n\r\n" not in answer:
            more = s.recv(65536)
            if not more:
                break
            answer += more
        return int(answer.split(b" ")[1]) if answer.startswith(b"HTTP/1.1 ") else 0


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_one_mcp_message_stays_under_the_formula_whatever_its_shape(env, shape):
    proxy, port = env["proxy"], env["mcp"].port
    body = SHAPES[shape]()
    assert len(body) <= 4 * 1024 * 1024
    post_mcp(proxy, port, '{"jsonrpc":"2.0","id":0,"method":"ping"}')  # pools and arenas exist
    proxy.wait_connections_closed()
    baseline = rss_bytes(proxy.pid)
    peak, stop = baseline, threading.Event()

    def sample():
        nonlocal peak
        while not stop.is_set():
            peak = max(peak, rss_bytes(proxy.pid))
            time.sleep(0.005)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        status = post_mcp(proxy, port, body)
    finally:
        stop.set()
        sampler.join()
    bound = baseline + MESSAGE_FACTOR * len(body) + MESSAGE_SLACK
    print(f"{shape}: {len(body)} bytes, status {status}, baseline {baseline >> 10} KiB, "
          f"peak {peak >> 10} KiB (+{(peak - baseline) >> 10} KiB), bound {bound >> 10} KiB")
    # Read and judged: refused, or forwarded (this upstream's answer is no MCP answer: 502).
    assert status in (400, 413, 502), status
    assert peak <= bound, (f"{shape}: VmRSS {baseline >> 20} MiB before, {peak >> 20} MiB peak, "
                           f"bound {bound >> 20} MiB for one message of {len(body) >> 10} KiB")
    assert proxy.proc.poll() is None
