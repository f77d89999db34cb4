"""Upstream faults through the built proxy: an upstream that resets, stalls,
sends a certificate the proxy must not trust, a truncated body or bytes that
are not HTTP. The client gets a clear 502/504 or a cut connection, the log
says `error` with a reason, the proxy keeps serving others meanwhile, and its
memory (VmRSS) returns near its baseline afterwards."""
import concurrent.futures
import socket

import pytest

from osftest import Proxy, TestCA
from osftest.waiting import wait_until
from test_bypass_smuggling import (LogCursor, RawUpstream, proxy_address, read_response,
                                   tls_server_context)

# closed.test and nowhere.test both name a port nothing listens on: the proxy
# folds a flood of failed connects to one host (the memory test makes one at
# closed.test), so the test of one such line has a host of its own.
HOSTS = ["ok.test", "reset.test", "stall.test", "truncate.test", "garbage.test", "badcert.test",
         "expired.test", "wrongname.test", "closed.test", "nowhere.test"]


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS")


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    ca = TestCA(str(tmp_path_factory.mktemp("faults-ca")))
    stranger = TestCA(str(tmp_path_factory.mktemp("stranger-ca")), name="not trusted")
    servers = {
        "ok.test": RawUpstream(tls=tls_server_context(ca, ["ok.test"])),
        "reset.test": RawUpstream(tls=tls_server_context(ca, ["reset.test"]), fault="reset"),
        "stall.test": RawUpstream(tls=tls_server_context(ca, ["stall.test"]), fault="stall"),
        "truncate.test": RawUpstream(tls=tls_server_context(ca, ["truncate.test"]), fault="truncate"),
        "garbage.test": RawUpstream(tls=tls_server_context(ca, ["garbage.test"]), fault="garbage"),
        "badcert.test": RawUpstream(tls=tls_server_context(stranger, ["badcert.test"])),
        "wrongname.test": RawUpstream(tls=tls_server_context(ca, ["someone-else.test"])),
    }
    import ssl
    cert, key = ca.issue(["expired.test"], expired=True)
    expired_ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    expired_ctx.load_cert_chain(cert, key)
    servers["expired.test"] = RawUpstream(tls=expired_ctx)
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        closed_port = s.getsockname()[1]
    ports = {h: s.port for h, s in servers.items()}
    ports["closed.test"] = ports["nowhere.test"] = closed_port
    spec = {"template": "debian:12", "egress": HOSTS}
    proxy = Proxy(spec, str(tmp_path_factory.mktemp("faults")), upstream_ca=ca.cert_path,
                  aliases={h: "127.0.0.1" for h in HOSTS},
                  args=["--upstream-timeout", "2", "--idle-timeout", "5", "--threads", "2"])
    yield {"proxy": proxy, "servers": servers, "ports": ports, "ca": ca}
    proxy.stop()
    for s in servers.values():
        s.stop()


def https_get(env, host, path, timeout=30):
    """GET https://host/path through the proxy (CONNECT + TLS); returns
    (status or 0, head, body, complete) where complete says the body was whole."""
    import ssl
    proxy, port = env["proxy"], env["ports"][host]
    s = socket.create_connection(proxy_address(proxy), timeout=timeout)
    try:
        s.sendall(f"CONNECT {host}:{port} HTTP/1.1\r\n\r\n".encode())
        status, head, _ = read_response(s, timeout)
        if status != 200:
            return status, head, b"", True
        ctx = ssl.create_default_context(cafile=proxy.ca_path)
        t = ctx.wrap_socket(s, server_hostname=host)
        t.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nConnection: close\r\n\r\n".encode())
        status, head, body = read_response(t, timeout)
        length = next((int(l.split(b":")[1]) for l in head.split(b"\r\n")
                       if l.lower().startswith(b"content-length:")), None)
        return status, head, body, length is None or len(body) == length
    finally:
        s.close()


@pytest.mark.parametrize("host,statuses,errors", [
    ("reset.test", (502,), ("upstream-reset",)),
    ("stall.test", (504,), ("upstream-timeout",)),
    ("garbage.test", (502,), ("upstream-protocol",)),  # not HTTP: one mapping on every path (issue 26)
    ("badcert.test", (502,), ("upstream-tls",)),
    ("expired.test", (502,), ("upstream-tls",)),
    ("wrongname.test", (502,), ("upstream-tls",)),
    ("nowhere.test", (502,), ("upstream-connect",)),
])
def test_a_faulty_upstream_gets_a_clear_answer_and_an_error_line(env, host, statuses, errors):
    cursor = LogCursor(env["proxy"])
    path = "/fault-" + host
    status, head, body, _ = https_get(env, host, path)
    assert status in statuses, head + body
    assert b"egress-proxy" in body  # the proxy's own answer, saying what failed
    line = cursor.wait(lambda l: l["path"] == path, timeout=30)[0]
    assert line["outcome"] == "error" and line["error"] in errors and line["status"] == status


def test_a_truncated_body_cuts_the_connection(env):
    cursor = LogCursor(env["proxy"])
    status, head, body, complete = https_get(env, "truncate.test", "/truncated")
    assert status == 200 and not complete and len(body) < 100000  # the head had gone: cut
    line = cursor.wait(lambda l: l["path"] == "/truncated", timeout=30)[0]
    assert line["outcome"] == "error" and line["error"] == "upstream-reset"


def test_the_proxy_keeps_serving_others_during_faults(env, tmp_path):
    # Stalled requests hold their connections; other clients are served
    # meanwhile. This proxy's upstream timeout outlasts the test, so the stalls
    # are certainly still held while the others are served: no clock decides.
    stall = env["servers"]["stall.test"]
    ports = env["ports"]
    proxy = Proxy({"template": "debian:12", "egress": HOSTS}, str(tmp_path / "long"),
                  upstream_ca=env["ca"].cert_path, aliases={h: "127.0.0.1" for h in HOSTS},
                  args=["--upstream-timeout", "3600", "--threads", "2", "--grace", "1"])
    mine = {"proxy": proxy, "ports": ports}
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=16) as pool:
            held_before = len(stall.heads)
            stalled = [pool.submit(https_get, mine, "stall.test", f"/stalled-{i}", 3600) for i in range(6)]
            faulty = [pool.submit(https_get, mine, h, f"/mixed-{h}-{i}")
                      for i in range(2) for h in ("reset.test", "garbage.test", "badcert.test", "truncate.test")]
            wait_until(lambda: len(stall.heads) >= held_before + 6, 60, "the six stalled requests to reach the origin")
            ok = [https_get(mine, "ok.test", f"/meanwhile-{i}") for i in range(10)]
            assert all(r[0] == 200 and r[2] == f"ok /meanwhile-{i}".encode() for i, r in enumerate(ok))
            assert not any(f.done() for f in stalled), "a stalled request ended before the others were served"
            for f in faulty:
                f.result()
            proxy.stop()  # ends the stalled exchanges
            for f in stalled:
                assert f.exception() is not None or f.result()[0] in (0, 502, 504)
    finally:
        proxy.stop()


def test_memory_returns_near_its_baseline_after_faults(env):
    proxy = env["proxy"]
    # Warm up (leaf certificates, pools, allocator arenas) before the baseline.
    for h in HOSTS:
        https_get(env, h, "/warm")
    for i in range(20):
        https_get(env, "ok.test", f"/warm-{i}")
    proxy.wait_connections_closed()  # the warm-up's connections are gone from the baseline
    baseline = rss_kib(proxy.pid)
    hosts = ["reset.test", "garbage.test", "badcert.test", "truncate.test", "closed.test", "ok.test"]
    with concurrent.futures.ThreadPoolExecutor(max_workers=24) as pool:
        jobs = [pool.submit(https_get, env, hosts[i % len(hosts)], f"/rss-{i}") for i in range(300)]
        for j in jobs:
            j.result()
    peak = rss_kib(proxy.pid)
    bound = baseline * 1.5 + 32 * 1024
    try:
        wait_until(lambda: rss_kib(proxy.pid) <= bound, 30, "VmRSS to return near its baseline")
    except AssertionError:
        raise AssertionError(f"VmRSS {baseline} KiB before, {peak} peak, {rss_kib(proxy.pid)} after")
    # And it still works.
    assert https_get(env, "ok.test", "/after-rss")[0] == 200
