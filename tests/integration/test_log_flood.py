"""A flood of refused requests keeps the egress log bounded (issue 26, class 5):
past 20 whole lines of a kind, or 120 in all, within a minute, refusals are counted
in folded lines (`count`, `since`) in the chain, and `log summary` still counts
every request. `--log-every-refusal` keeps one line per request.

Issue 41, class 2: only what was decided before anything reached an origin folds. A
request that went out (a bodiless GET whose client then left, an answer refused after
the request was sent) is always one whole line with its path and secrets; connections
to an allowed but closed port fold per host, never into the host-less line."""
import json
import os
import secrets as random_tokens
import socket
import threading
import time

import pytest

from osftest import Proxy, TestCA
from osftest.proxy import run_proxy
from osftest.waiting import wait_until
from osftest.egress_log import expected_summary, summary_as_expected
from test_bypass_smuggling import (ALIASES, RawUpstream, open_tunnel, proxy_address, read_response,
                                   tls_server_context)

SPEC = {"template": "debian:12", "egress": ["upstream.test"]}


@pytest.fixture(scope="module")
def upstream():
    u = RawUpstream()
    yield u
    u.stop()


def get(sock, host, path="/"):
    sock.sendall(f"GET http://{host}{path} HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
    status, head, _ = read_response(sock)
    return status


def summary(proxy):
    key = os.path.join(proxy.state_dir, "log-key.pub")
    run = run_proxy(["log", "summary", "--json", "--pubkey", key, proxy.log_path], timeout=60)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def request_lines(proxy):
    return proxy.log_lines()


def test_one_kind_repeated_folds_into_a_counted_line(tmp_path, upstream):
    with Proxy(SPEC, str(tmp_path / "p"), aliases=ALIASES) as proxy:
        with socket.create_connection(proxy_address(proxy), timeout=15) as s:
            for i in range(1500):
                assert get(s, "denied.test", f"/try/{i}") == 403
            assert get(s, f"upstream.test:{upstream.port}", "/between") == 200
            for i in range(1500):
                assert get(s, "denied.test", f"/again/{i}") == 403
        # A checkpoint someone asks for writes the pending folded lines first.
        run = run_proxy(["log", "checkpoint", "--state-dir", proxy.state_dir], timeout=30)
        assert run.returncode == 0, run.stderr
        lines = request_lines(proxy)
        folded = [l for l in lines if "count" in l]
        assert len(folded) == 1, folded
        assert folded[0]["host"] == "denied.test" and folded[0]["refusedBy"] == "host-not-allowed"
        assert folded[0]["count"] == 3000 - 20 and folded[0]["path"] == ""
        assert folded[0]["since"] <= folded[0]["time"]
        whole = [l for l in lines if "count" not in l and l["host"] == "denied.test"]
        assert [l["path"] for l in whole] == [f"/try/{i}" for i in range(20)]
        assert [l["path"] for l in lines if l["outcome"] == "allowed"] == ["/between"]
        assert proxy.stop() == 0
    s = summary(proxy)
    assert s["verification"]["ok"] is True and s["verification"]["final"] is True
    assert s["requests"] == {"total": 3001, "allowed": 1, "refused": 3000, "errors": 0}
    assert summary_as_expected(s) == expected_summary(open(proxy.log_path).read())
    assert len(request_lines(proxy)) == 22


def test_a_flood_over_many_hosts_stays_bounded(tmp_path):
    with Proxy(SPEC, str(tmp_path / "p"), aliases=ALIASES) as proxy:
        with socket.create_connection(proxy_address(proxy), timeout=15) as s:
            for i in range(2000):
                assert get(s, f"h{i}.denied.test") == 403
        assert proxy.stop() == 0
    lines = request_lines(proxy)
    # 120 whole, 120 kinds folded of their own (one request each here), one line for the rest.
    assert len(lines) == 120 + 120 + 1, len(lines)
    rest = [l for l in lines if l.get("count") and l["host"] == ""]
    assert len(rest) == 1 and rest[0]["count"] == 2000 - 240
    s = summary(proxy)
    assert s["verification"]["ok"] is True
    assert s["requests"]["refused"] == 2000
    size = os.path.getsize(proxy.log_path)
    assert size < 200 * 1024, size  # about 600 bytes per request line without folding


def test_clients_that_leave_fold_too(tmp_path, upstream):
    target = f"upstream.test:{upstream.port}"
    with Proxy(SPEC, str(tmp_path / "p"), aliases=ALIASES) as proxy:
        for _ in range(60):
            with socket.create_connection(proxy_address(proxy), timeout=15) as s:
                s.sendall(f"CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n\r\n".encode())
                assert read_response(s)[0] == 200
        assert proxy.stop() == 0
    lines = request_lines(proxy)
    assert sum(l.get("count", 1) for l in lines) == 60
    # Each way of leaving (no-request, client-tls...) is a kind: 20 whole lines each at most.
    assert len(lines) < 60, lines
    assert any(l["outcome"] == "error" and l.get("count", 0) >= 1 for l in lines), lines


def test_log_every_refusal_keeps_one_line_per_request(tmp_path):
    with Proxy(SPEC, str(tmp_path / "p"), aliases=ALIASES, args=["--log-every-refusal"]) as proxy:
        with socket.create_connection(proxy_address(proxy), timeout=15) as s:
            for i in range(300):
                assert get(s, "denied.test", f"/{i}") == 403
        assert proxy.stop() == 0
    lines = request_lines(proxy)
    assert len(lines) == 300 and not any("count" in l for l in lines)


# --- issue 41, class 2 -------------------------------------------------------------------

OVER_THE_KINDS = 150  # past 20 whole lines of a kind and 120 in all


def test_answers_refused_after_the_request_went_out_are_never_folded(tmp_path):
    """The origin got each GET (path and real secret); its answer names the secret in a
    field name, so the proxy refuses the answer: each exchange still has its own line."""
    ca = TestCA(str(tmp_path / "ca"))
    token = "real-fold-token-" + random_tokens.token_hex(8)

    def route(head, path, body):
        return b"HTTP/1.1 200 OK\r\nX-" + token.encode() + b": 1\r\nContent-Length: 0\r\n\r\n"

    spec = {"template": "debian:12", "egress": ["upstream.test"], "secrets": {"API_TOKEN": "ref:env/API_TOKEN"}}
    with RawUpstream(tls=tls_server_context(ca, ["upstream.test"]), route=route) as up:
        with Proxy(spec, str(tmp_path / "p"), upstream_ca=ca.cert_path, aliases=ALIASES,
                   env={"OSF_SECRET_API_TOKEN": token}) as proxy:
            for i in range(OVER_THE_KINDS):
                with open_tunnel(proxy, "upstream.test", up.port, server_hostname="upstream.test") as s:
                    s.sendall((f"GET /data/{i} HTTP/1.1\r\nHost: upstream.test:{up.port}\r\n"
                               "Authorization: Bearer osf-secret-placeholder-API_TOKEN\r\n\r\n").encode())
                    assert read_response(s)[0] == 502
            assert proxy.stop() == 0
        assert len(up.heads) == OVER_THE_KINDS  # each request reached the origin
    lines = [l for l in request_lines(proxy) if l["host"] == "upstream.test"]
    assert not any("count" in l for l in lines), [l for l in lines if "count" in l][:3]
    assert sorted(l["path"] for l in lines) == sorted(f"/data/{i}" for i in range(OVER_THE_KINDS))
    assert all(l["refusedBy"] == "secret-echo" and l["secrets"] == ["API_TOKEN"] for l in lines)
    s = summary(proxy)
    assert s["verification"]["ok"] is True
    assert s["requests"]["refused"] == OVER_THE_KINDS


def test_a_bodiless_request_whose_client_left_keeps_its_line(tmp_path):
    """Each GET reaches the origin whole; its client leaves (RST) before the answer: an
    `error` `client-closed` line with bytes up 0, which used to fold (path gone)."""
    arrived, release = threading.Event(), threading.Event()

    def route(head, path, body):
        arrived.set()
        release.wait(30)
        return b"HTTP/1.1 200 OK\r\nContent-Length: 1048576\r\n\r\n" + b"a" * 1048576

    with RawUpstream(route=route) as up:
        target = f"upstream.test:{up.port}"
        with Proxy(SPEC, str(tmp_path / "p"), aliases=ALIASES) as proxy:
            for i in range(OVER_THE_KINDS):
                arrived.clear()
                release.clear()
                s = socket.create_connection(proxy_address(proxy), timeout=15)
                s.sendall(f"GET http://{target}/leave/{i}?q=1 HTTP/1.1\r\nHost: {target}\r\n\r\n".encode())
                assert arrived.wait(15), f"request {i} never reached the origin"
                s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\0\0\0\0\0\0\0")
                s.close()  # RST: the proxy's write of the answer fails
                release.set()
            # Every exchange has ended (a line each) before the proxy stops.
            wait_until(lambda: len([l for l in request_lines(proxy) if l["path"].startswith("/leave/")])
                       >= OVER_THE_KINDS, 120, "a line for every exchange the clients left")
            assert proxy.stop() == 0
    lines = [l for l in request_lines(proxy) if l["host"] == "upstream.test"]
    assert not any("count" in l for l in lines), [l for l in lines if "count" in l][:3]
    assert sorted(l["path"] for l in lines) == sorted(f"/leave/{i}" for i in range(OVER_THE_KINDS))
    # The case the test is about happened (not only answers the client still had).
    assert len([l for l in lines if l["outcome"] == "error"]) > 20, lines[:5]


def test_connections_to_a_closed_port_are_bounded_and_keep_their_host(tmp_path):
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    port = closed.getsockname()[1]
    closed.close()  # nothing listens there now
    target = f"upstream.test:{port}"
    with Proxy(SPEC, str(tmp_path / "p"), aliases=ALIASES) as proxy:
        for i in range(500):  # a 502 ends the client connection
            with socket.create_connection(proxy_address(proxy), timeout=15) as s:
                assert get(s, target, f"/closed/{i}") == 502
        assert proxy.stop() == 0
    lines = request_lines(proxy)
    assert sum(l.get("count", 1) for l in lines) == 500
    assert len(lines) <= 21, len(lines)  # 20 whole, one counted line
    assert all(l["host"] == "upstream.test" and l["error"] == "upstream-connect" for l in lines), lines[-1]
    s = summary(proxy)
    assert s["verification"]["ok"] is True
    assert s["requests"]["errors"] == 500
