#!/usr/bin/env python3
"""The reviewer's report of a large egress log: how long `egress-proxy log report` takes, how
much memory it holds and how large its page is, against `log summary` and `log verify` of the
same file in the same run (docs/benchmark.md, "The reviewer's report of a 1,000,000-line log").

It writes two logs, signed as the proxy signs them (a checkpoint every 1,000 lines, a final one;
tests/integration/osftest/egress_log.py): `night`, eight hours of a sandbox's work (40 hosts it
may reach, a few hundred it may not, MCP calls, secrets, failures), and `hostile`, where every
request names a host never seen before (what a sandbox can do to the report's memory). Then it
runs the three commands on each, alternating, ROUNDS times, and prints the medians; where
Debian's chromium runs, also how long the browser takes to build the page's DOM.

usage: bench/log_report.py [--lines N] [--rounds R] [--bin PATH] [--dir DIR]
(default 1,000,000 lines, 3 rounds, build/release/egress-proxy/egress-proxy, a temporary DIR)
"""
import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, "tests", "integration"))

from osftest import chromium  # noqa: E402
from osftest.egress_log import SignedLog  # noqa: E402


def iso(ms):
    seconds, milli = divmod(ms, 1000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{milli:03d}Z"


def write_log(path, lines, hostile, seed=7):
    """`lines` request lines (plus start and checkpoints) over eight hours."""
    rng = random.Random(seed)
    start = 1796076000000  # 2026-11-29T22:00:00Z
    step = 8 * 3600 * 1000 / lines
    allowed = [f"svc{i}.example.com" for i in range(40)]
    weights = [1 / (i + 1) for i in range(40)]
    refused = [f"t{i}.tracker.example" for i in range(300)]
    log = SignedLog(time=iso(start))
    with open(path, "wb") as out:
        for n in range(lines):
            ms = start + int(n * step)
            roll = rng.random()
            line = {"time": iso(ms), "connection": n // 20 + 1, "client": "10.0.3.7:51544",
                    "host": "", "port": 443, "scheme": "https", "method": "GET",
                    "path": f"/v1/items/{rng.randrange(10000)}", "outcome": "allowed", "status": 200}
            if hostile:
                line.update(host=f"h{n}.{rng.randrange(1 << 30):x}.example", method="CONNECT", path="",
                            outcome="refused", status=403, refusedBy="host-not-allowed")
            elif roll < 0.06:
                line.update(host=rng.choice(refused), method="CONNECT", path="", outcome="refused",
                            status=403, refusedBy="host-not-allowed")
            elif roll < 0.07:
                line.update(host=rng.choices(allowed, weights)[0], outcome="error", status=502,
                            error=rng.choice(["upstream-tls", "upstream-reset", "dns"]))
            elif roll < 0.10:
                tool = rng.choice(["search", "read_page", "search", "delete_page"])
                line.update(host="wiki.example.com", method="POST", path="/mcp", mcpServer="wiki", tool=tool)
                if tool == "delete_page":
                    line.update(outcome="refused", refusedBy="mcp-tool")
            else:
                line["host"] = rng.choices(allowed, weights)[0]
                if line["host"] in allowed[:3]:
                    line["secrets"] = ["API_TOKEN"]
            line.update(bytesUp=rng.randrange(2000), bytesDown=rng.randrange(60000),
                        durationMs=round(rng.random() * 80, 3))
            log.request(line)
            if log.run_lines % 1000 == 0:
                log.checkpoint(time=iso(ms))
            if len(log.lines) >= 10000:
                out.write(b"".join(log.lines))
                log.lines.clear()
        log.checkpoint(time=iso(start + 8 * 3600 * 1000), final=True)
        out.write(b"".join(log.lines))
    return log.public_pem


def run(argv):
    """Wall seconds and peak resident memory (MiB) of one command."""
    started = time.monotonic()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - started
    code = os.waitstatus_to_exitcode(status)
    assert code == 0, f"{argv}: exit {code}"
    return wall, usage.ru_maxrss / 1024


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--bin", default=os.path.join(REPO, "build", "release", "egress-proxy", "egress-proxy"))
    parser.add_argument("--dir")
    args = parser.parse_args()
    work = args.dir or tempfile.mkdtemp(prefix="osf-log-report-")
    os.makedirs(work, exist_ok=True)
    print(f"egress-proxy: {args.bin}; logs in {work}")
    for name, hostile in (("night", False), ("hostile", True)):
        log, key, page = (os.path.join(work, f"{name}{ext}") for ext in (".jsonl", ".pub", ".html"))
        started = time.monotonic()
        with open(key, "w") as f:
            f.write(write_log(log, args.lines, hostile))
        print(f"\n{name}: {os.path.getsize(log) / 2**20:.0f} MiB, {args.lines:,} request lines "
              f"(written in {time.monotonic() - started:.0f} s)")
        commands = {
            "log summary": [args.bin, "log", "summary", "--pubkey", key, log],
            "log verify": [args.bin, "log", "verify", "--pubkey", key, log],
            "log report": [args.bin, "log", "report", "--pubkey", key, log, "-o", page],
        }
        results = {c: [] for c in commands}
        for _ in range(args.rounds):
            for command, argv in commands.items():
                results[command].append(run(argv))
        base = statistics.median(w for w, _ in results["log summary"])
        print("| command | median s | x summary | peak RSS MiB |")
        print("|---|---:|---:|---:|")
        for command, runs in results.items():
            wall = statistics.median(w for w, _ in runs)
            rss = max(r for _, r in runs)
            print(f"| `{command}` | {wall:.2f} | {wall / base:.2f} | {rss:.0f} |")
        print(f"page: {os.path.getsize(page):,} bytes")
        if chromium.unavailable() is None:
            # The browser's own start, measured on an empty page in the same run, is the baseline.
            empty = os.path.join(work, "empty.html")
            with open(empty, "w") as f:
                f.write("<!DOCTYPE html><title>empty</title>")
            started = time.monotonic()
            chromium.dump_dom(empty)
            baseline = time.monotonic() - started
            started = time.monotonic()
            dom = chromium.dump_dom(page)
            print(f"chromium --dump-dom: {time.monotonic() - started:.1f} s (an empty page: {baseline:.1f} s), "
                  f"DOM {len(dom):,} characters")
        else:
            print(f"chromium: {chromium.unavailable()}")


if __name__ == "__main__":
    main()
