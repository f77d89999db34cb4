"""Memory per idle intercepted tunnel: opens N CONNECT tunnels through the
proxy, completes TLS with the proxy's minted leaf and one keep-alive request
in each, leaves them open, and reads the proxy's RSS before and after.
Baseline: the same proxy with no tunnels, in the same run. Loopback only;
bounded by N and by a deadline."""
import argparse
import os
import resource
import socket
import ssl
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "integration"))
from osftest import Proxy, TestCA, Upstream  # noqa: E402


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def open_tunnel(proxy_addr, port, ctx):
    s = socket.create_connection(proxy_addr, timeout=30)
    s.sendall(f"CONNECT upstream.test:{port} HTTP/1.1\r\nHost: upstream.test:{port}\r\n\r\n".encode())
    head = b""
    while not head.endswith(b"\r\n\r\n"):
        chunk = s.recv(1)
        if not chunk:
            raise RuntimeError("proxy closed the tunnel")
        head += chunk
    t = ctx.wrap_socket(s, server_hostname="upstream.test")
    t.sendall(f"GET /bytes/10 HTTP/1.1\r\nHost: upstream.test:{port}\r\n\r\n".encode())
    got = b""
    while not got.endswith(b"xxxxxxxxxx"):
        got += t.recv(4096)
    return t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--proxy", required=True)
    ap.add_argument("--tunnels", type=int, default=1000)
    ap.add_argument("--deadline", type=float, default=300)
    args = ap.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = min(hard, max(soft, 4 * args.tunnels + 256))
    resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    os.environ["EGRESS_PROXY_BIN"] = args.proxy
    with tempfile.TemporaryDirectory() as d:
        ca = TestCA(os.path.join(d, "ca"))
        with Upstream(ca, ["upstream.test"]) as up:
            spec = {"template": "bench:1", "egress": ["upstream.test"]}
            with Proxy(spec, os.path.join(d, "p"), aliases={"upstream.test": "127.0.0.1"},
                       upstream_ca=ca.cert_path) as p:
                host, port = p.listen.rsplit(":", 1)
                ctx = ssl.create_default_context(cafile=p.ca_path)
                # Warm up: one tunnel, so the leaf, the TLS contexts and the pool exist.
                warm = open_tunnel((host, int(port)), up.port, ctx)
                warm.close()
                time.sleep(0.5)
                before = rss_kib(p.pid)
                tunnels = []
                deadline = time.monotonic() + args.deadline
                while len(tunnels) < args.tunnels and time.monotonic() < deadline:
                    tunnels.append(open_tunnel((host, int(port)), up.port, ctx))
                time.sleep(1.0)
                after = rss_kib(p.pid)
                n = len(tunnels)
                for t in tunnels:
                    t.close()
    per = (after - before) / max(n, 1)
    print("| idle tunnels | proxy RSS before | proxy RSS with tunnels | per tunnel |")
    print("|---|---|---|---|")
    print(f"| {n} | {before} KiB | {after} KiB | {per:.1f} KiB |")


if __name__ == "__main__":
    main()
