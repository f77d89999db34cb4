"""HTTP/2 keep-alive streams over one connection against the HTTP/1.1 path, through
egress-proxy and through mitmproxy's HTTP/2, with a direct connection as the baseline,
all in one run.

The client (bench/h2_client.mjs, Node 20's built-in http2 and http) opens ONE connection
and sends a fixed number of GETs on it:

  h2 c1    HTTP/2, one stream in flight at a time
  h2 c32   HTTP/2, 32 streams in flight
  h1       HTTP/1.1 keep-alive, one request after the other (all one connection allows)

of a 1 KiB body (--requests, 20,000 by default) and of a 1 MiB body (--big-requests, 200),
against each peer:

  direct     client to the origin, no proxy: the baseline
  egress     egress-proxy (release build; EGRESS_BIN=/path for another), its defaults
             (--http2 on, --upstream-http2 client: an h2 client gets h2 to the origin)
  mitmproxy  mitmdump 8 --mode regular -q (HTTP/2 on by default), trusting the origin CA

The origin is Debian's nginx on loopback (tests/integration/osftest/nginx.py), HTTP/2 and
HTTP/1.1, one worker, keepalive_requests raised so that no connection is closed mid-run.
For every run: requests/s, p50/p99 latency (from issuing a request to the end of its
body; with 32 in flight that includes the wait for a stream), the proxy's CPU seconds
(utime+stime from /proc/PID/stat before and after) per 1,000 requests, its RSS after the
run, the client's CPU per 1,000 requests, the ALPN the client got and the protocol nginx
logged for the proxy's requests, and "others' CPU": the machine's busy CPU that was
neither the client, nginx nor the proxy (the machine is shared). For egress, its log must
have one line per request, all on one connection, with "http":"2" for the h2 runs and
without it for h1 (checked, not timed). A run that fails, has errors, hits the deadline,
gets another ALPN than h2 through a proxy or fails the log check is listed at the end,
and the exit status is 1. The whole set runs
--rounds times, the peer order reversed every other round; the tables are medians of the
rounds, ratios taken within a round and then their median.

Loopback only. Every process started here is stopped by PID; every client run is bounded
by its request count and by --deadline-s.

    /usr/bin/python3 bench/h2_streams.py                       # 3 rounds, all of the above
    /usr/bin/python3 bench/h2_streams.py --rounds 1 --requests 500 --big-requests 20
    EGRESS_BIN=/path/to/egress-proxy /usr/bin/python3 bench/h2_streams.py --peers direct,egress
"""
import argparse
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, "tests", "integration"))
from osftest import Proxy, TestCA  # noqa: E402
from osftest.nginx import Nginx  # noqa: E402
from osftest.proxy import cpu_seconds, rss_bytes  # noqa: E402

NODE = shutil.which("node") or "/usr/bin/node"
CLIENT = os.path.join(HERE, "h2_client.mjs")
MITMDUMP = shutil.which("mitmdump") or "/usr/bin/mitmdump"
HOST = "upstream.test"
KIB, MIB = 1024, 1024 * 1024


def workloads(requests, big):
    """(name, mode, streams in flight, path, body bytes, requests)"""
    out = []
    for path, size, label, n in (("/1k", KIB, "1k", requests), ("/big", MIB, "1m", big)):
        if n <= 0:
            continue
        out += [(f"h2 c1 {label}", "h2", 1, path, size, n),
                (f"h2 c32 {label}", "h2", 32, path, size, n),
                (f"h1 {label}", "h1", 1, path, size, n)]
    return out


def tree_cpu_seconds(pid):
    """CPU seconds of a process and its children (nginx's master and its worker)."""
    total = cpu_seconds(pid)
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            total += sum(cpu_seconds(int(c)) for c in f.read().split())
    except (FileNotFoundError, ProcessLookupError):
        pass
    return total


def box_busy():
    """(busy, total) jiffies of the whole machine, from /proc/stat."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    idle = v[3] + v[4]
    return sum(v) - idle, sum(v)


def loadavg():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def egress_binary(args):
    if args.egress_bin:
        if not os.access(args.egress_bin, os.X_OK):
            sys.exit(f"h2_streams: {args.egress_bin} is not an executable")
        return args.egress_bin
    path = os.path.join(REPO, "build", "release", "egress-proxy", "egress-proxy")
    if not os.access(path, os.X_OK):
        print("h2_streams: building the release preset (a few minutes)", file=sys.stderr, flush=True)
        subprocess.run(["cmake", "--preset", "release"], cwd=REPO, check=True, stdout=subprocess.DEVNULL)
        subprocess.run(["cmake", "--build", "--preset", "release", "--target", "egress-proxy", "-j2"],
                       cwd=REPO, check=True, stdout=subprocess.DEVNULL)
    return path


class Direct:
    name = "direct"
    pid = None

    def __init__(self, origin, origin_ca):
        self.origin, self.ca = origin, origin_ca

    def start(self):
        return self

    def client_args(self):
        return ["--address", f"127.0.0.1:{self.origin.port}", "--ca", self.ca]

    def stop(self):
        pass


class Egress:
    name = "egress"

    def __init__(self, binary, origin, origin_ca, directory):
        self.binary, self.origin, self.origin_ca, self.dir = binary, origin, origin_ca, directory
        self.proxy = None

    def start(self):
        os.environ["EGRESS_PROXY_BIN"] = self.binary
        spec = {"template": "bench:1", "egress": [HOST]}
        self.proxy = Proxy(spec, self.dir, aliases={HOST: "127.0.0.1"}, upstream_ca=self.origin_ca)
        self.pid = self.proxy.pid
        self.ca = self.proxy.ca_path
        return self

    def client_args(self):
        return ["--proxy", self.proxy.listen, "--ca", self.ca]

    def log_size(self):
        try:
            return os.path.getsize(self.proxy.log_path)
        except FileNotFoundError:
            return 0

    def log_check(self, offset, want, path, h2, timeout=15):
        """Waits for `want` request lines after byte `offset` of the egress log; returns
        "ok" when there are exactly `want`, all a 200 for `path` on one client connection,
        all with "http":"2" when h2 and none with it when not; else what differs."""
        deadline = time.monotonic() + timeout
        while True:
            with open(self.proxy.log_path, "rb") as f:
                f.seek(offset)
                data = f.read()
            lines = [json.loads(l) for l in data.splitlines() if l.strip()]
            lines = [l for l in lines if "kind" not in l]
            if len(lines) >= want or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        ours = sum(1 for l in lines if l.get("path") == path and l.get("status") == 200)
        http2 = sum(1 for l in lines if l.get("http") == "2")
        connections = len({l.get("connection") for l in lines})
        good = len(lines) == want and ours == want and http2 == (want if h2 else 0) and connections == 1
        return "ok" if good else (f"{len(lines)} lines, {ours} a 200 for {path}, {http2} with http 2, "
                                  f"{connections} connections (want {want})")

    def stop(self):
        if self.proxy:
            self.proxy.stop()
            self.proxy = None


class Mitmproxy:
    name = "mitmproxy"

    def __init__(self, origin, origin_ca, directory):
        self.origin, self.origin_ca, self.dir = origin, origin_ca, directory
        self.proc = None

    def start(self, timeout=60):
        conf = os.path.join(self.dir, "conf")
        os.makedirs(conf, exist_ok=True)
        self.port = free_port()
        self.ca = os.path.join(conf, "mitmproxy-ca-cert.pem")
        self._log = open(os.path.join(self.dir, "mitmdump.log"), "ab")
        self.proc = subprocess.Popen(
            [MITMDUMP, "--mode", "regular", "--listen-host", "127.0.0.1", "--listen-port", str(self.port),
             "-q", "--set", f"ssl_verify_upstream_trusted_ca={self.origin_ca}", "--set", f"confdir={conf}"],
            stdout=self._log, stderr=self._log, stdin=subprocess.DEVNULL)
        self.pid = self.proc.pid
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"mitmdump exited with {self.proc.returncode}; see {self._log.name}")
            if os.path.exists(self.ca):
                try:
                    with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                        return self
                except OSError:
                    pass
            time.sleep(0.1)
        self.stop()
        raise RuntimeError("mitmdump did not start")

    def client_args(self):
        # mitmdump resolves names itself and has no alias option: the CONNECT names the
        # origin's address, the requests and the TLS server name name upstream.test (the
        # origin's certificate carries both), so mitmproxy's upstream TLS verifies as egress's.
        return ["--proxy", f"127.0.0.1:{self.port}", "--connect", f"127.0.0.1:{self.origin.port}",
                "--ca", self.ca]

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None
        if getattr(self, "_log", None):
            self._log.close()


def run_client(peer, origin, mode, streams, path, size, n, deadline):
    cmd = [NODE, CLIENT, "--mode", mode, "--concurrency", str(streams), "--authority", f"{HOST}:{origin.port}",
           "--path", path, "--requests", str(n), "--expect-bytes", str(size), "--deadline-s", str(deadline),
           *peer.client_args()]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=deadline + 60)
    try:
        out = json.loads(res.stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        out = {"failure": f"no result (exit {res.returncode}): {res.stdout[-500:]} {res.stderr[-500:]}"}
    return out


def measure(peer, origin, wl, deadline):
    name, mode, streams, path, size, n = wl
    log_offset = peer.log_size() if isinstance(peer, Egress) else None
    seen = len(origin.protocols())
    cpu0 = cpu_seconds(peer.pid) if peer.pid else None
    origin0 = tree_cpu_seconds(origin.proc.pid)
    busy0, total0 = box_busy()
    t0 = time.monotonic()
    out = run_client(peer, origin, mode, streams, path, size, n, deadline)
    busy1, total1 = box_busy()
    wall = time.monotonic() - t0
    row = {"workload": name, "peer": peer.name, **out,
           "box_cpu_pct": 100.0 * (busy1 - busy0) / max(1, total1 - total0),
           "origin_cpu_s": tree_cpu_seconds(origin.proc.pid) - origin0}
    if peer.pid:
        row["proxy_cpu_s"] = cpu_seconds(peer.pid) - cpu0
        row["rss_kib"] = rss_bytes(peer.pid) // 1024
    if "failure" in out:
        return row
    # The machine is shared: what ran beside this run (busy CPU that was neither the
    # client, the origin nor the proxy), in % of one core over the client's whole run.
    ours = out["client_cpu_s"] + row["origin_cpu_s"] + row.get("proxy_cpu_s", 0.0)
    row["others_cpu_pct"] = max(0.0, 100.0 * ((busy1 - busy0) / os.sysconf("SC_CLK_TCK") - ours) / wall)
    row["proxy_cpu_s_per_1k"] = row["proxy_cpu_s"] * 1000 / max(1, out["ok"]) if peer.pid else None
    row["client_cpu_s_per_1k"] = out["client_cpu_s"] * 1000 / max(1, out["ok"])
    protocols = {}
    for p in origin.protocols()[seen:]:
        protocols[p[0]] = protocols.get(p[0], 0) + 1
    row["origin_protocols"] = protocols
    if isinstance(peer, Egress):
        row["log_check"] = peer.log_check(log_offset, out["requests"], path, mode == "h2")
    return row


def warm(peer, origin):
    """A few requests of each kind: the proxy's leaf certificate, its upstream connections."""
    for mode in ("h2", "h1"):
        out = run_client(peer, origin, mode, 4, "/1k", KIB, 20, 30)
        if "failure" in out or out.get("errors"):
            raise RuntimeError(f"{peer.name} {mode} warm-up: {out}")


def versions(binary):
    """What ran: the egress binary (and whether the tree's HEAD is newer), the peers' versions."""
    def out(cmd):
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
            return (r.stdout + r.stderr).strip()
        except (OSError, subprocess.TimeoutExpired):
            return "?"
    head = out(["git", "-C", REPO, "log", "-1", "--format=%h %ct"]).split()
    parts = []
    if binary:
        built = os.path.getmtime(binary)
        note = ""
        if len(head) == 2 and head[1].isdigit() and int(head[1]) > built:
            note = f" (OLDER than HEAD {head[0]}'s commit: rebuild, or say which commit it was built at)"
        parts.append(f"egress: {binary}, built {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime(built))}{note}")
    parts.append(f"HEAD {head[0] if head else '?'}")
    parts.append(f"node {out([NODE, '--version'])}")
    parts.append(out([MITMDUMP, "--version"]).splitlines()[0])
    parts.append(out(["/usr/sbin/nginx", "-v"]))
    return "; ".join(p for p in parts if p)


def fmt(value, spec, unit=""):
    return "-" if value is None else format(value, spec) + unit


def med(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def summary(rows, order, wls):
    by = {}
    for r in rows:
        by.setdefault((r["workload"], r["peer"]), []).append(r)

    def per_round(wl, peer, metric, against):
        """Median over rounds of metric(peer) / metric(against), within each round."""
        ratios = []
        for r in by.get((wl, peer), []):
            other = [o for o in by.get((wl, against), []) if o["round"] == r["round"]]
            if other and r.get(metric) and other[0].get(metric):
                ratios.append(r[metric] / other[0][metric])
        return med(ratios)

    print("| workload | peer | ALPN client / origin | req/s | of direct | egress of mitmproxy | p50 ms | p99 ms "
          "| proxy CPU s/1k req | egress of mitmproxy | proxy RSS MiB | client CPU s/1k req | others' CPU % | rounds |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for wl in [w[0] for w in wls]:
        for peer in order:
            runs = [r for r in by.get((wl, peer), []) if "failure" not in r]
            if not runs:
                fails = by.get((wl, peer), [])
                if fails:
                    print(f"| {wl} | {peer} | failed: {fails[0].get('failure', '')[:120]} |" + " |" * 11)
                continue
            alpn = "/".join(sorted({r.get("alpn") or "-" for r in runs}))
            origin = "/".join(sorted({k.replace("HTTP/", "") for r in runs for k in r.get("origin_protocols", {})}))
            rps = med([r["rps"] for r in runs])
            of_direct = per_round(wl, peer, "rps", "direct") if peer != "direct" else None
            is_egress = peer == "egress"
            rps_mitm = per_round(wl, peer, "rps", "mitmproxy") if is_egress else None
            cpu = med([r.get("proxy_cpu_s_per_1k") for r in runs])
            cpu_mitm = per_round(wl, peer, "proxy_cpu_s_per_1k", "mitmproxy") if is_egress else None
            rss = med([r.get("rss_kib") for r in runs])
            cells = [f"{alpn} / {origin}", fmt(rps, ",.0f"), fmt(of_direct, ".2f", "x"), fmt(rps_mitm, ".2f", "x"),
                     fmt(med([r["p50_ms"] for r in runs]), ".3f"), fmt(med([r["p99_ms"] for r in runs]), ".3f"),
                     fmt(cpu, ".3f"), fmt(cpu_mitm, ".2f", "x"), fmt(rss and rss / 1024, ".1f"),
                     fmt(med([r["client_cpu_s_per_1k"] for r in runs]), ".3f"),
                     fmt(med([r.get("others_cpu_pct") for r in runs]), ".0f"), str(len(runs))]
            print(f"| {wl} | {peer} | " + " | ".join(cells) + " |")

    # HTTP/2 against HTTP/1.1 on each peer: the same body, the same one connection.
    print()
    print("| body | peer | h2 c1 req/s of h1 | h2 c32 req/s of h1 | proxy CPU/req h2 c1 of h1 | h2 c32 of h1 |")
    print("|---|---|---:|---:|---:|---:|")
    for label in ("1k", "1m"):
        for peer in order:
            h1 = {r["round"]: r for r in by.get((f"h1 {label}", peer), []) if "failure" not in r}
            if not h1:
                continue
            cells = []
            for metric in ("rps", "proxy_cpu_s_per_1k"):
                for c in ("c1", "c32"):
                    ratios = [r[metric] / h1[r["round"]][metric] for r in by.get((f"h2 {c} {label}", peer), [])
                              if "failure" not in r and r["round"] in h1 and r.get(metric) and h1[r["round"]].get(metric)]
                    cells.append(fmt(med(ratios), ".2f", "x"))
            print(f"| {label} | {peer} | " + " | ".join(cells) + " |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--requests", type=int, default=20000, help="1 KiB GETs per run (0: none)")
    ap.add_argument("--big-requests", type=int, default=200, help="1 MiB GETs per run (0: none)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--peers", default="direct,egress,mitmproxy")
    ap.add_argument("--deadline-s", type=float, default=90, help="no new request after this, per run")
    ap.add_argument("--egress-bin", default=os.environ.get("EGRESS_BIN"))
    ap.add_argument("--json", help="also write every run's figures here")
    ap.add_argument("--only", default="",
                    help="comma-separated workload names to run (e.g. 'h2 c1 1m,h1 1m'; default: all)")
    args = ap.parse_args()
    peers = args.peers.split(",")
    unknown = set(peers) - {"direct", "egress", "mitmproxy"}
    if unknown:
        sys.exit(f"h2_streams: unknown peers {sorted(unknown)}")
    binary = egress_binary(args) if "egress" in peers else None
    wls = workloads(args.requests, args.big_requests)
    if args.only:
        wanted = [w.strip() for w in args.only.split(",")]
        unknown = set(wanted) - {wl[0] for wl in wls}
        if unknown:
            sys.exit(f"h2_streams: unknown workloads {sorted(unknown)}")
        wls = [wl for wl in wls if wl[0] in wanted]
    rows = []
    loads = []
    started = time.time()
    with tempfile.TemporaryDirectory(prefix="h2-streams-") as d:
        os.chmod(d, 0o755)  # nginx's worker runs as nobody and reads its files below here
        ca = TestCA(os.path.join(d, "ca"))
        origin = Nginx(ca, [HOST, "127.0.0.1"], os.path.join(d, "nginx"), http2=True,
                       locations="keepalive_requests 10000000; keepalive_timeout 300s;")
        with open(os.path.join(origin.dir, "1k"), "wb") as f:
            f.write(b"x" * KIB)
        with origin:
            for rnd in range(1, args.rounds + 1):
                order = peers if rnd % 2 else peers[::-1]
                load = loadavg()
                print(f"round {rnd}: {' '.join(order)} (load {load:.2f})", file=sys.stderr, flush=True)
                round_start = time.time()
                for name in order:
                    pdir = os.path.join(d, f"{name}-{rnd}")
                    os.makedirs(pdir, exist_ok=True)
                    peer = {"direct": lambda: Direct(origin, ca.cert_path),
                            "egress": lambda: Egress(binary, origin, ca.cert_path, pdir),
                            "mitmproxy": lambda: Mitmproxy(origin, ca.cert_path, pdir)}[name]()
                    try:
                        peer.start()
                        warm(peer, origin)
                        for wl in wls:
                            row = measure(peer, origin, wl, args.deadline_s)
                            row["round"] = rnd
                            rows.append(row)
                            print(f"  {name:9} {wl[0]:10} " + (
                                f"failed: {row['failure']}" if "failure" in row else
                                f"alpn {row['alpn']} origin {row['origin_protocols']} {row['ok']} ok "
                                f"{row['errors']} errors {row['rps']:,.0f} req/s "
                                f"p50 {row['p50_ms']:.3f} p99 {row['p99_ms']:.3f} ms "
                                f"proxy CPU {fmt(row.get('proxy_cpu_s_per_1k'), '.3f')} s/1k "
                                f"RSS {fmt(row.get('rss_kib'), 'd')} KiB box {row['box_cpu_pct']:.0f} % "
                                f"others {row['others_cpu_pct']:.0f} % "
                                f"{('log ' + row['log_check']) if 'log_check' in row else ''}"
                                + (" DEADLINE" if row.get("deadline_hit") else "")),
                                file=sys.stderr, flush=True)
                    finally:
                        peer.stop()
                loads.append((rnd, " ".join(order), load, loadavg(), time.time() - round_start))
                print(f"round {rnd} done (load {loads[-1][3]:.2f})", file=sys.stderr, flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    print(f"rounds: {args.rounds}, peer order reversed every other round; {args.requests} requests of 1 KiB and "
          f"{args.big_requests} of 1 MiB per run, one connection; {time.time() - started:.0f} s in all")
    print(versions(binary))
    for rnd, order, l0, l1, secs in loads:
        print(f"- round {rnd}: {order}, {secs:.0f} s, 1-minute load {l0:.2f} at its start, {l1:.2f} at its end")
    print()
    summary(rows, peers, wls)
    bad = [r for r in rows if "failure" in r or r.get("errors") or r.get("deadline_hit")
           or r.get("log_check", "ok") != "ok"
           or (r["peer"] != "direct" and r["workload"].startswith("h2") and r.get("alpn") != "h2")]
    if bad:
        print()
        print("Runs with a problem (failure, errors, deadline, egress log, ALPN):")
        for r in bad:
            print(f"- round {r['round']} {r['peer']} {r['workload']}: " + ", ".join(
                f"{k}={r.get(k)}" for k in ("failure", "alpn", "errors", "first_error", "deadline_hit", "log_check")
                if r.get(k) not in (None, 0, False, "ok")))
        sys.exit(1)


if __name__ == "__main__":
    main()
