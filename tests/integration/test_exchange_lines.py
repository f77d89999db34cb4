"""One log line per exchange, also for an exchange the proxy cuts short itself:
a request still waiting for its upstream when the shutdown grace period ends
is destroyed mid-flight (its coroutine never resumes), and its line is still
written, as an `error` `aborted` with the destination it was going to."""
import socket
import time

from osftest import Proxy
from osftest.waiting import wait_until
from test_bypass_smuggling import RawUpstream, proxy_address


def test_a_request_cut_at_shutdown_is_on_record(tmp_path):
    upstream = RawUpstream(fault="stall")  # takes the request, never answers
    proxy = Proxy({"template": "debian:12", "egress": ["stall.test"]}, str(tmp_path),
                  aliases={"stall.test": "127.0.0.1"},
                  args=["--grace", "1", "--upstream-timeout", "60"])
    client = socket.create_connection(proxy_address(proxy), timeout=30)
    try:
        client.sendall(f"GET http://stall.test:{upstream.port}/slow?q=1 HTTP/1.1\r\n"
                       f"Host: stall.test:{upstream.port}\r\n\r\n".encode())
        wait_until(lambda: upstream.heads, 30, "the request to reach the upstream")
        assert proxy.terminate(timeout=30) == 0
    finally:
        client.close()
        upstream.stop()
        proxy.stop()
    lines = proxy.log_lines()
    assert len(lines) == 1, lines
    line = lines[0]
    assert line["outcome"] == "error"
    assert line["error"] == "aborted"
    assert line["status"] == 0
    assert (line["method"], line["host"], line["port"], line["path"]) == \
        ("GET", "stall.test", upstream.port, "/slow")
