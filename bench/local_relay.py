#!/usr/bin/python3
"""Requests made inside a sandbox-local sandbox against the same requests made directly
to the same sandbox's egress proxy, in one run: the relays' cost (the agent's loopback
port 127.0.0.1:8080, the egress socket, the supervisor) and their stalls.

Each round creates a sandbox per build, then times --requests plain HTTP GETs (curl's
time_total, one connection each) from inside it through HTTP_PROXY, and as many from the
host straight to the proxy's Unix socket, and to a proxy of the same build on a host TCP
port (a sandbox's connection is TCP: this is its cost without the sandbox), then one download of --bulk-mib MiB from inside
(its time, and the CPU of every process of the sandbox: supervisor, proxy, bwrap, agent,
curl); the builds' order is reversed every other round. The origin is a loopback HTTP/1.1 server that writes its head and body in two
writes (as most servers do), so an answer crosses each relay as two small writes.

  /usr/bin/python3 bench/local_relay.py --build build/default [--baseline OLD_BUILD_DIR]
      [--rounds 3] [--requests 40] [--bulk-mib 256]

A build directory holds adapter/sandbox-local and egress-proxy/egress-proxy.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

BODY = b"x" * 1024
BULK_PIECE = b"x" * (1 << 20)


class Origin(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        if self.path.startswith("/bulk/"):  # /bulk/MIB
            mib = int(self.path[len("/bulk/"):])
            self.send_response(200)
            self.send_header("Content-Length", str(mib * len(BULK_PIECE)))
            self.end_headers()
            for _ in range(mib):
                self.wfile.write(BULK_PIECE)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(BODY)))
        self.end_headers()  # the head: one write
        self.wfile.write(BODY)  # the body: a second one

    def log_message(self, *args):
        pass


def percentile(samples, p):
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


CURL_LOOP = ("i=0; while [ $i -lt {n} ]; do i=$((i+1)); "
             "curl -s -o /dev/null -w '%{{time_total}}\\n' {extra} http://origin.test:{port}/r; done")


def sandbox_cpu_seconds(root_pid):
    """utime + stime of root_pid and every process below it."""
    children = {}
    for line in subprocess.run(["ps", "-e", "-o", "pid=,ppid="], capture_output=True,
                               text=True, check=True).stdout.splitlines():
        pid, ppid = map(int, line.split())
        children.setdefault(ppid, []).append(pid)
    tree, total = [root_pid], 0
    for pid in tree:
        tree += children.get(pid, [])
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
        except FileNotFoundError:
            pass
    return total / os.sysconf("SC_CLK_TCK")


def over_tcp(build, state, env, spec, port, requests):
    """The same requests to the same build's proxy on a TCP port of the host (a proxy of its
    own, same spec and aliases): what a sandbox's TCP connection costs without a sandbox."""
    proxy_state = os.path.join(state, "tcp-proxy")
    proxy = subprocess.Popen([os.path.join(build, "egress-proxy", "egress-proxy"), "--spec", spec,
                              "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0",
                              "--state-dir", proxy_state], env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    try:
        listen = os.path.join(proxy_state, "listen.json")
        deadline = time.monotonic() + 30
        while not os.path.exists(listen):
            if proxy.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("local_relay: the TCP proxy did not start")
            time.sleep(0.01)
        with open(listen) as f:
            address = json.load(f)["proxy"]
        return subprocess.run(["sh", "-c", CURL_LOOP.format(
            n=requests, port=port, extra=f"-x http://{address}")], capture_output=True, text=True,
            check=True, timeout=300).stdout
    finally:
        proxy.terminate()
        proxy.wait(timeout=30)


def measure(build, state, port, requests, bulk_mib):
    local = os.path.join(build, "adapter", "sandbox-local")
    env = dict(os.environ, OSF_SANDBOX_LOCAL_STATE_DIR=state,
               OSF_EGRESS_PROXY_BIN=os.path.join(build, "egress-proxy", "egress-proxy"),
               OSF_SANDBOX_HOST_ALIASES="origin.test=127.0.0.1")
    spec = os.path.join(state, "spec.json")
    with open(spec, "w") as f:
        json.dump({"template": "host", "egress": ["origin.test"]}, f)
    sandbox_id = subprocess.run([local, "create", spec], env=env, capture_output=True, text=True,
                                check=True, timeout=120).stdout.strip()
    try:
        inside = subprocess.run([local, "exec", sandbox_id, "--", "sh", "-c",
                                 CURL_LOOP.format(n=requests, port=port, extra="")],
                                env=env, capture_output=True, text=True, check=True, timeout=300)
        listen = os.path.join(state, "sandboxes", sandbox_id, "proxy", "listen.json")
        with open(listen) as f:
            socket_path = json.load(f)["proxy"][len("unix:"):]
        direct = subprocess.run(["sh", "-c", CURL_LOOP.format(
            n=requests, port=port, extra=f"--unix-socket {socket_path} -x http://127.0.0.1:8080")],
            capture_output=True, text=True, check=True, timeout=300)
        direct_tcp = over_tcp(build, state, env, spec, port, requests)
        codes = subprocess.run([local, "exec", sandbox_id, "--", "curl", "-s", "-o", "/dev/null", "-w",
                                "%{http_code}", f"http://origin.test:{port}/check"],
                               env=env, capture_output=True, text=True, timeout=60).stdout
        assert codes == "200", f"the sandbox's request got {codes!r}"
        with open(os.path.join(state, "sandboxes", sandbox_id, "supervisor.pid")) as f:
            supervisor = int(f.read().split()[0])
        cpu_before, started = sandbox_cpu_seconds(supervisor), time.perf_counter()
        got = subprocess.run([local, "exec", sandbox_id, "--", "curl", "-s", "-o", "/dev/null", "-w",
                              "%{size_download}", f"http://origin.test:{port}/bulk/{bulk_mib}"],
                             env=env, capture_output=True, text=True, check=True, timeout=300).stdout
        bulk = (time.perf_counter() - started, sandbox_cpu_seconds(supervisor) - cpu_before)
        assert int(got) == bulk_mib << 20, f"the download got {got} bytes"
    finally:
        subprocess.run([local, "destroy", sandbox_id], env=env, capture_output=True, timeout=120)
    to_ms = lambda out: [float(line) * 1000 for line in out.split()]
    return to_ms(inside.stdout), to_ms(direct.stdout), to_ms(direct_tcp), bulk


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default="build/default")
    parser.add_argument("--baseline", help="another build directory, measured in the same run")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--requests", type=int, default=40)
    parser.add_argument("--bulk-mib", type=int, default=256)
    args = parser.parse_args()
    builds = {"head": os.path.abspath(args.build)}
    if args.baseline:
        builds["base"] = os.path.abspath(args.baseline)
    server = ThreadingHTTPServer(("127.0.0.1", 0), Origin)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    with open("/proc/loadavg") as f:
        load_before = f.read().split()[0]
    paths = ("inside", "direct", "direct TCP")
    samples = {name: {path: [] for path in paths} for name in builds}
    stalls = {name: {path: 0 for path in paths} for name in builds}
    bulks = {name: [] for name in builds}
    order = list(builds)
    for round_number in range(args.rounds):
        for name in (order if round_number % 2 == 0 else list(reversed(order))):
            state = tempfile.mkdtemp(prefix="osl-relay-", dir="/tmp")
            try:
                inside, direct, direct_tcp, bulk = measure(builds[name], state, port,
                                                           args.requests, args.bulk_mib)
            finally:
                shutil.rmtree(state, ignore_errors=True)
            bulks[name].append(bulk)
            for path, got in zip(paths, (inside, direct, direct_tcp)):
                samples[name][path] += got
                # A stall: 35 ms or more, the delayed acknowledgement's 40 ms less its jitter.
                stalls[name][path] += sum(1 for s in got if s >= 35)
            print(f"round {round_number + 1} {name}: inside p50 {statistics.median(inside):.2f} ms, "
                  f"direct p50 {statistics.median(direct):.2f} ms, direct TCP p50 "
                  f"{statistics.median(direct_tcp):.2f} ms", flush=True)
    server.shutdown()
    with open("/proc/loadavg") as f:
        load_after = f.read().split()[0]
    print(f"\n1-minute load {load_before} before, {load_after} after; {args.rounds} rounds of "
          f"{args.requests} requests per build and path\n")
    print("| build | path | requests | p50 ms | p99 ms | max ms | >= 35 ms | p50 of direct | "
          "p99 of direct | p50 of direct TCP | p99 of direct TCP |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name in builds:
        d, t = samples[name]["direct"], samples[name]["direct TCP"]
        for path in paths:
            s = samples[name][path]
            print(f"| {name} | {path} | {len(s)} | {statistics.median(s):.2f} | {percentile(s, 99):.2f} | "
                  f"{max(s):.2f} | {stalls[name][path]} | "
                  f"{statistics.median(s) / statistics.median(d):.2f}x | "
                  f"{percentile(s, 99) / percentile(d, 99):.2f}x | "
                  f"{statistics.median(s) / statistics.median(t):.2f}x | "
                  f"{percentile(s, 99) / percentile(t, 99):.2f}x |")
    print(f"\n| build | {args.bulk_mib} MiB from inside: seconds (median) | CPU seconds of the "
          "sandbox's processes (median) |")
    print("|---|---:|---:|")
    for name in builds:
        print(f"| {name} | {statistics.median(b[0] for b in bulks[name]):.2f} | "
              f"{statistics.median(b[1] for b in bulks[name]):.2f} |")


if __name__ == "__main__":
    main()
