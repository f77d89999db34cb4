"""A flood of refused requests keeps the egress log bounded (issue 26, class 5):
past 20 whole lines of a kind, or 120 in all, within a minute, refusals are counted
in folded lines (`count`, `since`) in the chain, and `log summary` still counts
every request. `--log-every-refusal` keeps one line per request."""
import json
import os
import socket

import pytest

from osftest import Proxy
from osftest.proxy import run_proxy
from osftest.egress_log import expected_summary, summary_as_expected
from test_bypass_smuggling import ALIASES, RawUpstream, proxy_address, read_response

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
