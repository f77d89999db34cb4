"""DNS under --upstream-timeout: a name server that takes every query and never
answers, and the proxy still answers 504 within the upstream deadline (for an
absolute-form request and for a CONNECT), with an `upstream-timeout` line.

The name server is made real: the test runs itself again in new user, mount
and network namespaces, where a UDP socket on 127.0.0.1:53 reads nothing and
/etc/resolv.conf (bind-mounted over, in that mount namespace only) points at it
with a 12 s resolver timeout. Without the deadline the proxy would wait those
12 s (getaddrinfo cannot be interrupted). The proxy's exit still waits for the
abandoned lookup to end (Asio joins its resolver thread): egress-proxy/README.md."""
import json
import os
import shutil
import socket
import subprocess
import sys
import time

import pytest

TIMEOUT = 2  # --upstream-timeout
RESOLVER_WAIT = 12  # what the resolver itself would wait (and the proxy's exit, see below)


def inside(directory):
    from osftest import Proxy
    from osftest.waiting import wait_until
    from test_bypass_smuggling import proxy_address, read_response

    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    silent = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    silent.bind(("127.0.0.1", 53))  # takes queries, answers none
    resolv = os.path.join(directory, "resolv.conf")
    with open(resolv, "w") as f:
        f.write(f"nameserver 127.0.0.1\noptions timeout:{RESOLVER_WAIT} attempts:1\n")
    subprocess.run(["mount", "--bind", resolv, "/etc/resolv.conf"], check=True)
    proxy = Proxy({"template": "debian:12", "egress": ["silent.test"]}, os.path.join(directory, "proxy"),
                  args=["--upstream-timeout", str(TIMEOUT)])
    results = {}
    try:
        for name, request in [
                ("absolute", b"GET http://silent.test/ HTTP/1.1\r\nHost: silent.test\r\n\r\n"),
                ("connect", b"CONNECT silent.test:443 HTTP/1.1\r\nHost: silent.test:443\r\n\r\n")]:
            started = time.monotonic()
            with socket.create_connection(proxy_address(proxy), timeout=RESOLVER_WAIT * 2) as s:
                s.sendall(request)
                status, head, body = read_response(s, RESOLVER_WAIT * 2)
            results[name] = {"status": status, "seconds": time.monotonic() - started,
                             "body": body.decode(errors="replace")}
        wait_until(lambda: len(proxy.log_lines()) >= 2, 30, "a line for each request")
        results["log"] = proxy.log_lines()
    finally:
        proxy.stop()
    print(json.dumps(results))


@pytest.fixture(scope="module")
def outcome(tmp_path_factory):
    if not shutil.which("unshare"):
        pytest.skip("needs unshare(1)")
    probe = subprocess.run(["unshare", "-rmn", "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip("user namespaces are not available here: " + probe.stderr.decode().strip())
    directory = str(tmp_path_factory.mktemp("dns-deadline"))
    run = subprocess.run(["unshare", "-rmn", sys.executable, __file__, directory],
                         capture_output=True, text=True, timeout=RESOLVER_WAIT * 5)
    assert run.returncode == 0, run.stdout + run.stderr
    return json.loads(run.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("kind", ["absolute", "connect"])
def test_a_lookup_that_never_answers_ends_at_the_upstream_deadline(outcome, kind):
    result = outcome[kind]
    assert result["status"] == 504, result
    assert "silent.test did not resolve in time" in result["body"]
    # Well before the resolver's own wait, with room for a loaded machine.
    assert result["seconds"] < RESOLVER_WAIT / 2, result


def test_the_timeout_is_on_record(outcome):
    lines = outcome["log"]
    assert len(lines) == 2, lines
    for line in lines:
        assert line["host"] == "silent.test"
        assert line["outcome"] == "error"
        assert line["error"] == "upstream-timeout"
        assert line["status"] == 504
    assert sorted(l["method"] for l in lines) == ["CONNECT", "GET"]


if __name__ == "__main__":
    inside(sys.argv[1])
