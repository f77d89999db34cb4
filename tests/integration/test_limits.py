"""Limits through the built proxy: the header timeout cuts a slowloris off, the
idle timeout cuts one inside a tunnel, 1,000 idle clients do not stop a new
one from being served, --max-connections refuses the connection over it, and
the header-size limit answers 431. A timeout is checked from below only (the
proxy waits at least its timeout: load can make that longer, never shorter);
that it cuts at all is a wait with a deadline, never a clock compared."""
import re
import resource
import socket
import time
import urllib.request

import pytest

from osftest import Proxy, TestCA
from osftest.waiting import scaled, wait_until
from test_bypass_smuggling import (LogCursor, RawUpstream, open_tunnel, proxy_address, read_response,
                                   tls_server_context)

ALIASES = {"upstream.test": "127.0.0.1"}
SPEC = {"template": "debian:12", "egress": ["upstream.test"]}


@pytest.fixture(scope="module")
def upstream():
    with RawUpstream() as u:
        yield u


def raise_nofile(wanted):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = min(max(soft, wanted), hard)
    resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    if target < wanted:
        pytest.skip(f"RLIMIT_NOFILE hard limit {hard} is below {wanted}")


def get(proxy, upstream, path, timeout=30):
    with socket.create_connection(proxy_address(proxy), timeout=timeout) as s:
        s.sendall(f"GET http://upstream.test:{upstream.port}{path} HTTP/1.1\r\n"
                  f"Host: upstream.test:{upstream.port}\r\nConnection: close\r\n\r\n".encode())
        return read_response(s, timeout)


def drip_until_closed(sock, first, limit):
    """Sends `first`, then one header byte every 0.3 s; returns the seconds until
    the proxy closed the connection. Fails when it is still open after `limit`
    seconds (scaled): a hang, not a slow machine."""
    start = time.monotonic()
    deadline = start + scaled(limit)
    sock.sendall(first)
    sock.settimeout(0.3)
    while time.monotonic() < deadline:
        try:
            sock.sendall(b"X")
            if sock.recv(4096) == b"":
                return time.monotonic() - start
        except socket.timeout:
            continue
        except (ConnectionError, OSError):
            return time.monotonic() - start
    raise AssertionError(f"the proxy did not close the dripping connection within {scaled(limit):g} s")


def wait_closed(sock, timeout=60):
    """Returns once the proxy closed `sock` (EOF or reset); fails when it is
    still open after `timeout` seconds (scaled)."""
    sock.settimeout(scaled(timeout))
    try:
        assert sock.recv(1) == b"", "the proxy sent bytes instead of closing"
    except socket.timeout:
        raise AssertionError(f"the proxy did not close the connection within {scaled(timeout):g} s")
    except ConnectionError:
        pass


def test_slowloris_is_cut_off_at_the_header_timeout(tmp_path, upstream):
    with Proxy(SPEC, str(tmp_path / "p"), aliases=ALIASES, args=["--header-timeout", "2"]) as proxy:
        with socket.create_connection(proxy_address(proxy), timeout=30) as s:
            took = drip_until_closed(s, f"GET http://upstream.test:{upstream.port}/slow HTTP/1.1\r\nX-Slow: ".encode(), 40)
        assert took >= 1.5, f"cut off after {took:.1f} s with --header-timeout 2"
        # A connection that never sends a byte is cut off too.
        with socket.create_connection(proxy_address(proxy), timeout=30) as s:
            wait_closed(s)
        assert b"/slow" not in upstream.raw
        # The proxy still serves others.
        assert get(proxy, upstream, "/after-slowloris")[0] == 200


def test_slowloris_inside_a_tunnel_is_cut_off_at_the_idle_timeout(tmp_path, upstream):
    with Proxy(SPEC, str(tmp_path / "p"), aliases=ALIASES,
               args=["--header-timeout", "2", "--idle-timeout", "3"]) as proxy:
        s = open_tunnel(proxy, "upstream.test", upstream.port, tls=False)
        with s:
            took = drip_until_closed(s, b"GET /slow-tunnel HTTP/1.1\r\nX-Slow: ", 40)
        assert took >= 2, f"cut off after {took:.1f} s with --idle-timeout 3"
        # An established tunnel that stays silent before TLS is cut at the header timeout.
        s = open_tunnel(proxy, "upstream.test", upstream.port, tls=False)
        with s:
            wait_closed(s)
        assert b"/slow-tunnel" not in upstream.raw


def test_an_intercepted_tls_tunnel_is_cut_off_at_its_deadlines(tmp_path):
    # The client side of an intercepted tunnel keeps one deadline timer that is
    # moved on, not cancelled, after each operation: a client that drips a head,
    # and one that goes silent after a complete request, must still be cut off.
    ca = TestCA(str(tmp_path / "ca"))
    with RawUpstream(tls=tls_server_context(ca, ["upstream.test"])) as up, \
            Proxy(SPEC, str(tmp_path / "p"), aliases=ALIASES, upstream_ca=ca.cert_path,
                  args=["--header-timeout", "2", "--idle-timeout", "3"]) as proxy:
        with open_tunnel(proxy, "upstream.test", up.port, server_hostname="upstream.test") as s:
            took = drip_until_closed(s, b"GET /slow-tls HTTP/1.1\r\nX-Slow: ", 40)
        assert took >= 2, f"cut off after {took:.1f} s with --idle-timeout 3"
        assert b"/slow-tls" not in up.raw
        with open_tunnel(proxy, "upstream.test", up.port, server_hostname="upstream.test") as s:
            s.sendall(f"GET /then-silent HTTP/1.1\r\nHost: upstream.test:{up.port}\r\n\r\n"
                      .encode())
            status, _, _ = read_response(s, 15)
            assert status == 200
            start = time.monotonic()
            wait_closed(s)  # the proxy closes the idle keep-alive connection
            took = time.monotonic() - start
        assert took >= 2, f"idle keep-alive connection closed after {took:.1f} s"


def test_a_thousand_idle_clients_do_not_stop_new_ones(tmp_path, upstream):
    raise_nofile(4096)  # the proxy inherits it: 1,000 clients plus upstreams need more than 1024
    with Proxy(SPEC, str(tmp_path / "p"), aliases=ALIASES, args=["--header-timeout", "120"]) as proxy:
        idle = []
        try:
            for _ in range(1000):
                idle.append(socket.create_connection(proxy_address(proxy), timeout=30))
            # Half of them half-way through a request head, the rest silent.
            for s in idle[::2]:
                s.sendall(b"GET http://upstream.test/ HTTP/1.1\r\nX-Idle: 1\r\n")
            # Everyone is connected: the admin endpoint counts them.
            wait_until(lambda: proxy.open_connections() >= 1000, 60, "the proxy to hold 1,000 connections")
            for i in range(20):  # each within get()'s socket deadline
                status, head, body = get(proxy, upstream, f"/new-{i}")
                assert status == 200 and body == f"ok /new-{i}".encode()
            # The idle ones are still open (not dropped to make room).
            alive = 0
            for s in idle[:50]:
                s.setblocking(False)
                try:
                    alive += s.recv(1) != b""
                except BlockingIOError:
                    alive += 1
                except OSError:
                    pass
            assert alive == 50
        finally:
            for s in idle:
                s.close()


def test_max_connections_refuses_the_connection_over_the_limit(tmp_path, upstream):
    with Proxy(SPEC, str(tmp_path / "p"), aliases=ALIASES,
               args=["--max-connections", "10", "--header-timeout", "60"]) as proxy:
        held = [socket.create_connection(proxy_address(proxy), timeout=30) for _ in range(10)]
        try:
            wait_until(lambda: proxy.open_connections() == 10, 30, "the proxy to hold 10 connections")
            with socket.create_connection(proxy_address(proxy), timeout=30) as extra:
                extra.settimeout(30)
                extra.sendall(f"GET http://upstream.test:{upstream.port}/over HTTP/1.1\r\n"
                              f"Host: upstream.test:{upstream.port}\r\n\r\n".encode())
                try:
                    got = extra.recv(4096)
                except ConnectionError:
                    got = b""
                # Answered by the proxy itself (issue 26), never served.
                assert got.startswith(b"HTTP/1.1 503 ") and b"X-Osf-Refused-By: limit" in got, got
            assert b"/over" not in upstream.raw
            metrics = urllib.request.urlopen(proxy.admin_url + "/metrics", timeout=30).read().decode()
            assert re.search(r'^egress_requests_total\{outcome="refused",reason="limit"\} [1-9]', metrics, re.M)
        finally:
            for s in held[:5]:
                s.close()
        # Below the limit again: new clients are served.
        wait_until(lambda: get(proxy, upstream, "/under")[0] == 200, 30, "a new client to be served again")
        for s in held[5:]:
            s.close()


@pytest.mark.parametrize("limit", [4096, 16384])
def test_header_size_limit_is_a_flag(tmp_path, upstream, limit):
    with Proxy(SPEC, str(tmp_path / "p"), aliases=ALIASES, args=["--max-header-bytes", str(limit)]) as proxy:
        cursor = LogCursor(proxy)
        fits = "a" * (limit - 500)
        assert get(proxy, upstream, "/fits?" + fits)[0] == 200
        status, head, _ = get(proxy, upstream, "/too-big?" + "a" * (limit + 100))
        assert status == 431, head
        line = cursor.wait(lambda l: l["outcome"] == "refused")[0]
        assert line["refusedBy"] == "limit" and line["status"] == 431
