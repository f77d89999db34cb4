"""Bypass suite, secrets: every way a sandbox could steer a placeholder to a host
that must not get the real value. API is in egress (substitution happens
there); MCP is an MCP-only host (placeholders pass untouched); REFUSED is not
allowed at all. Every upstream records every byte it receives, and after each
test the real value (and its Basic-credential forms) may appear only in what
API received."""
import base64
import json
import secrets as random_tokens
import socket
import subprocess

import pytest

import h2.events

from osftest import Proxy, TestCA
from osftest.h2 import H2Client
from osftest.h2 import tls_tunnel as h2_tunnel
from test_bypass_smuggling import (LogCursor, RawUpstream, open_tunnel, proxy_address, read_response,
                                   tls_server_context)

PREFIX = "osf-secret-placeholder-"
TOKEN = "real-bypass-token-" + random_tokens.token_hex(8)
API, MCP, REFUSED = "api.bypass.test", "mcp.bypass.test", "refused.bypass.test"


def forms(value):
    out = {value.encode()}
    for creds in (f"x:{value}", f"{value}:x", f"{value}:"):
        out.add(base64.b64encode(creds.encode()))
    return out


def leaked(data: bytes) -> bool:
    return any(f in data for f in forms(TOKEN))


def field_value(head, name):
    for line in head.split(b"\r\n")[1:]:
        k, _, v = line.partition(b":")
        if k.strip().lower() == name:
            return v.strip()
    return b""


EARLIER = {}  # the last Authorization value the API upstream received, on any connection


def echo_answer(head, path):
    """An upstream that echoes what it received into the answer head: the
    Authorization value (the Basic token the proxy built) in a field value,
    X-Token (the raw value) in the reason phrase, or in a field name.
    `/echo-earlier` echoes the Authorization of an earlier request (any connection)
    in a field; `/echo-earlier-trailer` in a trailer field of a chunked answer."""
    auth, token = field_value(head, b"authorization"), field_value(head, b"x-token")
    if auth:
        EARLIER["authorization"] = auth
    earlier = EARLIER.get("authorization", b"")
    if path.startswith(b"/echo-earlier-trailer"):
        return (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTrailer: X-Echo\r\n\r\n"
                b"2\r\nok\r\n0\r\nX-Echo: " + earlier + b"\r\n\r\n")
    if path.startswith(b"/echo-earlier"):
        return (b"HTTP/1.1 200 OK\r\nX-Echo: " + earlier + b"\r\nWWW-Authenticate: Basic realm=\"" +
                earlier.split(b" ")[-1] + b"\"\r\nContent-Length: 0\r\n\r\n")
    if path.startswith(b"/echo-basic"):
        return (b"HTTP/1.1 200 OK\r\nX-Echo: " + auth + b"\r\nWWW-Authenticate: Basic realm=\"" +
                auth.split(b" ")[-1] + b"\"\r\nContent-Length: 0\r\n\r\n")
    if path.startswith(b"/echo-reason"):
        return b"HTTP/1.1 401 Bad token " + token + b" given\r\nContent-Length: 0\r\n\r\n"
    if path.startswith(b"/echo-name"):
        return b"HTTP/1.1 200 OK\r\nX-" + token + b": 1\r\nContent-Length: 2\r\n\r\nok"
    if path.startswith(b"/echo-cookie"):
        return (b"HTTP/1.1 200 OK\r\nSet-Cookie: session=" + token + b"; Path=/\r\n"
                b"Location: /?t=" + token + b"\r\nContent-Length: 0\r\n\r\n")
    return None


def redirect_route(target):
    def route(head, path, body):
        if path.startswith(b"/redirect"):
            return (b"HTTP/1.1 302 Found\r\nLocation: " + target.encode() +
                    b"\r\nContent-Length: 0\r\n\r\n")
        return echo_answer(head, path)
    return route


class TrailerH2Client(H2Client):
    """osftest.h2's H2Client that also keeps each stream's trailer fields."""

    def __init__(self, sock, authority):
        super().__init__(sock, authority)
        receive = self.conn.receive_data

        def recording(data):
            events = receive(data)
            for e in events:
                if isinstance(e, h2.events.TrailersReceived) and e.stream_id in self.streams:
                    self.streams[e.stream_id]["trailers"] = list(e.headers)
            return events

        self.conn.receive_data = recording

    def request(self, path, **kw):
        sid = super().request(path, **kw)
        self.streams[sid]["trailers"] = []
        return sid


@pytest.fixture(scope="module")
def ca(tmp_path_factory):
    return TestCA(str(tmp_path_factory.mktemp("secrets-ca")))


@pytest.fixture(scope="module")
def servers(ca):
    # Every host name the tests use is served from its own recording upstream.
    mcp = RawUpstream(tls=tls_server_context(ca, [MCP]))
    refused = RawUpstream(tls=tls_server_context(ca, [REFUSED]))
    api = RawUpstream(tls=tls_server_context(ca, [API]),
                      route=redirect_route(f"https://{MCP}:{mcp.port}/landed"))
    plain_mcp = RawUpstream()
    yield {"api": api, "mcp": mcp, "refused": refused, "plain_mcp": plain_mcp}
    for s in (api, mcp, refused, plain_mcp):
        s.stop()


@pytest.fixture(scope="module")
def proxy(tmp_path_factory, ca, servers):
    spec = {"template": "debian:12", "egress": [API],
            "secrets": {"API_TOKEN": "ref:env/API_TOKEN"},
            "mcp": [{"name": "wiki", "url": f"https://{MCP}:{servers['mcp'].port}/mcp", "tools": ["search"]},
                    {"name": "plain", "url": f"http://{MCP}:{servers['plain_mcp'].port}/mcp", "tools": ["search"]}]}
    with Proxy(spec, str(tmp_path_factory.mktemp("secrets")), upstream_ca=ca.cert_path,
               aliases={API: "127.0.0.1", MCP: "127.0.0.1", REFUSED: "127.0.0.1"},
               env={"OSF_SECRET_API_TOKEN": TOKEN}) as p:
        yield p
        with open(p.log_path, "rb") as f:
            assert not leaked(f.read())
        assert TOKEN not in p.stderr() + p.stdout()


@pytest.fixture(autouse=True)
def nothing_leaks_to_the_wrong_host(servers):
    yield
    for name, server in servers.items():
        if name != "api":
            assert not leaked(server.raw), f"the real value reached the {name} upstream"


def req(s, host, path, *headers, close=False):
    lines = [f"GET {path} HTTP/1.1", f"Host: {host}", *headers]
    if close:
        lines.append("Connection: close")
    s.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
    return read_response(s)


def test_the_value_reaches_the_allowed_host(proxy, servers):
    api = servers["api"]
    with open_tunnel(proxy, API, api.port, server_hostname=API) as s:
        status, head, body = req(s, f"{API}:{api.port}", "/ok", f"Authorization: Bearer {PREFIX}API_TOKEN",
                                 close=True)
    assert status == 200
    assert TOKEN.encode() in api.raw  # the control: substitution does happen
    assert not leaked(head + body)


def test_second_request_on_a_kept_alive_tunnel_to_another_host(proxy, servers):
    api, mcp = servers["api"], servers["mcp"]
    cursor = LogCursor(proxy)
    with open_tunnel(proxy, API, api.port, server_hostname=API) as s:
        assert req(s, f"{API}:{api.port}", "/first", f"Authorization: Bearer {PREFIX}API_TOKEN")[0] == 200
        for host in (f"{MCP}:{mcp.port}", f"{REFUSED}:{api.port}", f"{API}:{mcp.port}", f"{MCP}:{api.port}"):
            status, head, body = req(s, host, "/second", f"Authorization: Bearer {PREFIX}API_TOKEN")
            assert status == 403, head
            assert not leaked(head + body)
    lines = cursor.wait(lambda l: l["path"] == "/second")
    assert all(l["refusedBy"] == "host-mismatch" and not l.get("secrets") for l in lines)


def test_redirect_to_another_host_is_followed_without_the_value(proxy, servers, tmp_path):
    api, mcp = servers["api"], servers["mcp"]
    # curl follows the 302 to the MCP-only host through the proxy, re-sending the
    # header it was told to send: that host gets the placeholder, never the value.
    res = subprocess.run(["curl", "-sS", "-L", "--max-time", "30", "--proxy", proxy.url,
                          "--cacert", proxy.ca_path, "-H", f"X-Token: {PREFIX}API_TOKEN",
                          "-u", f"x:{PREFIX}API_TOKEN", "--location-trusted",
                          f"https://{API}:{api.port}/redirect"], capture_output=True, timeout=60)
    assert b"/landed" in mcp.raw, res.stderr
    landed = mcp.raw[mcp.raw.index(b"/landed"):]
    assert f"{PREFIX}API_TOKEN".encode() in landed
    assert not leaked(res.stdout + res.stderr)


def test_a_redirect_by_hand_on_the_same_tunnel_is_refused(proxy, servers):
    # The client keeps the tunnel and only changes the Host header, as a naive
    # redirect follower might.
    api, mcp = servers["api"], servers["mcp"]
    with open_tunnel(proxy, API, api.port, server_hostname=API) as s:
        status, head, _ = req(s, f"{API}:{api.port}", "/redirect")
        assert status == 302
        status, head, _ = req(s, f"{MCP}:{mcp.port}", "/landed-by-hand", f"Authorization: Bearer {PREFIX}API_TOKEN")
        assert status == 403
    assert b"/landed-by-hand" not in mcp.raw


@pytest.mark.parametrize("header", [
    f"AUTHORIZATION: Bearer {PREFIX}API_TOKEN",
    f"authorization: Bearer {PREFIX}API_TOKEN",
    f"X-Other: {PREFIX.upper()}API_TOKEN",
    f"X-Other: {PREFIX}api_token",
    f"X-Other: {PREFIX}API_TOKEN{PREFIX}API_TOKEN",
    "Authorization: Basic " + base64.b64encode(f"x:{PREFIX}API_TOKEN".encode()).decode(),
    "AUTHORIZATION: BASIC " + base64.b64encode(f"{PREFIX}API_TOKEN:".encode()).decode(),
    f"Proxy-Authorization: Bearer {PREFIX}API_TOKEN",
])
def test_header_case_games_never_send_the_value_elsewhere(proxy, servers, header):
    api, mcp = servers["api"], servers["mcp"]
    # To the MCP-only host (no substitution there): the bytes it gets hold no value.
    with open_tunnel(proxy, MCP, mcp.port, server_hostname=MCP) as s:
        s.sendall((f"POST /mcp HTTP/1.1\r\nHost: {MCP.upper()}:{mcp.port}\r\n{header}\r\n"
                   "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
                   "Content-Length: 46\r\nConnection: close\r\n\r\n"
                   '{"jsonrpc":"2.0","id":1,"method":"tools/list"}').encode())
        read_response(s)
    # To the allowed host with the same header: whatever is substituted stays there,
    # and Proxy-Authorization never leaves the proxy.
    with open_tunnel(proxy, API, api.port, server_hostname=API) as s:
        status, head, body = req(s, f"{API.upper()}.:{api.port}", "/case", header, close=True)
    assert status == 200
    assert b"proxy-authorization" not in api.raw.lower()
    assert not leaked(head + body)


def test_placeholders_outside_headers_are_not_substituted(proxy, servers):
    api = servers["api"]
    before = len(api.raw)
    with open_tunnel(proxy, API, api.port, server_hostname=API) as s:
        s.sendall((f"POST /body?q={PREFIX}API_TOKEN HTTP/1.1\r\nHost: {API}:{api.port}\r\n"
                   f"Content-Length: {len(PREFIX) + 9}\r\nConnection: close\r\n\r\n{PREFIX}API_TOKEN").encode())
        status, _, _ = read_response(s)
    assert status == 200
    assert not leaked(api.raw[before:])  # URL and body are the sandbox's own bytes


def test_refused_and_plain_mcp_destinations_never_get_the_value(proxy, servers):
    refused, plain_mcp = servers["refused"], servers["plain_mcp"]
    headers = f"Host: {REFUSED}:{refused.port}\r\nAuthorization: Bearer {PREFIX}API_TOKEN\r\nConnection: close\r\n"
    for data in [f"CONNECT {REFUSED}:{refused.port} HTTP/1.1\r\n{headers}\r\n",
                 f"GET https://{REFUSED}:{refused.port}/x HTTP/1.1\r\n{headers}\r\n",
                 f"GET http://{PREFIX}API_TOKEN@{REFUSED}:{refused.port}/x HTTP/1.1\r\n{headers}\r\n",
                 f"GET http://{API}:{refused.port}@{REFUSED}:{refused.port}/x HTTP/1.1\r\n{headers}\r\n"]:
        with socket.create_connection(proxy_address(proxy), timeout=15) as s:
            s.sendall(data.encode())
            status, head, body = read_response(s)
            assert status in (400, 403), head
            assert not leaked(head + body)
    assert refused.connections == 0
    with socket.create_connection(proxy_address(proxy), timeout=15) as s:
        s.sendall((f"POST http://{MCP}:{plain_mcp.port}/mcp HTTP/1.1\r\nHost: {MCP}:{plain_mcp.port}\r\n"
                   f"Authorization: Bearer {PREFIX}API_TOKEN\r\nContent-Type: application/json\r\n"
                   "Accept: application/json, text/event-stream\r\nContent-Length: 46\r\nConnection: close\r\n\r\n"
                   '{"jsonrpc":"2.0","id":1,"method":"tools/list"}').encode())
        read_response(s)
    assert f"{PREFIX}API_TOKEN".encode() in plain_mcp.raw


# --- echoes in the answer head (issue 14, class 4) -------------------------------------
# The answer head is masked for every form the proxy wrote (the value, its
# percent-encoding, the Basic credentials it encoded); answer bodies are not
# inspected (documented).

BASIC_SENT = base64.b64encode(f"x:{PREFIX}API_TOKEN".encode()).decode()


def test_an_echoed_basic_token_is_put_back_to_what_the_sandbox_sent(proxy, servers):
    api = servers["api"]
    with open_tunnel(proxy, API, api.port, server_hostname=API) as s:
        status, head, body = req(s, f"{API}:{api.port}", "/echo-basic", f"Authorization: Basic {BASIC_SENT}",
                                 close=True)
    assert status == 200, head
    assert base64.b64encode(f"x:{TOKEN}".encode()) in api.raw  # the control: it was substituted
    assert f"X-Echo: Basic {BASIC_SENT}".encode() in head
    assert not leaked(head + body)


def test_a_basic_token_written_earlier_is_masked_in_a_later_answer_on_another_connection(proxy, servers):
    """Issue 41, class 3: the token the proxy built for one request, echoed by the origin
    in the answer to a later request (which wrote nothing) on another connection."""
    api = servers["api"]
    user = "user-" + random_tokens.token_hex(4)  # a token no earlier test built
    sent = base64.b64encode(f"{user}:{PREFIX}API_TOKEN".encode()).decode()
    with open_tunnel(proxy, API, api.port, server_hostname=API) as s:
        assert req(s, f"{API}:{api.port}", "/first", f"Authorization: Basic {sent}", close=True)[0] == 200
    built = base64.b64encode(f"{user}:{TOKEN}".encode())
    assert built in api.raw  # the control: the proxy built it
    with open_tunnel(proxy, API, api.port, server_hostname=API) as s:
        status, head, body = req(s, f"{API}:{api.port}", "/echo-earlier", close=True)
    assert status == 200, head
    assert built not in head
    assert f"X-Echo: Basic {sent}".encode() in head
    assert f'realm="{sent}"'.encode() in head


def test_a_basic_token_written_earlier_is_masked_in_an_http2_trailer(proxy, servers):
    api = servers["api"]
    user = "h2-" + random_tokens.token_hex(4)
    sent = base64.b64encode(f"{user}:{PREFIX}API_TOKEN".encode()).decode()
    built = base64.b64encode(f"{user}:{TOKEN}".encode())
    with h2_tunnel(proxy, API, api.port) as sock:
        client = TrailerH2Client(sock, f"{API}:{api.port}")
        first = client.request("/first-h2", headers=[("authorization", f"Basic {sent}")])
        assert client.wait(first)[0]["status"] == 200
        assert built in api.raw
        later = client.request("/echo-earlier-trailer")
        record = client.wait(later)[0]
    assert record["status"] == 200 and record["body"] == b"ok", record
    assert ("x-echo", f"Basic {sent}") in record["trailers"], record["trailers"]
    assert not any(built.decode() in v for _, v in record["headers"] + record["trailers"])


def test_a_value_echoed_in_the_reason_phrase_is_masked(proxy, servers):
    api = servers["api"]
    with open_tunnel(proxy, API, api.port, server_hostname=API) as s:
        status, head, body = req(s, f"{API}:{api.port}", "/echo-reason", f"X-Token: {PREFIX}API_TOKEN", close=True)
    assert status == 401, head
    assert head.split(b"\r\n")[0] == f"HTTP/1.1 401 Bad token {PREFIX}API_TOKEN given".encode()
    assert not leaked(head + body)


def test_a_value_echoed_in_a_cookie_and_a_location_is_masked(proxy, servers):
    api = servers["api"]
    with open_tunnel(proxy, API, api.port, server_hostname=API) as s:
        status, head, body = req(s, f"{API}:{api.port}", "/echo-cookie", f"X-Token: {PREFIX}API_TOKEN", close=True)
    assert status == 200, head
    assert f"session={PREFIX}API_TOKEN".encode() in head
    assert not leaked(head + body)


def test_a_value_echoed_in_a_field_name_refuses_the_answer(proxy, servers):
    api = servers["api"]
    cursor = LogCursor(proxy)
    with open_tunnel(proxy, API, api.port, server_hostname=API) as s:
        status, head, body = req(s, f"{API}:{api.port}", "/echo-name", f"X-Token: {PREFIX}API_TOKEN", close=True)
    assert status == 502, head
    assert b"X-Osf-Refused-By: secret-echo" in head
    assert not leaked(head + body)
    line = cursor.wait(lambda l: l["path"] == "/echo-name")[0]
    assert line["outcome"] == "refused" and line["refusedBy"] == "secret-echo"


# --- never in clear (issue 14, class 5) --------------------------------------------------

@pytest.mark.parametrize("header", [
    f"Authorization: Bearer {PREFIX}API_TOKEN",
    "Authorization: Basic " + base64.b64encode(f"x:{PREFIX}API_TOKEN".encode()).decode(),
    f"X-Anything: a{PREFIX}API_TOKEN",
])
def test_a_plain_http_request_with_a_placeholder_is_refused(proxy, servers, header):
    api = servers["api"]
    cursor = LogCursor(proxy)
    before = len(api.raw)
    # Absolute-form http:// to the egress host (its port speaks TLS, but the
    # proxy must not even try), then plain HTTP inside a CONNECT tunnel.
    with socket.create_connection(proxy_address(proxy), timeout=15) as s:
        s.sendall((f"GET http://{API}:{api.port}/clear HTTP/1.1\r\nHost: {API}:{api.port}\r\n"
                   f"{header}\r\nConnection: close\r\n\r\n").encode())
        status, head, body = read_response(s)
    assert status == 403, head
    assert b"X-Osf-Refused-By: secret-cleartext" in head
    with open_tunnel(proxy, API, api.port, tls=False) as s:
        status, head, body = req(s, f"{API}:{api.port}", "/clear-tunnel", header, close=True)
    assert status == 403, head
    assert not leaked(api.raw[before:])
    lines = cursor.wait(lambda l: l["path"] in ("/clear", "/clear-tunnel") and l["outcome"] != "error")
    lines = [l for l in cursor.new() if l["path"] in ("/clear", "/clear-tunnel")]
    assert len(lines) == 2 and all(l["refusedBy"] == "secret-cleartext" and not l.get("secrets") for l in lines)


def test_a_plain_http_request_without_a_placeholder_still_goes(proxy, servers):
    plain_mcp = servers["plain_mcp"]
    with socket.create_connection(proxy_address(proxy), timeout=15) as s:
        s.sendall((f"GET http://{MCP}:{plain_mcp.port}/other HTTP/1.1\r\nHost: {MCP}:{plain_mcp.port}\r\n"
                   "Connection: close\r\n\r\n").encode())
        status, head, _ = read_response(s)
    assert status != 403, head
