"""MCP filtering cost end to end: the same answers fetched through the proxy
from a declared MCP server (filtered) and from a plain egress host (relayed),
in one run. Answers: a 1,000-tool tools/list as JSON and as one SSE event, and
a stream of 10,000 small SSE events. Prints MiB/s for both paths and their
ratio (issue 4's budget: filtering at most 2x the plain path's cost), and the
proxy's own CPU time per MiB on each path. Each case runs in several rounds,
plain and filtered alternating (which goes first alternates too), and the
medians are reported: one round of the event stream lasts a tenth of a second,
so a single round mostly measures what else the machine was doing.
Loopback only; each case is bounded by request counts and a deadline.

    /usr/bin/python3 bench/mcp_e2e.py --proxy build/release/egress-proxy/egress-proxy
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "integration"))
from osftest import EchoHandler, Proxy, TestCA, Upstream  # noqa: E402
from osftest.proxy import cpu_seconds  # noqa: E402

TOOLS = [{"name": f"tool_{i}", "description": "d" * 200,
          "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}} for i in range(1000)]
LIST = json.dumps({"jsonrpc": "2.0", "id": 2, "result": {"tools": TOOLS, "nextCursor": "n"}}).encode()
SSE_LIST = b"event: message\ndata: " + LIST + b"\n\n"
SSE_SMALL = b"".join(b'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/progress",'
                     b'"params":{"progressToken":1,"progress":%d}}\n\n' % i for i in range(10000))
BODIES = {"/json": ("application/json", LIST), "/sse-list": ("text/event-stream", SSE_LIST),
          "/sse-small": ("text/event-stream", SSE_SMALL)}


class NoDelayHandler(EchoHandler):
    # Servers that answer MCP (Node's http, Python's asyncio, Go) set TCP_NODELAY;
    # http.server does not, and with Nagle on, its last segment of each answer
    # waits for a delayed ACK: both paths then measure that stall, not the proxy.
    disable_nagle_algorithm = True


def route(handler, url, body):
    ctype, payload = BODIES.get(url.path, (None, None))
    if ctype is None:
        return False
    handler._send(200, payload, ctype)
    return True


def fetch(proxy, url, n, deadline):
    """n POSTs on one keep-alive curl process; returns (bytes, seconds)."""
    args = ["curl", "-sS", "--proxy", proxy.url, "--cacert", proxy.ca_path,
            "-w", "%{size_download}\n", "-H", "Content-Type: application/json",
            "-H", "Accept: application/json, text/event-stream",
            "--data", '{"jsonrpc":"2.0","id":2,"method":"tools/list"}']
    for _ in range(n):
        args += ["-o", "/dev/null", url]
    start = time.monotonic()
    out = subprocess.run(args, capture_output=True, text=True, timeout=deadline)
    elapsed = time.monotonic() - start
    return sum(int(x) for x in out.stdout.split()), elapsed


def median(values):
    values = sorted(values)
    mid = len(values) // 2
    return values[mid] if len(values) % 2 else (values[mid - 1] + values[mid]) / 2


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--proxy", required=True)
    ap.add_argument("--proxy-args", default="",
                    help="extra proxy arguments, e.g. '--http2 off' to keep curl on HTTP/1.1 (A/B "
                         "against a build from before HTTP/2)")
    ap.add_argument("--requests", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--cases", default="json,sse-list,sse-small",
                    help="comma-separated: json, sse-list, sse-small")
    args = ap.parse_args()
    os.environ["EGRESS_PROXY_BIN"] = args.proxy
    with tempfile.TemporaryDirectory() as d:
        ca = TestCA(os.path.join(d, "ca"))
        with Upstream(ca, ["mcp.test", "plain.test"], route=route, handler=NoDelayHandler) as up:
            spec = {"template": "bench:1", "egress": ["plain.test"],
                    "mcp": [{"name": "bench", "url": f"https://mcp.test:{up.port}/",
                             "tools": [f"tool_{i}" for i in range(0, 1000, 10)]}]}
            aliases = {"mcp.test": "127.0.0.1", "plain.test": "127.0.0.1"}
            with Proxy(spec, os.path.join(d, "p"), aliases=aliases, upstream_ca=ca.cert_path,
                       args=args.proxy_args.split()) as p:
                print("| answer | plain MiB/s | MCP-filtered MiB/s | filtering cost (plain/filtered) "
                      "| proxy CPU ms/MiB plain | filtered | CPU ratio |")
                print("|---|---:|---:|---:|---:|---:|---:|")
                for path, label in [("/json", "tools/list, 1,000 tools, JSON"),
                                    ("/sse-list", "tools/list, 1,000 tools, SSE"),
                                    ("/sse-small", "10,000 small SSE events")]:
                    if path[1:] not in args.cases.split(","):
                        continue
                    n = args.requests if path != "/sse-small" else max(10, args.requests // 2)
                    urls = {"plain": up.url("plain.test", path), "mcp": up.url("mcp.test", path)}
                    for url in urls.values():
                        fetch(p, url, 2, 60)  # warm: leaf certificate, upstream pool
                    # Rates per byte of the upstream's answer, so pruned answers compare fairly.
                    mib = len(BODIES[path][1]) * n / 2**20
                    rates = {"plain": [], "mcp": []}
                    cpu = {"plain": 0.0, "mcp": 0.0}
                    ratios = []
                    for r in range(args.rounds):
                        order = ["plain", "mcp"] if r % 2 == 0 else ["mcp", "plain"]
                        for which in order:
                            before = cpu_seconds(p.proc.pid)
                            _, seconds = fetch(p, urls[which], n, 300)
                            cpu[which] += cpu_seconds(p.proc.pid) - before
                            rates[which].append(mib / seconds)
                        ratios.append(rates["plain"][-1] / rates["mcp"][-1])
                    ms = {k: 1000 * v / (mib * args.rounds) for k, v in cpu.items()}
                    print(f"| {label} | {median(rates['plain']):.1f} | {median(rates['mcp']):.1f} "
                          f"| {median(ratios):.2f}x (rounds {min(ratios):.2f}-{max(ratios):.2f}) "
                          f"| {ms['plain']:.2f} | {ms['mcp']:.2f} | {ms['mcp'] / ms['plain']:.2f}x |",
                          flush=True)

if __name__ == "__main__":
    main()
