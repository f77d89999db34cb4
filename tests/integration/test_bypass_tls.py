"""Bypass suite, TLS: what a sandbox can say in the TLS layer of a CONNECT
tunnel (SNI, ALPN, no TLS at all) never takes a request anywhere but the
CONNECT host, and every request is logged."""
import json
import socket
import ssl
import time

import pytest

from osftest import Proxy, TestCA, Upstream
from test_bypass_smuggling import LogCursor, open_tunnel, proxy_address, read_response, read_until_close

ALIASES = {"upstream.test": "127.0.0.1", "other.test": "127.0.0.1"}


@pytest.fixture(scope="module")
def ca(tmp_path_factory):
    return TestCA(str(tmp_path_factory.mktemp("tls-ca")))


@pytest.fixture(scope="module")
def upstream(ca):
    with Upstream(ca, ["upstream.test", "other.test"]) as u:
        yield u


@pytest.fixture(scope="module")
def proxy(tmp_path_factory, ca, upstream):
    spec = {"template": "debian:12", "egress": ["upstream.test", "other.test"]}
    with Proxy(spec, str(tmp_path_factory.mktemp("tls")), aliases=ALIASES, upstream_ca=ca.cert_path,
               args=["--header-timeout", "5"]) as p:
        yield p


def request(s, host, path):
    s.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())
    return read_response(s)


def paths_seen(upstream):
    return [r["path"] for r in upstream.requests]


@pytest.mark.parametrize("sni", ["other.test", "denied.test", "127.0.0.1.nip.io", "upstream.test.evil.test"])
def test_sni_naming_another_host_is_refused(proxy, upstream, sni):
    cursor = LogCursor(proxy)
    path = "/sni-" + sni
    with open_tunnel(proxy, "upstream.test", upstream.port, server_hostname=sni, verify_name=False) as s:
        # The proxy's certificate names the CONNECT host, whatever the SNI says.
        assert [v for k, v in s.getpeercert()["subjectAltName"]] == ["upstream.test"]
        status, head, _ = request(s, f"upstream.test:{upstream.port}", path)
    assert status == 403, head
    line = cursor.wait(lambda l: l["path"] == path)[0]
    assert line["refusedBy"] == "host-mismatch" and line["host"] == "upstream.test"
    assert path not in paths_seen(upstream)


def test_sni_and_host_both_naming_another_allowed_host_are_refused(proxy, upstream):
    # Domain fronting in full: CONNECT upstream.test, TLS and Host say other.test.
    cursor = LogCursor(proxy)
    with open_tunnel(proxy, "upstream.test", upstream.port, server_hostname="other.test",
                     verify_name=False) as s:
        status, head, _ = request(s, f"other.test:{upstream.port}", "/front")
    assert status == 403, head
    assert cursor.wait(lambda l: l["path"] == "/front")[0]["refusedBy"] == "host-mismatch"
    assert "/front" not in paths_seen(upstream)


@pytest.mark.parametrize("sni", ["UPSTREAM.TEST", "upstream.test."])
def test_sni_spelling_of_the_connect_host_is_accepted(proxy, upstream, sni):
    s = socket.create_connection(proxy_address(proxy), timeout=15)
    s.sendall(f"CONNECT upstream.test:{upstream.port} HTTP/1.1\r\n\r\n".encode())
    assert read_response(s)[0] == 200
    ctx = ssl.create_default_context(cafile=proxy.ca_path)
    ctx.check_hostname = False
    with ctx.wrap_socket(s, server_hostname=sni) as t:
        status, head, body = request(t, f"upstream.test:{upstream.port}", "/case")
    assert status == 200, head
    assert json.loads(body)["sni"] == "upstream.test"  # the proxy names the CONNECT host upstream


def test_no_sni_gets_the_connect_host_only(proxy, upstream):
    cursor = LogCursor(proxy)
    s = socket.create_connection(proxy_address(proxy), timeout=15)
    s.sendall(f"CONNECT upstream.test:{upstream.port} HTTP/1.1\r\n\r\n".encode())
    assert read_response(s)[0] == 200
    ctx = ssl.create_default_context(cafile=proxy.ca_path)
    ctx.check_hostname = False
    with ctx.wrap_socket(s) as t:  # no server_hostname: no SNI
        cert = t.getpeercert()
        sans = [v for k, v in cert["subjectAltName"]]
        assert sans == ["upstream.test"]
        t.sendall(f"GET /nosni HTTP/1.1\r\nHost: upstream.test:{upstream.port}\r\n\r\n".encode())
        status, head, body = read_response(t)
        assert status == 200
        assert json.loads(body)["sni"] == "upstream.test"
        # Another Host on the same SNI-less tunnel is still refused.
        t.sendall(f"GET /nosni2 HTTP/1.1\r\nHost: other.test:{upstream.port}\r\nConnection: close\r\n\r\n".encode())
        status, head, _ = read_response(t)
        assert status == 403
    assert cursor.wait(lambda l: l["path"] == "/nosni2")[0]["refusedBy"] == "host-mismatch"
    assert "/nosni2" not in paths_seen(upstream)


@pytest.fixture(scope="module")
def proxy_http11(tmp_path_factory, ca, upstream):
    """The same proxy with HTTP/2 turned off (--http2 off): ALPN http/1.1 only."""
    spec = {"template": "debian:12", "egress": ["upstream.test", "other.test"]}
    with Proxy(spec, str(tmp_path_factory.mktemp("tls-http11")), aliases=ALIASES,
               upstream_ca=ca.cert_path, args=["--header-timeout", "5", "--http2", "off"]) as p:
        yield p


def tls_with_alpn(proxy, upstream, protocols):
    s = socket.create_connection(proxy_address(proxy), timeout=15)
    s.sendall(f"CONNECT upstream.test:{upstream.port} HTTP/1.1\r\n\r\n".encode())
    assert read_response(s)[0] == 200
    ctx = ssl.create_default_context(cafile=proxy.ca_path)
    ctx.set_alpn_protocols(protocols)
    return s, ctx


def first_frame_type(t):
    """Sends the HTTP/2 preface and an empty SETTINGS; returns the type of the first frame back."""
    t.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00")
    header = b""
    while len(header) < 9:
        more = t.recv(9 - len(header))
        assert more, "the proxy closed the connection instead of answering the preface"
        header += more
    return header[3]


@pytest.mark.parametrize("protocols", [["h2"], ["h2", "http/1.1"], ["http/1.1", "h2"]])
def test_a_client_offering_h2_gets_h2(proxy, upstream, protocols):
    s, ctx = tls_with_alpn(proxy, upstream, protocols)
    with ctx.wrap_socket(s, server_hostname="upstream.test") as t:
        assert t.selected_alpn_protocol() == "h2"  # the proxy's preference, whatever the order
        assert first_frame_type(t) == 4  # SETTINGS: an HTTP/2 server answers


def test_with_http2_off_a_client_offering_only_h2_falls_back_or_fails_cleanly(proxy_http11, upstream):
    proxy = proxy_http11
    s, ctx = tls_with_alpn(proxy, upstream, ["h2"])
    cursor = LogCursor(proxy)
    try:
        t = ctx.wrap_socket(s, server_hostname="upstream.test")
    except ssl.SSLError as e:
        # Failing cleanly: a TLS alert (no_application_protocol), nothing forwarded.
        assert "NO_APPLICATION_PROTOCOL" in str(e).upper() or "ALERT" in str(e).upper()
        return
    with t:
        assert t.selected_alpn_protocol() in (None, "http/1.1")  # never h2
        # A client that speaks h2 anyway gets a 400 and a log line, not a tunnel.
        t.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00")
        status, head, _ = read_response(t)
    assert status == 400, head
    assert cursor.wait(lambda l: l["outcome"] == "refused")[0]["refusedBy"] == "bad-request"
    assert all(r["method"] != "PRI" for r in upstream.requests)


def test_with_http2_off_a_client_offering_h2_and_http11_gets_http11(proxy_http11, upstream):
    s, ctx = tls_with_alpn(proxy_http11, upstream, ["h2", "http/1.1"])
    with ctx.wrap_socket(s, server_hostname="upstream.test") as t:
        assert t.selected_alpn_protocol() == "http/1.1"
        status, _, _ = request(t, f"upstream.test:{upstream.port}", "/alpn")
    assert status == 200


@pytest.mark.parametrize("payload", [
    b"this is not TLS and not HTTP\r\n\r\n",
    b"\x00\x01\x02\x03 binary junk\r\n\r\n",
    b"SSH-2.0-OpenSSH_9.2\r\n\r\n",
])
def test_non_tls_bytes_inside_a_connect_to_a_tls_port_get_400(proxy, upstream, payload):
    cursor = LogCursor(proxy)
    before = len(upstream.requests)
    with open_tunnel(proxy, "upstream.test", upstream.port, tls=False) as s:
        s.sendall(payload)
        status, head, _ = read_response(s)
    assert status == 400, head
    line = cursor.wait(lambda l: l["outcome"] == "refused")[0]
    assert line["refusedBy"] == "bad-request" and line["host"] == "upstream.test"
    assert len(upstream.requests) == before


def test_a_broken_tls_handshake_is_cut_and_the_proxy_keeps_serving(proxy, upstream):
    for junk in [b"\x16\x03\x01\x00\x05hello", b"\x16\x03\x03\xff\xff" + b"A" * 64, b"\x16"]:
        with open_tunnel(proxy, "upstream.test", upstream.port, tls=False) as s:
            s.sendall(junk)
            s.shutdown(socket.SHUT_WR)
            assert b"HTTP/1.1 200" not in read_until_close(s, timeout=15)
    with open_tunnel(proxy, "upstream.test", upstream.port, server_hostname="upstream.test") as t:
        assert request(t, f"upstream.test:{upstream.port}", "/after-junk")[0] == 200


def test_plain_http_inside_a_connect_to_a_tls_upstream_is_not_upgraded(proxy, upstream):
    # Plain HTTP in a tunnel is forwarded as plain HTTP; a TLS upstream cannot
    # read it, so the answer is an error, never a silent switch to TLS.
    cursor = LogCursor(proxy)
    with open_tunnel(proxy, "upstream.test", upstream.port, tls=False) as s:
        status, head, _ = request(s, f"upstream.test:{upstream.port}", "/plain-in-tls")
    assert status in (0, 502, 504), head
    line = cursor.wait(lambda l: l["path"] == "/plain-in-tls", timeout=60)[0]
    assert line["outcome"] == "error" and line["scheme"] == "http"
