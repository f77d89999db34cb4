"""The proxy's memory under floods on many connections at once (issue 26, class 1):
one flood per buffer the proxy fills from the network (a request's chunk-size line and
trailer section on the plain and MCP paths, an answer's chunk-size line and trailers,
an MCP event stream's, the admin port's), 24 connections at a time, each flood up to
16 MiB. The proxy's RSS stays under egress-proxy/README.md's formula for that many
connections (each: two read buffers of --max-header-bytes + 64 KiB, a 64 KiB relay
buffer, TLS and allocator overhead) over its baseline. Before the ceilings each flood
was buffered whole (128 MiB on one connection took it from 13 to 275 MiB)."""
import concurrent.futures
import json
import socket
import threading
import time

from test_bypass_ceilings import FLOOD, MCP, admin_flood, chunked_head, env, flood_request  # noqa: F401 (fixture)
from osftest.proxy import rss_bytes
from test_bypass_smuggling import proxy_address

FLOOD_BYTES = 16 * 1024 * 1024
CONNECTIONS = 24
READ_BUFFER = 64 * 1024 + 64 * 1024  # --max-header-bytes (default) + one read
PER_CONNECTION = 2 * READ_BUFFER + 64 * 1024 + 160 * 1024  # + relay buffer + TLS/allocator
SLACK = 24 * 1024 * 1024  # allocator arenas, the log writer, Python's view of RSS



def answer_flood(env, path):
    flood = env["flood"]
    method = "POST" if path.startswith("/mcp") else "GET"
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}) if method == "POST" else ""
    with socket.create_connection(proxy_address(env["proxy"]), timeout=30) as s:
        s.sendall((f"{method} http://{FLOOD}:{flood.port}{path} HTTP/1.1\r\nHost: {FLOOD}:{flood.port}\r\n"
                   "Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n"
                   f"Content-Length: {len(body)}\r\n\r\n{body}").encode())
        s.settimeout(30)
        received = 0
        try:
            while received < FLOOD_BYTES:
                more = s.recv(65536)
                if not more:
                    break
                received += len(more)
        except OSError:
            pass
        return received


def floods(env):
    proxy = env["proxy"]
    plain = chunked_head(FLOOD, env["flood"].port, "/upload")
    mcp = chunked_head(MCP, env["mcp"].port, "/mcp")
    line, trailers = (b"1;ext=", b"e" * 4096), (b"2\r\n{}\r\n0\r\n", b"X-Trailer: " + b"t" * 1000 + b"\r\n")
    return [
        lambda: flood_request(proxy, plain, *line, limit=FLOOD_BYTES)[1],
        lambda: flood_request(proxy, plain, *trailers, limit=FLOOD_BYTES)[1],
        lambda: flood_request(proxy, mcp, *line, limit=FLOOD_BYTES)[1],
        lambda: flood_request(proxy, mcp, *trailers, limit=FLOOD_BYTES)[1],
        lambda: answer_flood(env, "/answer-chunk-line"),
        lambda: answer_flood(env, "/answer-trailers"),
        lambda: answer_flood(env, "/mcp-sse"),
        lambda: admin_flood(proxy, FLOOD_BYTES),
    ]


def test_rss_stays_under_the_formula_while_floods_run_on_many_connections(env):
    proxy = env["proxy"]
    kinds = floods(env)
    # Warm up: one of each, so that pools, arenas and the log writer exist before the baseline.
    for flood in kinds:
        flood()
    time.sleep(1)
    baseline = rss_bytes(proxy.pid)
    peak = baseline
    stop = threading.Event()

    def sample():
        nonlocal peak
        while not stop.is_set():
            peak = max(peak, rss_bytes(proxy.pid))
            time.sleep(0.02)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=CONNECTIONS) as pool:
        jobs = [pool.submit(kinds[i % len(kinds)]) for i in range(CONNECTIONS * 3)]
        moved = [j.result(timeout=120) for j in jobs]
    stop.set()
    sampler.join()
    bound = baseline + CONNECTIONS * PER_CONNECTION + SLACK
    print(f"memory ceiling: baseline {baseline >> 10} KiB, peak {peak >> 10} KiB, bound {bound >> 10} KiB, "
          f"moved at most {max(moved)} bytes per flood")
    assert peak <= bound, (f"VmRSS {baseline >> 20} MiB before, {peak >> 20} MiB peak, "
                           f"bound {bound >> 20} MiB for {CONNECTIONS} connections")
    # Each flood was cut short by the proxy, not read whole.
    assert max(moved) < FLOOD_BYTES, moved
    assert time.monotonic() - started < 120
