"""Bypass suite, smaller gaps (issue 14, class 7): an HTTP/1.0 request without
Host inside a tunnel, '_' spellings of framing and hop-by-hop fields, ports
above 65535, what a refused malformed request logs, bounded log fields, and
the line of an allowed CONNECT that carried no request."""
import socket
import ssl
import time

import pytest

import os
import subprocess

from osftest import Proxy
from osftest.paths import repo
from test_bypass_smuggling import ALIASES, LogCursor, RawUpstream, open_tunnel, proxy_address, read_response


@pytest.fixture(scope="module")
def upstream():
    with RawUpstream() as u:
        yield u


@pytest.fixture(scope="module")
def proxy(tmp_path_factory, upstream):
    spec = {"template": "debian:12", "egress": ["upstream.test", "other.test"]}
    with Proxy(spec, str(tmp_path_factory.mktemp("edges")), aliases=ALIASES,
               args=["--header-timeout", "2"]) as p:
        yield p
        assert_log_matches_the_schema(p)


def assert_log_matches_the_schema(proxy):
    """Every line these tests made (new reasons and errors, cut fields included)
    is valid against the log contract."""
    validator = os.path.join(repo(), "tests", "tools", "ajv", "validate-jsonl.mjs")
    schema = os.path.join(repo(), "contracts", "egress-log.schema.json")
    out = subprocess.run(["node", validator, schema, proxy.log_path], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr


def send(proxy, data, timeout=15):
    with socket.create_connection(proxy_address(proxy), timeout=timeout) as s:
        s.sendall(data)
        return read_response(s, timeout)


def test_http10_without_host_in_a_tunnel_gets_the_tunnel_host(proxy, upstream):
    before = len(upstream.heads)
    with open_tunnel(proxy, "upstream.test", upstream.port, tls=False) as s:
        s.sendall(b"GET /http10 HTTP/1.0\r\n\r\n")
        status, head, body = read_response(s)
    assert status == 200, head
    sent = upstream.heads[before]
    assert sent.startswith(b"GET /http10 HTTP/1.1")
    assert f"\r\nHost: upstream.test:{upstream.port}".encode() in sent


@pytest.mark.parametrize("field", ["Transfer_Encoding: chunked", "Content_Length: 5", "transfer_encoding: gzip",
                                   "Proxy_Connection: keep-alive", "Proxy_Authorization: Basic eDp5",
                                   "Keep_Alive: 1", "HTTP2_Settings: AAMAAABkAAQAAP__"])
def test_underscore_spellings_of_framing_and_hop_by_hop_fields_are_dropped(proxy, upstream, field):
    name = field.split(":")[0].encode()
    before = len(upstream.heads)
    status, head, _ = send(proxy, (f"GET http://upstream.test:{upstream.port}/underscore HTTP/1.1\r\n"
                                   f"Host: upstream.test:{upstream.port}\r\n{field}\r\nX_Other_Field: kept\r\n"
                                   "Connection: close\r\n\r\n").encode())
    assert status == 200, head
    sent = upstream.heads[before]
    assert name.lower() not in sent.lower(), sent
    assert b"X_Other_Field: kept" in sent  # other '_' names are the sandbox's own business


@pytest.mark.parametrize("port", ["65536", "70000", "131152", "0", "99999999999"])
def test_an_absolute_form_port_out_of_range_is_refused(proxy, upstream, port):
    before = upstream.connections
    cursor = LogCursor(proxy)
    status, head, body = send(proxy, (f"GET http://upstream.test:{port}/port HTTP/1.1\r\nHost: upstream.test:{port}\r\n"
                                      "Connection: close\r\n\r\n").encode())
    assert status == 400, head
    assert cursor.wait(lambda l: l["path"] == "/port")[0]["refusedBy"] == "bad-request"
    assert upstream.connections == before


def test_a_malformed_request_is_logged_with_what_was_parsed(proxy, upstream):
    cursor = LogCursor(proxy)
    status, head, body = send(proxy, (f"GET http://upstream.test:{upstream.port}/malformed HTTP/1.1\r\n"
                                      "Host: upstream.test\r\nBad Header Line\r\n\r\n").encode())
    assert status == 400, head
    assert b"refused :" not in body
    line = cursor.wait(lambda l: l["outcome"] == "refused")[0]
    assert line["method"] == "GET" and line["host"] == "upstream.test" and line["path"] == "/malformed"


def test_a_huge_path_is_logged_cut(proxy, upstream):
    cursor = LogCursor(proxy)
    path = "/long" + "x" * 5000
    status, head, _ = send(proxy, (f"GET http://upstream.test:{upstream.port}{path} HTTP/1.1\r\n"
                                   f"Host: upstream.test:{upstream.port}\r\nConnection: close\r\n\r\n").encode())
    assert status == 200, head
    line = cursor.wait(lambda l: l["path"].startswith("/long"))[0]
    assert len(line["path"]) <= 2048 and line["path"].endswith("[cut]")


def connect(proxy, upstream):
    s = socket.create_connection(proxy_address(proxy), timeout=15)
    s.sendall(f"CONNECT upstream.test:{upstream.port} HTTP/1.1\r\nHost: upstream.test:{upstream.port}\r\n\r\n".encode())
    status, head, _ = read_response(s)
    assert status == 200, head
    return s


def connect_lines(cursor):
    return [l for l in cursor.new() if l["method"] == "CONNECT"]


def test_a_connect_whose_client_refuses_the_certificate_leaves_one_line(proxy, upstream):
    cursor = LogCursor(proxy)
    s = connect(proxy, upstream)
    ctx = ssl.create_default_context()  # does not trust the proxy's CA
    with pytest.raises(ssl.SSLError):
        ctx.wrap_socket(s, server_hostname="upstream.test")
    s.close()
    line = cursor.wait(lambda l: l["method"] == "CONNECT")[0]
    assert line["outcome"] == "error" and line["error"] == "client-tls" and line["status"] == 200
    proxy.wait_connections_closed()
    assert len(connect_lines(cursor)) == 1


def test_a_silent_connect_leaves_one_line(proxy, upstream):
    cursor = LogCursor(proxy)
    with connect(proxy, upstream) as s:
        s.settimeout(15)
        assert s.recv(100) == b""  # the proxy gives up after --header-timeout
    line = cursor.wait(lambda l: l["method"] == "CONNECT")[0]
    assert line["outcome"] == "error" and line["error"] == "no-request"


def test_a_connect_that_carries_requests_has_only_their_lines(proxy, upstream):
    cursor = LogCursor(proxy)
    with open_tunnel(proxy, "upstream.test", upstream.port, tls=False) as s:
        s.sendall(f"GET /in-tunnel HTTP/1.1\r\nHost: upstream.test:{upstream.port}\r\nConnection: close\r\n\r\n".encode())
        assert read_response(s)[0] == 200
    cursor.wait(lambda l: l["path"] == "/in-tunnel")
    proxy.wait_connections_closed()
    assert connect_lines(cursor) == []


NON_WEBSOCKET_UPGRADES = [
    "Upgrade: h2c\r\nConnection: Upgrade, HTTP2-Settings\r\nHTTP2-Settings: AAMAAABkAAQAAP__",
    "Upgrade: H2C\r\nConnection: upgrade",
    "Upgrade: TLS/1.2\r\nConnection: Upgrade",
    "Upgrade: foo/1, h2c\r\nConnection: Upgrade",
    # Issue 26, class 3: a list naming websocket too is not a WebSocket handshake (the
    # upstream may pick h2c), nor is websocket with h2c's HTTP2-Settings beside it.
    "Upgrade: h2c, websocket\r\nConnection: Upgrade, HTTP2-Settings\r\nHTTP2-Settings: AAMAAABkAAQAAP__\r\n"
    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13",
    "Upgrade: websocket, h2c\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
    "Sec-WebSocket-Version: 13",
    "Upgrade: websocket\r\nUpgrade: h2c\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
    "Sec-WebSocket-Version: 13",
    "Upgrade: websocket\r\nConnection: Upgrade\r\nHTTP2-Settings: AAMAAABkAAQAAP__\r\n"
    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13",
]


@pytest.mark.parametrize("route", ["absolute-form", "tunnel"])
@pytest.mark.parametrize("fields", NON_WEBSOCKET_UPGRADES)
def test_an_upgrade_other_than_websocket_never_reaches_an_egress_host(proxy, upstream, route, fields):
    """Only WebSocket is relayed after a 101: another protocol (h2c above all) would carry
    requests the proxy cannot read, with any :authority, past the Host and secret checks."""
    before = len(upstream.heads)
    head_fields = f"Host: upstream.test:{upstream.port}\r\n{fields}\r\n\r\n"
    if route == "absolute-form":
        status, head, _ = send(proxy, f"GET http://upstream.test:{upstream.port}/upg HTTP/1.1\r\n{head_fields}".encode())
    else:
        with open_tunnel(proxy, "upstream.test", upstream.port, tls=False) as s:
            s.sendall(f"GET /upg HTTP/1.1\r\n{head_fields}".encode())
            status, head, _ = read_response(s)
    assert status == 200, head
    sent = upstream.heads[before].lower()
    assert b"upgrade" not in sent and b"http2-settings" not in sent, sent


ODD_FORMS = ["OPTIONS * HTTP/1.1", "GET * HTTP/1.1", "connect upstream.test:{port} HTTP/1.1",
             "GET upstream.test:{port} HTTP/1.1"]


@pytest.mark.parametrize("route,line", [("proxy", l) for l in ODD_FORMS] + [("tunnel", l) for l in ODD_FORMS] +
                         [("tunnel", "CONNECT other.test:{port} HTTP/1.1")])
def test_request_forms_a_forward_proxy_does_not_serve_are_refused(proxy, upstream, route, line):
    """Asterisk-form, authority-form with another method, a lower-case connect, and a
    CONNECT inside a tunnel (a second hop through the first) go nowhere."""
    before = upstream.connections if route == "proxy" else len(upstream.heads)
    data = (line.format(port=upstream.port) + f"\r\nHost: upstream.test:{upstream.port}\r\n\r\n").encode()
    if route == "proxy":
        status, head, _ = send(proxy, data)
        assert upstream.connections == before
    else:
        with open_tunnel(proxy, "upstream.test", upstream.port, tls=False) as s:
            s.sendall(data)
            status, head, _ = read_response(s)
        time.sleep(0.2)
        assert len(upstream.heads) == before, upstream.heads[before:]
    assert status == 400, head
