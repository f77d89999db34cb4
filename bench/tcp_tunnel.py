"""Throughput of a raw TCP tunnel (a `tcp` destination) against a direct
connection, in the same run: a sink on loopback reads N MiB; the client sends
them directly, through an HTTP CONNECT tunnel and through a SOCKS5 tunnel,
alternating, several rounds. Prints MiB/s per way and the ratio to direct.
Loopback only; every transfer bounded by a deadline.

  python3 bench/tcp_tunnel.py [--mib 100] [--rounds 3]
  (EGRESS_PROXY_BIN names the proxy binary; default build/default)"""
import argparse
import os
import socket
import statistics
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "integration"))
from osftest import Proxy  # noqa: E402
from osftest.tcp_clients import http_connect, socks5_request  # noqa: E402

CHUNK = 256 * 1024


class Sink:
    """Reads each connection to its end, then answers the byte count (8 bytes)."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    @staticmethod
    def _serve(conn):
        with conn:
            total = 0
            buf = bytearray(CHUNK)
            while True:
                n = conn.recv_into(buf)
                if not n:
                    break
                total += n
            conn.sendall(total.to_bytes(8, "big"))


def transfer(sock, size):
    """Sends `size` bytes, half-closes, waits for the sink's count: seconds taken."""
    payload = b"x" * CHUNK
    sock.settimeout(120)
    start = time.monotonic()
    left = size
    while left > 0:
        n = sock.send(payload[:min(CHUNK, left)])
        left -= n
    sock.shutdown(socket.SHUT_WR)
    got = b""
    while len(got) < 8:
        chunk = sock.recv(8 - len(got))
        if not chunk:
            break
        got += chunk
    elapsed = time.monotonic() - start
    sock.close()
    if int.from_bytes(got, "big") != size:
        raise RuntimeError(f"the sink read {int.from_bytes(got, 'big')} of {size} bytes")
    return elapsed


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mib", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    size = args.mib * 1024 * 1024
    sink = Sink()
    with tempfile.TemporaryDirectory() as directory:
        spec = {"template": "debian:12", "tcp": [f"sink.test:{sink.port}"]}
        with Proxy(spec, directory, aliases={"sink.test": "127.0.0.1"}) as proxy:
            ways = {
                "direct": lambda: socket.create_connection(("127.0.0.1", sink.port)),
                "connect": lambda: http_connect(proxy.listen, f"sink.test:{sink.port}")[1],
                "socks5": lambda: socks5_request(proxy.listen, "sink.test", sink.port)[2],
            }
            times = {way: [] for way in ways}
            for _ in range(args.rounds):
                for way, open_way in ways.items():
                    times[way].append(transfer(open_way(), size))
    # The median says what a run typically gets; the best run what the path costs with the
    # least interference from the rest of a shared machine.
    direct, direct_best = statistics.median(times["direct"]), min(times["direct"])
    print(f"{args.mib} MiB, {args.rounds} rounds alternating (direct, CONNECT, SOCKS5):")
    for way, seconds in times.items():
        median, best = statistics.median(seconds), min(seconds)
        print(f"  {way:8s} median {args.mib / median:7.1f} MiB/s (ratio to direct "
              f"{direct / median:.2f}), best {args.mib / best:7.1f} MiB/s (ratio "
              f"{direct_best / best:.2f}); runs (s): " + ", ".join(f"{s:.3f}" for s in seconds))


if __name__ == "__main__":
    main()
