"""Bypass suite, smaller gaps of the fifth round (issue 26, class 5): a pooled upstream
connection that received bytes nobody asked for, and a connection over
--max-connections."""
import os
import socket
import subprocess
import time

import pytest

from osftest import Proxy
from osftest.upstream import RawServer
from osftest.waiting import scaled, wait_until
from test_bypass_smuggling import ALIASES, LogCursor, proxy_address, read_response


class LateSecondAnswer(RawServer):
    """Answers each request with `200 ok <path>`; after `/double` it sends, 200 ms
    later and unasked, a second answer (`spoofed`) on the same connection."""

    def serve(self, conn):
        conn.settimeout(30)
        data = b""
        with conn:
            try:
                while True:
                    while b"\r\n\r\n" not in data:
                        more = conn.recv(65536)
                        if not more:
                            return
                        data += more
                    head, data = data.split(b"\r\n\r\n", 1)
                    path = head.split(b" ")[1]
                    body = b"ok " + path
                    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
                    if path.endswith(b"/double"):
                        time.sleep(0.2)
                        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 7\r\n\r\nspoofed")
            except OSError:
                return


@pytest.fixture(scope="module")
def upstream():
    u = LateSecondAnswer()
    yield u
    u.stop()


@pytest.fixture(scope="module")
def proxy(tmp_path_factory, upstream):
    with Proxy({"template": "debian:12", "egress": ["upstream.test"]},
               str(tmp_path_factory.mktemp("gaps")), aliases=ALIASES, args=["--max-connections", "3"]) as p:
        yield p


def test_a_pooled_connection_with_unread_bytes_is_not_reused(proxy, upstream):
    with socket.create_connection(proxy_address(proxy), timeout=15) as s:
        for path in ("/double", "/next"):
            s.sendall(f"GET http://upstream.test:{upstream.port}{path} HTTP/1.1\r\n"
                      f"Host: upstream.test:{upstream.port}\r\n\r\n".encode())
            status, head, body = read_response(s)
            assert status == 200, head
            assert body == b"ok " + path.encode(), (path, body)
            time.sleep(0.4)  # the unsolicited answer arrives while the connection is pooled


def test_a_connection_over_the_limit_gets_a_503_and_a_line(proxy, upstream):
    held = [socket.create_connection(proxy_address(proxy), timeout=15) for _ in range(3)]
    try:
        wait_until(lambda: proxy.open_connections() == 3, 30, "the proxy to hold the three connections")
        cursor = LogCursor(proxy)
        with socket.create_connection(proxy_address(proxy), timeout=15) as s:
            s.sendall(f"GET http://upstream.test:{upstream.port}/over HTTP/1.1\r\n"
                      f"Host: upstream.test:{upstream.port}\r\n\r\n".encode())
            status, head, body = read_response(s)
        assert status == 503, head
        assert b"too many connections" in body
        line = cursor.wait(lambda l: l.get("status") == 503)[0]
        assert line["outcome"] == "refused" and line["refusedBy"] == "limit", line
        # A flood over the limit adds at most a line a second (every refusal is in
        # /metrics). The bound grows with the flood's own length, so a slow
        # machine gets a looser bound, never a false failure.
        started = time.monotonic()
        for _ in range(50):
            with socket.create_connection(proxy_address(proxy), timeout=15) as s:
                read_response(s, timeout=scaled(15))
        seconds = time.monotonic() - started
        wait_until(lambda: proxy.open_connections() == 3, 30, "the flood's connections to end")
        lines = len([l for l in cursor.new() if l.get("status") == 503])
        assert lines <= 3 + seconds, f"{lines} lines for 50 refusals in {seconds:.1f} s"
    finally:
        for s in held:
            s.close()
    proxy.wait_connections_closed()
    with socket.create_connection(proxy_address(proxy), timeout=15) as s:
        s.sendall(f"GET http://upstream.test:{upstream.port}/after HTTP/1.1\r\n"
                  f"Host: upstream.test:{upstream.port}\r\nConnection: close\r\n\r\n".encode())
        assert read_response(s)[0] == 200


def s_client(proxy, servername, version, session_flag, session_file):
    """openssl s_client through the proxy's CONNECT (its -proxy option); what it printed."""
    res = subprocess.run(["openssl", "s_client", "-proxy", proxy.listen, "-connect", "upstream.test:443",
                          "-servername", servername, version, session_flag, session_file,
                          "-CAfile", os.path.join(proxy.state_dir, "ca.crt")],
                         input="", capture_output=True, text=True, timeout=30)
    return res.stdout + res.stderr


def test_no_tls12_session_resumes_under_another_server_name(proxy, tmp_path):
    """A resumed TLS 1.2 session keeps the first connection's SNI (SSL_get_servername
    reports it), so a tunnel could name another host unseen: a TLS 1.2 client gets no
    ticket and none is taken; TLS 1.3 resumption (where the SNI is this hello's) stays."""
    tls12 = str(tmp_path / "tls12.session")
    first = s_client(proxy, "upstream.test", "-tls1_2", "-sess_out", tls12)
    assert "New, TLSv1.2" in first, first
    if os.path.exists(tls12):
        second = s_client(proxy, "other.test", "-tls1_2", "-sess_in", tls12)
        assert "Reused" not in second, second
    tls13 = str(tmp_path / "tls13.session")
    res = subprocess.run(["sh", "-c", 'sleep 1 | "$@"', "sh", "openssl", "s_client", "-proxy", proxy.listen,
                          "-connect", "upstream.test:443", "-servername", "upstream.test", "-tls1_3",
                          "-sess_out", tls13, "-CAfile", os.path.join(proxy.state_dir, "ca.crt")],
                         capture_output=True, text=True, timeout=30)
    assert "New, TLSv1.3" in res.stdout, res.stdout + res.stderr
    assert "Reused, TLSv1.3" in s_client(proxy, "upstream.test", "-tls1_3", "-sess_in", tls13)
