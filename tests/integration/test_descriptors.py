"""Descriptors (issue 41): the proxy raises its soft RLIMIT_NOFILE to the hard limit at
start and keeps --max-connections within what that allows, so a flood of connections
meets the 503 over --max-connections, never EMFILE; and an accept loop that does meet
EMFILE waits instead of spinning, so the admin port's liveness probe still answers."""
import socket
import time

from osftest import Proxy
from test_bypass_smuggling import proxy_address

SPEC = {"template": "debian:12", "egress": ["upstream.test"]}
HARD = 400  # descriptors: (400 - 256 kept aside) / 2 = 72 client connections


def admin_get(proxy, path, timeout=5):
    host, port = proxy.admin.rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=timeout) as s:
        s.settimeout(timeout)
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: admin\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while True:
            more = s.recv(65536)
            if not more:
                break
            data += more
        return int(data.split(b" ")[1]) if data.startswith(b"HTTP/1.1 ") else 0


def soft_and_hard_nofile(pid):
    with open(f"/proc/{pid}/limits") as f:
        for line in f:
            if line.startswith("Max open files"):
                soft, hard = line.split()[3:5]
                return int(soft), int(hard)
    raise AssertionError("no Max open files")


def test_a_connection_flood_past_the_descriptors_leaves_the_admin_port_answering(tmp_path):
    proxy = Proxy(SPEC, str(tmp_path / "p"), start=False, args=["--max-connections", "1000"])
    proxy.argv = ["prlimit", f"--nofile=64:{HARD}", "--"] + proxy.argv  # prlimit execs: same pid
    proxy.start()
    held = []
    try:
        assert soft_and_hard_nofile(proxy.pid) == (HARD, HARD)  # raised to the hard limit
        assert f"--max-connections 1000 is over what {HARD} file descriptors allow: 72 instead" \
            in proxy.stderr()
        # More connections than the proxy has descriptors, held open without a request.
        refused = 0
        for _ in range(HARD + 50):
            s = socket.create_connection(proxy_address(proxy), timeout=10)
            held.append(s)
        for s in held[-20:]:  # the last ones are over --max-connections: a 503, then closed
            s.settimeout(10)
            try:
                if s.recv(65536).startswith(b"HTTP/1.1 503"):
                    refused += 1
            except OSError:
                pass
        assert refused == 20
        # The liveness probe is answered while they are held (it used to wait forever:
        # the admin accept loop spun on EMFILE).
        deadline = time.monotonic() + 20
        status = 0
        while time.monotonic() < deadline and status != 200:
            try:
                status = admin_get(proxy, "/healthz")
            except OSError:
                status = 0
        assert status == 200
        assert proxy.proc.poll() is None
    finally:
        for s in held:
            s.close()
        proxy.stop()
