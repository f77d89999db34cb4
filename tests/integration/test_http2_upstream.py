"""HTTP/2 on the upstream leg (`--upstream-http2 client|always|off`), with real origins
and clients on loopback through the built proxy: Debian's nginx (HTTP/2 and HTTP/1.1, or
HTTP/1.1 only), a gRPC server and client on python3-grpcio, test_mcp's MCP SDK server
behind nginx, and a misbehaving origin built on python3-h2. Proves: the origin sees the
protocol each mode promises (h2 for HTTP/2 clients by default, for HTTP/1.1 clients too
with `always`, never with `off`; HTTP/1.1 when the origin offers only that) with 1 MiB
bodies intact both ways and one log line per request; many streams of one client share
one upstream connection and are served at once; gRPC works end to end (unary, server,
client and interactive bidirectional streaming, status and details, initial and
trailing metadata, 1 MiB messages), one log line per call, and a gRPC call to a host
outside the egress list fails with a CONNECT refusal logged; answer trailers reach HTTP/2
clients and never HTTP/1.1 clients, and a real secret value echoed in a trailer reaches
the client as its placeholder; MCP tools are pruned and undeclared calls refused on an
MCP server behind an HTTP/2 origin; an origin's oversized answer head
(`upstream-limit`), a stream reset before the head (`upstream-reset`), a GOAWAY in the
middle of a body (the client's stream cut) and a PUSH_PROMISE (never passed on) each end
their exchange with one log line while the proxy goes on serving."""
import hashlib
import json
import os
import queue
import secrets as random_tokens
import shutil
import socket
import ssl
import struct
import tempfile
import threading
import time

import grpc
import h2.config
import h2.connection
import h2.errors
import h2.events
import h2.exceptions
import h2.settings
import hpack
import pytest

from osftest import Proxy, TestCA, Upstream
from osftest import grpc_echo
from osftest.h2 import END_HEADERS, HEADERS, PUSH_PROMISE, H2Client, answer_when_all_arrived, curl_h2, frame, tls_tunnel
from osftest.nginx import Nginx
from test_bypass_edges import assert_log_matches_the_schema
from test_bypass_smuggling import LogCursor
from test_http2 import the_line
from test_mcp import DECLARED, McpServer, _ensure_node_modules
from test_secrets import proxy_outputs

UP = "upstream.test"            # nginx, HTTP/2 and HTTP/1.1
H1 = "h1only.test"              # nginx, HTTP/1.1 only
GRPC = "grpc.test"              # the gRPC echo server
ORIGIN = "h2origin.test"        # the misbehaving python3-h2 origin
FORBIDDEN = "forbidden.test"    # resolvable by the proxy, not in the egress list
MCP_HOST = "mcp.upstream-h2.test"
ALIASES = {h: "127.0.0.1" for h in (UP, H1, GRPC, ORIGIN, FORBIDDEN)}
PREFIX = "osf-secret-placeholder-"
API_TOKEN = "real-h2-upstream-token-" + random_tokens.token_hex(8)
PLACEHOLDER = f"Bearer {PREFIX}API_TOKEN"
MIB = 1024 * 1024
BIG = bytes(range(256)) * 4096  # nginx's /big
GATE = {"barrier": None}  # /together/<i> waits here until all its streams are at the backend


def assert_no_real_value(*texts):
    for text in texts:
        if isinstance(text, bytes):
            text = text.decode(errors="replace")
        assert API_TOKEN not in text, f"the real secret value leaked into: {text[:500]!r}"


def start_proxy(directory, ca, *args):
    spec = {"template": "debian:12", "egress": [UP, H1, GRPC, ORIGIN], "secrets": {"API_TOKEN": "ref:env/API_TOKEN"}}
    return Proxy(spec, directory, aliases=ALIASES, upstream_ca=ca.cert_path,
                 env={"OSF_SECRET_API_TOKEN": API_TOKEN}, args=["--log-every-refusal", *args])


def one_line(proxy, cursor, path, fence, timeout=30):
    """The one log line written since `cursor` for `path` (fails on none or on two).
    `fence()` makes one more request on the same connection, for another path, and returns
    that path: once its line is there, so is any second line the proxy wrote for `path`."""
    cursor.wait(lambda l: l.get("path") == path, timeout)
    fence_path = fence()
    cursor.wait(lambda l: l.get("path") == fence_path, timeout)
    lines = [l for l in cursor.new() if l.get("path") == path]
    assert len(lines) == 1, lines
    return lines[0]


def nginx_saw(nginx, uri):
    return nginx.requests_for(lambda r: r["uri"] == uri)


class RecordingH2Client(H2Client):
    """osftest.h2's H2Client that also keeps every event it handled (`events`) and each
    stream's trailer fields (`streams[id]["trailers"]`)."""

    def __init__(self, sock, authority):
        super().__init__(sock, authority)
        self.events = []
        receive = self.conn.receive_data

        def recording(data):
            events = receive(data)
            for e in events:
                self.events.append(e)
                if isinstance(e, h2.events.TrailersReceived) and e.stream_id in self.streams:
                    self.streams[e.stream_id]["trailers"] = list(e.headers)
            return events

        self.conn.receive_data = recording

    def request(self, path, **kw):
        sid = super().request(path, **kw)
        self.streams[sid]["trailers"] = None
        return sid


# Fixtures: the origins and proxies.

def backend_route(handler, url, body):
    """The plain backend behind nginx's /together/ (streams held until all are there)."""
    if url.path.startswith("/together/"):
        return answer_when_all_arrived(handler, url, GATE)
    return False


@pytest.fixture(scope="module")
def ca(tmp_path_factory):
    return TestCA(str(tmp_path_factory.mktemp("h2-upstream-ca")))


@pytest.fixture(scope="module")
def backend():
    """Plain HTTP behind nginx: records request bodies (/upload/) and holds /together/."""
    with Upstream(None, route=backend_route) as u:
        u.server.socket.listen(256)
        yield u


def nginx_locations(backend):
    return f"""
        location /big/ {{ default_type application/octet-stream; try_files /big =404; }}
        location /upload/ {{ proxy_pass http://127.0.0.1:{backend.port}; }}
        location /together/ {{ proxy_pass http://127.0.0.1:{backend.port}; }}
        location /trailer/ {{
            default_type text/plain;
            add_trailer X-Trailer-Check "trailer-value" always;
            return 200 "with a trailer\\n";
        }}
        location /trailer-echo/ {{
            default_type text/plain;
            add_trailer X-Echo-Authorization $http_authorization always;
            if ($http_authorization = "Bearer {API_TOKEN}") {{ return 200 "authorized\\n"; }}
            return 401 "unauthorized\\n";
        }}
"""


@pytest.fixture(scope="module")
def nginx_dirs():
    """Directories nginx's worker (nobody) can reach: pytest's tmp_path base is 0700."""
    made = []

    def make(name):
        made.append(tempfile.mkdtemp(prefix=f"osf-{name}-"))
        return made[-1]

    yield make
    for d in made:
        shutil.rmtree(d, ignore_errors=True)


@pytest.fixture(scope="module")
def nginx_h2(nginx_dirs, ca, backend):
    with Nginx(ca, [UP], nginx_dirs("nginx-h2"), http2=True, locations=nginx_locations(backend)) as n:
        yield n


@pytest.fixture(scope="module")
def nginx_h1(nginx_dirs, ca, backend):
    with Nginx(ca, [H1], nginx_dirs("nginx-h1"), http2=False, locations=nginx_locations(backend)) as n:
        yield n


@pytest.fixture(scope="module")
def proxies(tmp_path_factory, ca):
    """One proxy per --upstream-http2 mode."""
    started = {}
    try:
        for mode in ("client", "always", "off"):
            args = [] if mode == "client" else ["--upstream-http2", mode]
            started[mode] = start_proxy(str(tmp_path_factory.mktemp(f"proxy-{mode}")), ca, *args)
        yield started
        for p in started.values():
            assert_no_real_value(*proxy_outputs(p))
            assert_log_matches_the_schema(p)
    finally:
        for p in started.values():
            p.stop()


@pytest.fixture(scope="module")
def proxy(proxies):
    return proxies["client"]


def still_serving(proxy, nginx, path):
    assert proxy.proc.poll() is None, "the proxy exited: " + proxy.stderr()[-3000:]
    status, version, body, res = curl_h2(proxy, f"https://{UP}:{nginx.port}/hello")
    assert (status, version) == (200, "2"), res.stderr + proxy.stderr()[-3000:]
    assert body == "hello over HTTP/2.0\n", body


# 1. Which protocol the origin sees, per mode, client and origin.

MATRIX = [  # id, --upstream-http2, client, origin, what the origin sees, the log line's "http"
    ("h2-client-h2-origin", "client", "--http2", "h2", "HTTP/2.0", "2"),
    ("h2-client-http11-only-origin", "client", "--http2", "h1", "HTTP/1.1", "2"),
    ("http11-client-default-mode", "client", "--http1.1", "h2", "HTTP/1.1", None),
    ("http11-client-always", "always", "--http1.1", "h2", "HTTP/2.0", None),
    ("h2-client-off", "off", "--http2", "h2", "HTTP/1.1", "2"),
]


@pytest.mark.parametrize("case, mode, client, origin, seen, http", MATRIX, ids=[m[0] for m in MATRIX])
def test_the_origin_sees_the_protocol_the_mode_promises_with_bodies_intact(
        proxies, nginx_h2, nginx_h1, backend, tmp_path, case, mode, client, origin, seen, http):
    proxy = proxies[mode]
    nginx, host = {"h2": (nginx_h2, UP), "h1": (nginx_h1, H1)}[origin]
    client_version = {"--http2": "2", "--http1.1": "1.1"}[client]

    # 1 MiB down.
    down = tmp_path / "down.bin"
    big = f"/big/{case}"
    status, version, _, res = curl_h2(proxy, f"https://{host}:{nginx.port}{big}", "-o", str(down), version=client)
    assert (status, version) == (200, client_version), res.stderr
    assert hashlib.sha256(down.read_bytes()).hexdigest() == hashlib.sha256(BIG).hexdigest()

    # 1 MiB up (nginx hands it to the backend, which keeps it).
    data = os.urandom(MIB)
    up = tmp_path / "up.bin"
    up.write_bytes(data)
    upload = f"/upload/{case}"
    status, version, body, res = curl_h2(proxy, f"https://{host}:{nginx.port}{upload}", "--data-binary", f"@{up}",
                                         "-H", "Content-Type: application/octet-stream", version=client)
    assert (status, version) == (200, client_version), res.stderr
    assert json.loads(body)["bodyLength"] == MIB
    [received] = [r for r in backend.requests if r["path"] == upload]
    assert hashlib.sha256(received["body"]).hexdigest() == hashlib.sha256(data).hexdigest()

    # What nginx saw: one request each, in the protocol the mode promises.
    seen_big, seen_upload = nginx_saw(nginx, big), nginx_saw(nginx, upload)
    assert [(r["protocol"], r["method"], r["status"]) for r in seen_big] == [(seen, "GET", "200")], seen_big
    assert [(r["protocol"], r["method"], r["status"]) for r in seen_upload] == [(seen, "POST", "200")], seen_upload

    # One log line each.
    for path, method in ((big, "GET"), (upload, "POST")):
        line = the_line(proxy, path)
        assert line.get("http") == http, line
        assert (line["outcome"], line["status"], line["method"], line["host"], line["port"]) == (
            "allowed", 200, method, host, nginx.port), line
    assert the_line(proxy, big)["bytesDown"] == MIB
    assert the_line(proxy, upload)["bytesUp"] == MIB


# 2. Many streams of one client: one upstream connection, served at once.

def test_which_protocol_goes_upstream_does_not_depend_on_which_request_came_first(tmp_path, ca, nginx_h2):
    """An HTTP/1.1 client's request leaves a pooled HTTP/1.1 connection to the origin (offered
    http/1.1 only); an HTTP/2 client's request after it still goes HTTP/2 (trailers and full
    duplex need it), and the other way round. One worker thread: one pool for both. Found in a
    shuffled run, where an earlier test's pooled connection took this file's HTTP/2 requests."""
    proxy = start_proxy(str(tmp_path / "one-worker"), ca, "--threads", "1")
    try:
        url = f"https://{UP}:{nginx_h2.port}/hello?order="
        for client, tag in (("--http1.1", "h1-first"), ("--http2", "h2-second"), ("--http1.1", "h1-third")):
            status, version, body, res = curl_h2(proxy, url + tag, version=client)
            assert status == 200, res.stderr
            expected = "HTTP/2.0" if client == "--http2" else "HTTP/1.1"
            [seen] = nginx_h2.requests_for(lambda r, tag=tag: r["uri"] == "/hello?order=" + tag)
            assert (seen["protocol"], body) == (expected, f"hello over {expected}\n"), (tag, seen, body)
    finally:
        proxy.stop()


def test_many_h2_streams_share_one_upstream_connection_and_are_served_at_once(tmp_path, ca, nginx_h2):
    # Each answer is held at the backend until all 20 requests are there: the streams
    # must be at nginx together, and nginx must have them on one connection. The
    # proxy is new, so the burst arrives before any connection to nginx exists:
    # the streams wait for the first one's connection instead of each opening one.
    proxy = start_proxy(str(tmp_path / "burst"), ca)
    try:
        burst_on_one_connection(proxy, nginx_h2)
    finally:
        proxy.stop()


def burst_on_one_connection(proxy, nginx_h2):
    count = 20
    GATE["barrier"] = threading.Barrier(count, timeout=20)
    paths = [f"/together/{i}" for i in range(count)]
    authority = f"{UP}:{nginx_h2.port}"
    with tls_tunnel(proxy, UP, nginx_h2.port) as sock:
        assert sock.selected_alpn_protocol() == "h2"
        client = H2Client(sock, authority)
        sids = [client.request(p, flush=False) for p in paths]
        client.flush()
        answers = client.wait(*sids, timeout=40)
    report = [(a["path"], a["status"], a["reset"], a["body"][:80]) for a in answers]
    for a in answers:
        assert a["status"] == 200 and a["ended"], report
        assert json.loads(a["body"]) == {"path": a["path"], "together": True}, report
    seen = nginx_h2.requests_for(lambda r: r["uri"].startswith("/together/"), count)
    assert sorted(r["uri"] for r in seen) == sorted(paths), seen
    assert {r["protocol"] for r in seen} == {"HTTP/2.0"}, seen
    assert len({r["connection"] for r in seen}) == 1, f"nginx connections: {sorted({r['connection'] for r in seen})}"
    for p in paths:
        line = the_line(proxy, p, timeout=15)
        assert (line["http"], line["outcome"], line["status"]) == ("2", "allowed", 200), line


# 3. gRPC end to end.

@pytest.fixture(scope="module")
def grpc_server(ca):
    cert, key = ca.issue([GRPC])
    with grpc_echo.EchoServer(cert, key) as server:
        yield server


@pytest.fixture
def channel(proxy, grpc_server):
    ch = grpc_echo.channel(proxy, f"{GRPC}:{grpc_server.port}")
    yield ch
    ch.close()


def grpc_line(proxy, cursor, channel, name):
    def fence():  # a call of another method on the same channel (one HTTP/2 connection)
        if name == "Many":
            assert grpc_echo.unary(channel, "Say")(b"fence", timeout=15) == b"echo:fence"
            return grpc_echo.method("Say")
        assert list(grpc_echo.unary_stream(channel, "Many")(b"0", timeout=15)) == []
        return grpc_echo.method("Many")

    line = one_line(proxy, cursor, grpc_echo.method(name), fence)
    assert (line["http"], line["method"], line["status"], line["outcome"]) == ("2", "POST", 200, "allowed"), line
    assert line["host"] == GRPC, line
    return line


def test_grpc_unary_with_initial_and_trailing_metadata(proxy, channel):
    cursor = LogCursor(proxy)
    answer, call = grpc_echo.unary(channel, "Say").with_call(
        b"hi", timeout=15, metadata=(("x-initial-echo", "first-words"), ("x-trailer-echo", "last-words")))
    assert answer == b"echo:hi"
    assert call.code() == grpc.StatusCode.OK
    assert ("x-initial", "first-words") in [(m.key, m.value) for m in call.initial_metadata()]
    assert ("x-trailer", "last-words") in [(m.key, m.value) for m in call.trailing_metadata()]
    grpc_line(proxy, cursor, channel, "Say")


@pytest.mark.parametrize("initial", [False, True], ids=["trailers-only", "after-initial-metadata"])
def test_grpc_error_status_and_details_arrive(proxy, channel, initial):
    # Without initial metadata a gRPC server answers an error as "Trailers-Only": one
    # HEADERS frame with END_STREAM holding :status, grpc-status and grpc-message (the
    # usual shape of UNIMPLEMENTED, NOT_FOUND...); with it, a head and then trailers.
    cursor = LogCursor(proxy)
    metadata = (("x-trailer-echo", "after-the-error"),) + ((("x-initial-echo", "before"),) if initial else ())
    with pytest.raises(grpc.RpcError) as failed:
        grpc_echo.unary(channel, "Say")(b"fail:PERMISSION_DENIED:not for you, sandbox", timeout=15,
                                        metadata=metadata)
    error = failed.value
    assert error.code() == grpc.StatusCode.PERMISSION_DENIED, error
    assert error.details() == "not for you, sandbox", error
    assert ("x-trailer", "after-the-error") in [(m.key, m.value) for m in error.trailing_metadata()]
    grpc_line(proxy, cursor, channel, "Say")  # gRPC's errors are HTTP 200 answers with grpc-status in the trailers


def test_grpc_server_streaming(proxy, channel):
    cursor = LogCursor(proxy)
    assert list(grpc_echo.unary_stream(channel, "Many")(b"7", timeout=15)) == [b"part%d" % i for i in range(7)]
    grpc_line(proxy, cursor, channel, "Many")


def test_grpc_client_streaming(proxy, channel):
    cursor = LogCursor(proxy)
    assert grpc_echo.stream_unary(channel, "Collect")(iter([b"a", b"b", b"c", b"d"]), timeout=15) == b"a|b|c|d"
    grpc_line(proxy, cursor, channel, "Collect")


def test_grpc_bidirectional_streaming_is_interactive(proxy, channel):
    # The client sends each message only once the answer to the one before arrived: a
    # proxy that held the request body (or the answer) until the end would never finish.
    cursor = LogCursor(proxy)
    answers_seen = queue.Queue()
    sent = []

    def requests():
        for i in range(5):
            message = b"turn-%d" % i
            sent.append(message)
            yield message
            answers_seen.get(timeout=15)  # the answer to this one, before the next

    answers = []
    call = grpc_echo.stream_stream(channel, "Chat")(requests(), timeout=40)
    for answer in call:
        answers.append(answer)
        answers_seen.put(answer)
        if len(answers) > 10:
            break
    assert answers == [m.upper() for m in sent] == [b"TURN-%d" % i for i in range(5)]
    assert call.code() == grpc.StatusCode.OK
    grpc_line(proxy, cursor, channel, "Chat")


def test_grpc_one_mib_message_both_ways(proxy, channel):
    cursor = LogCursor(proxy)
    big = os.urandom(MIB)
    answer = grpc_echo.unary(channel, "Say")(big, timeout=30)
    assert hashlib.sha256(answer).hexdigest() == hashlib.sha256(b"echo:" + big).hexdigest()
    line = grpc_line(proxy, cursor, channel, "Say")
    assert line["bytesUp"] >= MIB and line["bytesDown"] >= MIB, line


def test_a_grpc_call_to_a_host_outside_the_egress_list_fails_with_a_connect_refusal(proxy, grpc_server):
    cursor = LogCursor(proxy)
    calls_before = len(grpc_server.calls)
    ch = grpc_echo.channel(proxy, f"{FORBIDDEN}:{grpc_server.port}")
    try:
        with pytest.raises(grpc.RpcError) as failed:
            grpc_echo.unary(ch, "Say")(b"let me out", timeout=15)
    finally:
        ch.close()
    assert failed.value.code() == grpc.StatusCode.UNAVAILABLE, failed.value
    line = cursor.wait(lambda l: l.get("host") == FORBIDDEN)[0]
    assert (line["method"], line["outcome"], line["refusedBy"], line["status"], line["port"]) == (
        "CONNECT", "refused", "host-not-allowed", 403, grpc_server.port), line
    assert not [l for l in cursor.new() if l.get("host") == FORBIDDEN and l["outcome"] != "refused"], cursor.new()
    assert len(grpc_server.calls) == calls_before


# 4. Trailers.

# Two origins send trailers: nginx (`add_trailer`; its HTTP/2 answers carry a
# content-length) and the python3-h2 origin of section 6 (no content-length).
# An answer with a content-length reaches the client without its trailer fields
# (the proxy's request path is HTTP/1.1's, which cannot carry both;
# egress-proxy/docs/http2.md); gRPC answers have none, and keep theirs.
TRAILER_ORIGINS = pytest.mark.parametrize("which", ["nginx", "h2-origin"])
TRAILERS_KEPT = {"nginx": False, "h2-origin": True}


def trailer_origin(which, nginx_h2, origin):
    """(host, port, what the origin saw of `uri` as a list of protocols)."""
    if which == "nginx":
        return UP, nginx_h2.port, lambda uri: [r["protocol"] for r in nginx_saw(nginx_h2, uri)]
    return ORIGIN, origin.port, lambda uri: ["HTTP/2.0" for r in origin.requests if r["path"] == uri]


@TRAILER_ORIGINS
def test_answer_trailers_reach_an_h2_client(proxy, nginx_h2, origin, which):
    host, port, saw = trailer_origin(which, nginx_h2, origin)
    path = f"/trailer/to-an-h2-client-from-{which}"
    with tls_tunnel(proxy, host, port) as sock:
        client = RecordingH2Client(sock, f"{host}:{port}")
        [answer] = client.wait(client.request(path))
    assert (answer["status"], answer["body"], answer["ended"]) == (200, b"with a trailer\n", True), answer
    expected = [("x-trailer-check", "trailer-value")] if TRAILERS_KEPT[which] else None
    assert answer["trailers"] == expected, answer
    assert saw(path) == ["HTTP/2.0"]
    line = the_line(proxy, path)
    assert (line["http"], line["outcome"], line["status"]) == ("2", "allowed", 200), line


@pytest.mark.parametrize("which, mode, seen", [("nginx", "client", "HTTP/1.1"), ("nginx", "always", "HTTP/2.0"),
                                               ("h2-origin", "always", "HTTP/2.0")])
def test_answer_trailers_never_reach_an_http11_client(proxies, nginx_h2, origin, tmp_path, which, mode, seen):
    # nginx sends the trailer both ways: in the last chunk over HTTP/1.1, as a HEADERS
    # frame over HTTP/2; the h2 origin as a HEADERS frame.
    proxy = proxies[mode]
    host, port, saw = trailer_origin(which, nginx_h2, origin)
    path = f"/trailer/to-an-http11-client-{mode}-from-{which}"
    raw, heads = tmp_path / "raw.bin", tmp_path / "heads.txt"
    status, version, _, res = curl_h2(proxy, f"https://{host}:{port}{path}", "--raw", "-o", str(raw),
                                      "-D", str(heads), version="--http1.1")
    assert (status, version) == (200, "1.1"), res.stderr
    got = raw.read_bytes()
    assert b"with a trailer\n" in got, got
    assert b"trailer-check" not in got.lower() and b"trailer-value" not in got, got
    assert "trailer-check" not in heads.read_text().lower(), heads.read_text()
    assert saw(path) == [seen]
    line = the_line(proxy, path)
    assert "http" not in line and line["outcome"] == "allowed", line


@TRAILER_ORIGINS
def test_a_secret_echoed_in_a_trailer_reaches_the_h2_client_as_its_placeholder(proxy, nginx_h2, origin, which):
    host, port, saw = trailer_origin(which, nginx_h2, origin)
    path = f"/trailer-echo/from-{which}"
    with tls_tunnel(proxy, host, port) as sock:
        client = RecordingH2Client(sock, f"{host}:{port}")
        [answer] = client.wait(client.request(path, headers=[("authorization", PLACEHOLDER)]))
    # The origin answers 200 only when the real value arrived, and echoes it in a trailer.
    assert (answer["status"], answer["body"]) == (200, b"authorized\n"), answer
    assert_no_real_value(repr(answer), repr(client.events))
    expected = [("x-echo-authorization", PLACEHOLDER)] if TRAILERS_KEPT[which] else None
    assert answer["trailers"] == expected, answer
    line = the_line(proxy, path)
    assert (line["http"], line["outcome"], line["secrets"]) == ("2", "allowed", ["API_TOKEN"]), line
    assert_no_real_value(*proxy_outputs(proxy))


def test_a_secret_echoed_in_grpc_metadata_reaches_the_client_as_its_placeholder(proxy, channel, grpc_server):
    cursor = LogCursor(proxy)
    answer, call = grpc_echo.unary(channel, "Say").with_call(b"who am i", timeout=15,
                                                             metadata=(("authorization", PLACEHOLDER),))
    assert answer == b"echo:who am i"
    # The server got the real value...
    assert ("authorization", f"Bearer {API_TOKEN}") in grpc_server.calls[-1]["metadata"]
    # ...and its echoes, in the answer's head and in its trailers, came back as the placeholder.
    initial = [(m.key, m.value) for m in call.initial_metadata()]
    trailing = [(m.key, m.value) for m in call.trailing_metadata()]
    assert ("x-echo-authorization", PLACEHOLDER) in initial, initial
    assert ("x-trailer-authorization", PLACEHOLDER) in trailing, trailing
    assert_no_real_value(repr(initial), repr(trailing))
    line = grpc_line(proxy, cursor, channel, "Say")
    assert line["secrets"] == ["API_TOKEN"], line


# 5. MCP behind an HTTP/2 origin (nginx in front of test_mcp's SDK server).

@pytest.fixture(scope="module")
def mcp(tmp_path_factory, nginx_dirs, ca):
    _ensure_node_modules()
    base = tmp_path_factory.mktemp("h2-upstream-mcp")
    cert, key = ca.issue(["127.0.0.1"])
    server = McpServer(str(base), cert, key, page_size=0)  # one page: the list itself is pruned
    locations = f"""
        location /mcp-json {{
            proxy_pass https://127.0.0.1:{server.port};
            proxy_ssl_verify off;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_buffering off;
        }}
"""
    nginx = Nginx(ca, [MCP_HOST], nginx_dirs("nginx-mcp"), http2=True, locations=locations)
    proxies = {}
    try:
        nginx.start()
        spec = {"template": "node:24-alpine",
                "mcp": [{"name": "wiki", "url": f"https://{MCP_HOST}:{nginx.port}/mcp-json", "tools": DECLARED}]}
        for mode in ("client", "always"):
            args = [] if mode == "client" else ["--upstream-http2", mode]
            proxies[mode] = Proxy(spec, str(base / f"proxy-{mode}"), upstream_ca=ca.cert_path,
                                  aliases={MCP_HOST: "127.0.0.1"}, args=args)
        yield {"server": server, "nginx": nginx, "proxies": proxies}
    finally:
        for p in proxies.values():
            p.stop()
        nginx.stop()
        server.stop()


MCP_CLIENTS = pytest.mark.parametrize("mode, version, http", [("client", "--http2", "2"),
                                                              ("always", "--http1.1", None)],
                                      ids=["h2-client", "http11-client-always"])


def mcp_post(mcp, mode, message, version, tag):
    """POSTs one MCP message; `tag` goes in the query so that nginx's line for it can be told
    from the others (nginx writes a line when it finalises the request, which may be after the
    client has the whole answer)."""
    proxy = mcp["proxies"][mode]
    url = f"https://{MCP_HOST}:{mcp['nginx'].port}/mcp-json?case={tag}"
    status, got, body, res = curl_h2(proxy, url, "-H", "Content-Type: application/json",
                                     "-H", "Accept: application/json, text/event-stream",
                                     "-H", "MCP-Protocol-Version: 2025-06-18",
                                     "--data-binary", json.dumps(message), version=version)
    assert got == {"--http2": "2", "--http1.1": "1.1"}[version], res.stderr
    return status, body


def mcp_seen(mcp, tag, wait=True):
    """nginx's lines for the requests tagged `tag`; with `wait`, waits (30 s at most) for one."""
    return mcp["nginx"].requests_for(lambda r: r["uri"] == f"/mcp-json?case={tag}", timeout=30 if wait else 0)


@MCP_CLIENTS
def test_mcp_tools_list_behind_an_h2_origin_is_pruned(mcp, mode, version, http):
    proxy = mcp["proxies"][mode]
    cursor = LogCursor(proxy)
    tag = f"list-{mode}"
    status, body = mcp_post(mcp, mode, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, version, tag)
    assert status == 200, body
    assert [t["name"] for t in json.loads(body)["result"]["tools"]] == DECLARED
    assert [(r["protocol"], r["method"], r["status"]) for r in mcp_seen(mcp, tag)] == [("HTTP/2.0", "POST", "200")]
    [line] = cursor.wait(lambda l: l.get("mcpServer") == "wiki")
    assert line.get("http") == http, line
    assert (line["outcome"], line["status"], line["toolsRemoved"]) == ("allowed", 200, 1), line


@MCP_CLIENTS
def test_mcp_call_of_a_declared_tool_behind_an_h2_origin_goes_through(mcp, mode, version, http):
    proxy = mcp["proxies"][mode]
    cursor = LogCursor(proxy)
    status, body = mcp_post(mcp, mode, {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                                        "params": {"name": "search", "arguments": {"text": f"kittens-{mode}"}}},
                            version, f"call-{mode}")
    assert status == 200, body
    texts = [c["text"] for c in json.loads(body)["result"]["content"]]
    assert texts == ['search ran with {"text":"kittens-%s"}' % mode], body
    [line] = cursor.wait(lambda l: l.get("tool") == "search")
    assert line.get("http") == http, line
    assert (line["outcome"], line["mcpServer"], line["status"]) == ("allowed", "wiki", 200), line
    assert [r["protocol"] for r in mcp_seen(mcp, f"call-{mode}")] == ["HTTP/2.0"]


@MCP_CLIENTS
def test_mcp_call_of_an_undeclared_tool_behind_an_h2_origin_is_refused(mcp, mode, version, http):
    proxy = mcp["proxies"][mode]
    cursor = LogCursor(proxy)
    tag = f"refused-{mode}"
    status, body = mcp_post(mcp, mode, {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                                        "params": {"name": "delete_everything", "arguments": {"text": "all"}}},
                            version, tag)
    answer = json.loads(body)
    assert answer["error"]["code"] == -32602 and "Unknown tool: delete_everything" in answer["error"]["message"]
    [line] = cursor.wait(lambda l: l.get("tool") == "delete_everything")
    assert line.get("http") == http, line
    assert (line["outcome"], line["refusedBy"], line["mcpServer"]) == ("refused", "mcp-tool", "wiki"), line
    # Nothing reached nginx: checked once nginx logged a fence request sent after the answer
    # (one worker, which logs what it finalises in order).
    fence = f"fence-{tag}"
    status, _ = mcp_post(mcp, mode, {"jsonrpc": "2.0", "id": 4, "method": "tools/list"}, version, fence)
    assert status == 200 and mcp_seen(mcp, fence)
    assert mcp_seen(mcp, tag, wait=False) == []
    assert "delete_everything" not in mcp["server"].calls("json")


# 6. An origin that misbehaves on the HTTP/2 leg (python3-h2).

CONNECTION_WINDOW = 65535  # RFC 9113's initial window, which H2Origin never opens again


class H2Origin:
    """An HTTPS origin on python3-h2 offering only ALPN h2, a TestCA leaf, on 127.0.0.1.
    What it does is chosen by the request's path:
      /trailer/...           200, a body and a trailer field, no content-length
      /trailer-echo/...      200 (401 without the real secret value), the request's
                             authorization echoed in a trailer field
      /ok...                 200, a small body
      /big-head...           a head with a 20 KB header field, the stream left open (so
                             a reset of it by the proxy shows as one)
      /reset-before-head...  RST_STREAM (INTERNAL_ERROR) before any HEADERS
      /refuse-once...        RST_STREAM (REFUSED_STREAM) the first time a path is asked
                             for, 200 "fine" after that
      /bad-head...           a head with a `connection` field (malformed in HTTP/2; written
                             raw, as h2 refuses to send it), the stream left open
      /goaway-mid-body...    a head promising 100,000 bytes, 1,000 of them, GOAWAY, close
      /push...               a PUSH_PROMISE (written raw: h2 refuses to push once the
                             peer disabled push) for /pushed, then a 200
      /early-answer...       reads the request body until the connection's window is spent
                             (no WINDOW_UPDATE is ever sent), then 200 "early" and
                             RST_STREAM NO_ERROR, as nginx ends a body it does not read
    It keeps the requests (`requests`: path, headers, connection, stream), the streams the
    proxy reset (`resets`: connection, stream, error code), the proxy's GOAWAY frames
    (`goaways`) and SETTINGS (`settings`). Each connection is served at most 120 s, every
    read has a timeout, and at most 1,000 connections are accepted."""

    def __init__(self, ca, names):
        cert, key = ca.issue(list(names))
        self.ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.ctx.load_cert_chain(cert, key)
        self.ctx.set_alpn_protocols(["h2"])
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.sock.settimeout(0.5)
        self.port = self.sock.getsockname()[1]
        self.lock = threading.Lock()
        self.requests, self.resets, self.goaways, self.settings, self.connections = [], [], [], [], 0
        self.refused = set()
        self.early = set()  # (connection, stream) of /early-answer requests not answered yet
        self.received = {}  # connection: DATA bytes received (a window never opened again)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self):
        for _ in range(1000):  # connections
            if self._stop.is_set():
                return
            try:
                raw, _ = self.sock.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            with self.lock:
                self.connections += 1
                number = self.connections
            threading.Thread(target=self._serve, args=(raw, number), daemon=True).start()

    def _serve(self, raw, number):
        try:
            raw.settimeout(10)
            sock = self.ctx.wrap_socket(raw, server_side=True)
        except (OSError, ssl.SSLError):
            raw.close()
            return
        conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=False, header_encoding="utf-8"))
        conn.initiate_connection()
        try:
            sock.sendall(conn.data_to_send())
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline and not self._stop.is_set():
                sock.settimeout(1)
                try:
                    data = sock.recv(65536)
                except socket.timeout:
                    continue
                if not data:
                    return
                try:
                    events = conn.receive_data(data)
                except h2.exceptions.ProtocolError:
                    sock.sendall(conn.data_to_send())
                    return
                for event in events:
                    if not self._handle(conn, sock, event, number):
                        return
                sock.sendall(conn.data_to_send())
        except (OSError, ssl.SSLError):
            pass
        finally:
            sock.close()

    def _handle(self, conn, sock, event, number):
        """Returns False once the connection is to end."""
        if isinstance(event, h2.events.RemoteSettingsChanged):
            with self.lock:
                self.settings.append({int(k): v.new_value for k, v in event.changed_settings.items()})
        elif isinstance(event, h2.events.StreamReset):
            with self.lock:
                self.resets.append({"connection": number, "stream": event.stream_id, "code": event.error_code})
        elif isinstance(event, h2.events.ConnectionTerminated):
            with self.lock:
                self.goaways.append({"connection": number, "code": event.error_code})
        elif isinstance(event, h2.events.DataReceived):
            with self.lock:
                self.received[number] = self.received.get(number, 0) + event.flow_controlled_length
            if (number, event.stream_id) in self.early:
                self._answer_early_once_window_spent(conn, number, event.stream_id)
        elif isinstance(event, h2.events.RequestReceived):
            headers = list(event.headers)
            path = dict(headers)[":path"]
            with self.lock:
                self.requests.append({"path": path, "headers": headers, "connection": number,
                                      "stream": event.stream_id})
            if path.startswith("/early-answer"):
                self.early.add((number, event.stream_id))
                self._answer_early_once_window_spent(conn, number, event.stream_id)
                return True
            return self._answer(conn, sock, event.stream_id, path, dict(headers))
        return True

    @staticmethod
    def _reply(conn, sid, body, extra=()):
        conn.send_headers(sid, [(":status", "200"), ("content-type", "text/plain"),
                                ("content-length", str(len(body))), *extra])
        conn.send_data(sid, body, end_stream=True)

    def _answer(self, conn, sock, sid, path, headers):
        if path.startswith("/trailer/"):
            conn.send_headers(sid, [(":status", "200"), ("content-type", "text/plain")])
            conn.send_data(sid, b"with a trailer\n")
            conn.send_headers(sid, [("x-trailer-check", "trailer-value")], end_stream=True)
        elif path.startswith("/trailer-echo/"):
            authorized = headers.get("authorization") == f"Bearer {API_TOKEN}"
            conn.send_headers(sid, [(":status", "200" if authorized else "401"), ("content-type", "text/plain")])
            conn.send_data(sid, b"authorized\n" if authorized else b"unauthorized\n")
            conn.send_headers(sid, [("x-echo-authorization", headers.get("authorization", ""))], end_stream=True)
        elif path.startswith("/big-head"):
            conn.send_headers(sid, [(":status", "200"), ("content-type", "text/plain"), ("x-big", "h" * 20000)])
        elif path.startswith("/reset-before-head"):
            conn.reset_stream(sid, error_code=h2.errors.ErrorCodes.INTERNAL_ERROR)
        elif path.startswith("/refuse-once") and path not in self.refused:
            self.refused.add(path)
            conn.reset_stream(sid, error_code=h2.errors.ErrorCodes.REFUSED_STREAM)
        elif path.startswith("/bad-head"):
            sock.sendall(conn.data_to_send())
            block = hpack.Encoder().encode([(":status", "200"),
                                            hpack.NeverIndexedHeaderTuple("connection", "keep-alive")])
            sock.sendall(frame(HEADERS, END_HEADERS, sid, block))
        elif path.startswith("/goaway-mid-body"):
            conn.send_headers(sid, [(":status", "200"), ("content-type", "application/octet-stream"),
                                    ("content-length", "100000")])
            conn.send_data(sid, b"p" * 1000)
            conn.close_connection()  # GOAWAY, NO_ERROR, last stream = this one
            sock.sendall(conn.data_to_send())
            return False
        elif path.startswith("/push"):
            sock.sendall(conn.data_to_send())
            fields = [(":method", "GET"), (":scheme", "https"),
                      hpack.NeverIndexedHeaderTuple(":authority", headers[":authority"]),
                      hpack.NeverIndexedHeaderTuple(":path", "/pushed")]
            block = hpack.Encoder().encode(fields)  # never indexed: the proxy's table stays in step with h2's
            promised = 2 * (sid // 2 + 1)  # an even id of the server's own
            sock.sendall(frame(PUSH_PROMISE, END_HEADERS, sid, struct.pack("!I", promised) + block))
            self._reply(conn, sid, b"the answer itself\n")
        else:
            self._reply(conn, sid, b"fine\n")
        return True

    def _answer_early_once_window_spent(self, conn, number, sid):
        # The proxy has sent all the connection's window lets it (this origin never
        # opens it again): what more of the body it reads waits in its queue.
        if self.received.get(number, 0) < CONNECTION_WINDOW:
            return
        self.early.discard((number, sid))
        conn.send_headers(sid, [(":status", "200"), ("content-type", "text/plain"), ("content-length", "6")])
        conn.send_data(sid, b"early\n", end_stream=True)
        conn.reset_stream(sid, error_code=h2.errors.ErrorCodes.NO_ERROR)

    def resets_of(self, path, timeout=5.0):
        """The RST_STREAM frames the proxy sent on the stream that asked for `path` (waits for
        one, `timeout` seconds at most)."""
        [request] = [r for r in self.requests if r["path"] == path]
        deadline = time.monotonic() + timeout
        while True:
            with self.lock:
                reset = [r for r in self.resets
                         if (r["connection"], r["stream"]) == (request["connection"], request["stream"])]
            if reset or time.monotonic() >= deadline:
                return reset
            time.sleep(0.05)

    def stop(self):
        self._stop.set()
        self.sock.close()
        self._thread.join(5)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


@pytest.fixture(scope="module")
def origin(ca):
    with H2Origin(ca, [ORIGIN]) as o:
        yield o


@pytest.fixture(scope="module")
def origin_proxy(tmp_path_factory, ca):
    with start_proxy(str(tmp_path_factory.mktemp("proxy-origin")), ca, "--max-header-bytes", "8192") as p:
        yield p
        assert_log_matches_the_schema(p)


def origin_url(origin, path):
    return f"https://{ORIGIN}:{origin.port}{path}"


def origin_still_serves(proxy, origin, path):
    assert proxy.proc.poll() is None, "the proxy exited: " + proxy.stderr()[-3000:]
    status, version, body, res = curl_h2(proxy, origin_url(origin, path))
    assert (status, version, body) == (200, "2", "fine\n"), res.stderr + proxy.stderr()[-3000:]
    [request] = [r for r in origin.requests if r["path"] == path]
    assert ("te", "trailers") in request["headers"], request  # over h2: the origin speaks nothing else


def test_an_origin_answer_head_over_max_header_bytes_is_a_502_upstream_limit(origin_proxy, origin):
    path = "/big-head/1"
    status, version, body, res = curl_h2(origin_proxy, origin_url(origin, path))
    assert (status, version) == (502, "2"), res.stderr
    assert "h" * 1000 not in body
    line = the_line(origin_proxy, path)
    assert (line["http"], line["outcome"], line["error"], line["status"]) == ("2", "error", "upstream-limit", 502), line
    # The proxy reset that stream at the origin.
    reset = origin.resets_of(path)
    assert reset, f"the origin saw no RST_STREAM for {path}: resets {origin.resets}, GOAWAYs {origin.goaways}"
    origin_still_serves(origin_proxy, origin, "/ok/after-big-head")


def test_an_origin_stream_reset_before_the_head_is_a_502_upstream_reset(origin_proxy, origin):
    path = "/reset-before-head/1"
    status, version, body, res = curl_h2(origin_proxy, origin_url(origin, path))
    assert (status, version) == (502, "2"), res.stderr
    line = the_line(origin_proxy, path)
    assert (line["http"], line["outcome"], line["error"], line["status"]) == ("2", "error", "upstream-reset", 502), line
    origin_still_serves(origin_proxy, origin, "/ok/after-reset")


@pytest.mark.parametrize("method", ["GET", "POST"])
def test_a_request_whose_stream_the_origin_reset_is_never_sent_again(origin_proxy, origin, method):
    # The origin may have acted on it (RFC 9113, 8.7): a POST must not run twice. python3-h2
    # sends the POST's head and body together: curl 7.88 may still be sending when the 502
    # and the proxy's RST_STREAM NO_ERROR come, and reports error 92 instead (egress-proxy/docs/http2.md).
    path = f"/reset-before-head/{method}"
    with tls_tunnel(origin_proxy, ORIGIN, origin.port) as sock:
        client = H2Client(sock, f"{ORIGIN}:{origin.port}")
        body = b"charge the card once" if method == "POST" else None
        [answer] = client.wait(client.request(path, method=method, body=body), timeout=20)
    assert (answer["status"], answer["ended"]) == (502, True), answer
    line = the_line(origin_proxy, path)
    assert (line["outcome"], line["error"], line["method"]) == ("error", "upstream-reset", method), line
    assert [r["path"] for r in origin.requests].count(path) == 1, origin.requests


def test_a_request_whose_stream_the_origin_refused_is_sent_again_and_answered(origin_proxy, origin):
    # REFUSED_STREAM says the origin did nothing with it: the proxy sends a request it holds
    # whole again, once, on a new connection, and the client sees only the answer.
    path = "/refuse-once/GET"
    status, version, body, res = curl_h2(origin_proxy, origin_url(origin, path))
    assert (status, version, body) == (200, "2", "fine\n"), res.stderr
    seen = [r for r in origin.requests if r["path"] == path]
    assert len(seen) == 2, seen
    assert seen[0]["connection"] != seen[1]["connection"], seen
    line = the_line(origin_proxy, path)
    assert (line["outcome"], line["status"], line["method"]) == ("allowed", 200, "GET"), line


def test_an_answer_that_ends_the_stream_before_the_body_is_sent_reaches_the_client(
        proxies, origin, tmp_path):
    # The origin answers and resets the stream (NO_ERROR, as nginx ends a body it does not
    # read) while the proxy holds body it read from the client, waiting for a window the
    # origin never opens: the client gets the answer, not a timeout. An HTTP/1.1 client
    # (so --upstream-http2 always): curl 7.88 over HTTP/2 reports the proxy's own
    # RST_STREAM NO_ERROR after a whole answer as error 92 (egress-proxy/docs/http2.md).
    proxy = proxies["always"]
    path = "/early-answer/1"
    upload = tmp_path / "upload"
    upload.write_bytes(os.urandom(1 << 20))
    status, version, body, res = curl_h2(proxy, origin_url(origin, path), "--data-binary", f"@{upload}",
                                         version="--http1.1", timeout=60)
    assert (status, version, body) == (200, "1.1", "early\n"), res.stderr + proxy.stderr()[-3000:]
    line = the_line(proxy, path)
    assert (line["outcome"], line["status"], line["method"]) == ("allowed", 200, "POST"), line
    assert [r["path"] for r in origin.requests].count(path) == 1, origin.requests  # over HTTP/2


def test_a_refused_request_whose_body_streamed_is_a_502(origin_proxy, origin):
    # Its body went on as it came, so there is nothing to send again (as on HTTP/1.1).
    path = "/refuse-once/POST"
    with tls_tunnel(origin_proxy, ORIGIN, origin.port) as sock:
        client = H2Client(sock, f"{ORIGIN}:{origin.port}")
        [answer] = client.wait(client.request(path, method="POST", body=b"streamed"), timeout=20)
    assert (answer["status"], answer["ended"]) == (502, True), answer
    assert b"refused the stream" in answer["body"], answer
    line = the_line(origin_proxy, path)
    assert (line["outcome"], line["error"], line["method"]) == ("error", "upstream-reset", "POST"), line
    assert [r["path"] for r in origin.requests].count(path) == 1, origin.requests


def test_an_origin_head_that_breaks_http2s_rules_is_a_502_upstream_protocol(origin_proxy, origin):
    path = "/bad-head/1"
    status, version, body, res = curl_h2(origin_proxy, origin_url(origin, path))
    assert (status, version) == (502, "2"), res.stderr
    assert "broke HTTP/2's rules" in body, body
    line = the_line(origin_proxy, path)
    assert (line["http"], line["outcome"], line["error"], line["status"]) == ("2", "error", "upstream-protocol", 502), line
    # The proxy reset that stream at the origin with PROTOCOL_ERROR; the connection goes on.
    reset = origin.resets_of(path)
    assert [r["code"] for r in reset] == [h2.errors.ErrorCodes.PROTOCOL_ERROR], (reset, origin.goaways)
    origin_still_serves(origin_proxy, origin, "/ok/after-bad-head")


def test_an_origin_goaway_mid_body_cuts_the_clients_stream(origin_proxy, origin, tmp_path):
    # The origin writes its head, 1,000 of 100,000 bytes and GOAWAY at once. When the head
    # has gone out to the client, the client's stream is cut; when the proxy read it all
    # before the head went out (a loaded machine), its answer is its own 502 (local_reply's
    # fail): never the origin's answer as if whole.
    def proxys_502(status, body):
        return status == 502 and body.startswith(b"egress-proxy: ")

    # curl: the transfer fails and it holds less than the promised body.
    path = "/goaway-mid-body/curl"
    out = tmp_path / "out.bin"
    status, version, _, res = curl_h2(origin_proxy, origin_url(origin, path), "-o", str(out))
    got = out.read_bytes() if out.exists() else b""
    assert res.returncode != 0 or proxys_502(status, got), \
        f"curl succeeded with {len(got)} bytes: {res.stderr}"
    assert len(got) < 100000, len(got)
    print("curl:", res.returncode, res.stderr.strip(), "status", status, "bytes", len(got))
    line = the_line(origin_proxy, path)
    assert line["http"] == "2" and line["outcome"] == "error" and line.get("error"), line
    # An h2 client: the stream is reset, or ends short of its content-length (which
    # python3-h2 itself refuses), never a whole answer.
    path = "/goaway-mid-body/h2"
    with tls_tunnel(origin_proxy, ORIGIN, origin.port) as sock:
        client = RecordingH2Client(sock, f"{ORIGIN}:{origin.port}")
        [answer] = client.wait(client.request(path), timeout=20)
        report = (f"status={answer['status']} body={len(answer['body'])} ended={answer['ended']} "
                  f"reset={answer['reset']} goaway={client.terminated} closed={client.closed} "
                  f"protocol_error={client.protocol_error}")
        print("h2:", report)
        assert len(answer["body"]) < 100000, report
        assert (answer["reset"] is not None or client.protocol_error is not None or client.closed
                or proxys_502(answer["status"], bytes(answer["body"]))), report
    line = the_line(origin_proxy, path)
    assert line["http"] == "2" and line["outcome"] == "error" and line.get("error"), line
    origin_still_serves(origin_proxy, origin, "/ok/after-goaway")


def test_an_origin_push_promise_never_reaches_the_client(origin_proxy, origin):
    path = "/push/1"
    with tls_tunnel(origin_proxy, ORIGIN, origin.port) as sock:
        client = RecordingH2Client(sock, f"{ORIGIN}:{origin.port}")  # python3-h2 accepts pushes by default
        [answer] = client.wait(client.request(path), timeout=20)
    report = (f"status={answer['status']} body={answer['body']!r} ended={answer['ended']} reset={answer['reset']} "
              f"events={[type(e).__name__ for e in client.events]}")
    print(report)
    assert not [e for e in client.events if isinstance(e, h2.events.PushedStreamReceived)], report
    assert set(client.streams) == {1}, report
    assert answer["status"] is not None or answer["reset"] is not None, report
    # The proxy told the origin pushes are off.
    assert any(s.get(h2.settings.SettingCodes.ENABLE_PUSH) == 0 for s in origin.settings), origin.settings
    line = the_line(origin_proxy, path)
    print("log line:", line, "GOAWAYs at the origin:", origin.goaways)
    assert line["http"] == "2" and line["status"] == (answer["status"] or line["status"]), line
    if line["outcome"] != "allowed":  # the origin broke HTTP/2's rules: its answer is an error
        assert (line["status"], line["error"]) == (502, "upstream-protocol"), line
    assert not [l for l in origin_proxy.log_lines() if l.get("path") == "/pushed"]
    origin_still_serves(origin_proxy, origin, "/ok/after-push")

