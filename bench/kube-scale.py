#!/usr/bin/python3
"""sandbox-kubernetes at scale: `list`, `list -o name`, `gc --dry-run` and `destroy` of one
sandbox against the test API server (tests/kube-api) holding N sandboxes in one namespace.

One sandbox is made for real (`create`, with the test server's canned egress proxy); its objects,
as the server holds them, are then copied N-1 times under new IDs straight into the server's
store (POST /_test/objects), so every sandbox weighs what a real one does. The simulation is
switched off for the measurement (`simulation: false`: no kubelet, controller or garbage
collector pass; the API itself, its cascading deletes included, works as always). Each command
runs with kubectl behind a wrapper that records every call, the bytes kubectl wrote to the adapter
and kubectl's peak memory (GNU time); the adapter's own peak, and the peak of the adapter and
everything it runs together (what a container limit counts), are sampled from /proc. At the
largest size EXPIRED sandboxes are expired and a real `gc` removes them, as the chart's CronJob
would.

    OSF_REPO=$PWD /usr/bin/python3 bench/kube-scale.py [--sizes 50,500,5000] [--build build/default]

KUBE_SCALE_CALLS=1 also prints each kubectl call to stderr: its arguments, bytes written, peak
KiB, seconds, user and system CPU seconds (where a command's time goes).

Prints one Markdown table (docs/benchmark.md keeps the figures)."""

from __future__ import annotations

import argparse
import copy
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

REPO = os.environ.get("OSF_REPO") or os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(REPO, "tests", "kube-api"))
sys.path.insert(0, os.path.join(REPO, "tests", "integration"))

from kube_api_fixture import KubeApiServer  # noqa: E402

PAGE_KIB = os.sysconf("SC_PAGE_SIZE") // 1024
SAMPLE_SECONDS = 0.02
# At the largest size this many sandboxes are made expired, and `gc` (as the chart's CronJob
# runs it) removes them: its peak is what the CronJob's 256Mi limit must hold.
EXPIRED = 20

KINDS = ("sandboxclaims.extensions.agents.x-k8s.io,sandboxwarmpools.extensions.agents.x-k8s.io,"
         "sandboxes.agents.x-k8s.io,sandboxtemplates.extensions.agents.x-k8s.io,pods,services,"
         "networkpolicies.networking.k8s.io,configmaps,persistentvolumeclaims")

# kubectl behind a recorder: one line per call (arguments, bytes to stdout, peak KiB).
WRAPPER = """#!/bin/bash
out=$(mktemp)
/usr/bin/time -f '%M %e %U %S' -o "$out.rss" "{kubectl}" "$@" >"$out"
rc=$?
printf '%s\\t%s\\t%s\\n' "$*" "$(stat -c %s "$out")" "$(tail -1 "$out.rss")" >>"{log}"
cat "$out"
rm -f "$out" "$out.rss"
exit $rc
"""


def canned_proxy():
    """The egress proxy's canned answers, as test_adapter gives them."""
    import test_adapter  # noqa: E402  (builds its CA and log key on import)
    return test_adapter.EXEC_HANDLERS


def renamed(obj, old: str, new: str, expired: bool = False):
    """`obj` with every occurrence of the old ID replaced (names, labels, references); with
    `expired`, a claim's lifetime ended long ago."""
    text = json.dumps(obj).replace(old, new)
    out = json.loads(text)
    if expired and out.get("kind") == "SandboxClaim":
        out.setdefault("spec", {}).setdefault("lifecycle", {})["shutdownTime"] = "2020-01-01T00:00:00Z"
    meta = out["metadata"]
    for field in ("resourceVersion", "creationTimestamp", "managedFields", "generation"):
        meta.pop(field, None)
    # Each copy's uids derived from the original's, so its owner references still name its own
    # owners (the garbage collector would otherwise delete the copies as orphans).
    meta["uid"] = f"{meta['uid']}-{new}"
    for ref in meta.get("ownerReferences") or []:
        ref["uid"] = f"{ref['uid']}-{new}"
    return out


def tree_rss_kib(root: int) -> tuple[int, int]:
    """(RSS of `root` itself, RSS of `root` and all its descendants together), in KiB, from /proc."""
    parents, rss = {}, {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            parents[int(entry)] = int(fields[1])
            rss[int(entry)] = int(fields[21]) * PAGE_KIB
        except (OSError, IndexError, ValueError):
            continue  # gone meanwhile
    members, frontier = {root}, [root]
    while frontier:
        parent = frontier.pop()
        for pid, ppid in parents.items():
            if ppid == parent and pid not in members:
                members.add(pid)
                frontier.append(pid)
    return rss.get(root, 0), sum(rss.get(pid, 0) for pid in members)


def measure(kube, adapter, args, wrapper_dir, log):
    """Runs the adapter once. Its peak with kubectl is sampled (every SAMPLE_SECONDS, the sum of
    the RSS of the adapter and every process under it, kubectl and the recording wrapper's
    shells included): what a container's memory limit holds them to, give or take a sample."""
    open(log, "w").close()
    env = kube.env()
    env["PATH"] = wrapper_dir + ":" + env.get("PATH", "")
    started = time.monotonic()
    process = subprocess.Popen([adapter, *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    adapter_kib = together_kib = 0
    # The pipes drained by threads: a long listing must not block the adapter while we sample.
    out: dict[str, str] = {}
    readers = [threading.Thread(target=lambda name=name, pipe=pipe: out.__setitem__(name, pipe.read()))
               for name, pipe in (("stdout", process.stdout), ("stderr", process.stderr))]
    for reader in readers:
        reader.start()
    deadline = started + 1800
    while process.poll() is None and time.monotonic() < deadline:
        own, together = tree_rss_kib(process.pid)
        adapter_kib, together_kib = max(adapter_kib, own), max(together_kib, together)
        time.sleep(SAMPLE_SECONDS)  # bench sampling period, not a wait for a condition
    if process.poll() is None:
        process.kill()
    process.wait()
    seconds = time.monotonic() - started
    for reader in readers:
        reader.join()
    calls = [line.rstrip("\n").split("\t") for line in open(log) if line.strip()]
    if os.environ.get("KUBE_SCALE_CALLS"):
        for c in calls:
            print("   call", c[0][:90], c[1], c[2], file=sys.stderr)
    return {
        "rc": process.returncode, "seconds": seconds, "calls": len(calls),
        "bytes": sum(int(c[1]) for c in calls), "kubectl_kib": max((int(c[2].split()[0]) for c in calls), default=0),
        "adapter_kib": adapter_kib, "together_kib": together_kib,
        "stdout_lines": len(out.get("stdout", "").splitlines()), "stderr": out.get("stderr", "")[-400:],
    }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="50,500,5000")
    parser.add_argument("--build", default=os.environ.get("OSF_BUILD") or os.path.join(REPO, "build", "default"))
    parser.add_argument("--commands", default="list,list -o name,gc --dry-run,destroy (one),gc",
                        help="which of the measurements to run (comma-separated, as the table names them)")
    args = parser.parse_args()
    adapter = os.path.join(args.build, "adapter", "sandbox-kubernetes")
    kubectl = shutil.which("kubectl", path=os.path.join(REPO, "tests", "tools", "helm", "bin")) or shutil.which("kubectl")
    sizes = [int(s) for s in args.sizes.split(",")]
    wanted = set(args.commands.split(","))
    work = tempfile.mkdtemp(prefix="kube-scale-")
    wrapper_dir = os.path.join(work, "bin")
    os.makedirs(wrapper_dir)
    log = os.path.join(work, "calls.log")
    with open(os.path.join(wrapper_dir, "kubectl"), "w") as f:
        f.write(WRAPPER.format(kubectl=kubectl, log=log))
    os.chmod(os.path.join(wrapper_dir, "kubectl"), 0o755)
    rows = []
    try:
        with KubeApiServer(os.path.join(work, "kube")) as kube:
            kube.set_exec(handlers=canned_proxy())
            spec = os.path.join(work, "spec.json")
            with open(spec, "w") as f:
                json.dump({"template": "alpine:3", "egress": ["api.example.com", "*.npmjs.org"]}, f)
            made = subprocess.run([adapter, "create", spec], env=kube.env(), capture_output=True, text=True,
                                  timeout=300)
            if made.returncode != 0:
                print(made.stderr, file=sys.stderr)
                return 1
            first = made.stdout.strip()
            objects = json.loads(kube.kubectl("get", KINDS, "-l", f"osf.sandbox.id={first}", "-o", "json",
                                              check=True).stdout)["items"]
            # The Sandbox (named after the claim, not labelled by every controller version).
            objects.append(json.loads(kube.kubectl("get", "sandboxes.agents.x-k8s.io", f"osf-sandbox-{first}",
                                                   "-o", "json", check=True).stdout))
            # From here an API server holding objects only (the "faster fake"): the
            # simulation's passes over 60,000 objects would otherwise stall kubectl's handshakes.
            kube.configure(simulation=False)
            held = 1
            for size in sizes:
                batch = []
                for n in range(held, size):
                    new = f"{n:012x}"
                    expired = size == sizes[-1] and size - 1 - EXPIRED <= n < size - 1
                    batch.extend(renamed(copy.deepcopy(o), first, new, expired) for o in objects)
                    if len(batch) >= 2000:
                        kube.hook("POST", "objects", {"items": batch})
                        batch = []
                if batch:
                    kube.hook("POST", "objects", {"items": batch})
                held = max(held, size)
                victim = f"{size - 1:012x}" if size > 1 else first
                for name, cmd in (("list", ["list"]), ("list -o name", ["list", "-o", "name"]),
                                  ("gc --dry-run", ["gc", "--dry-run"]), ("destroy (one)", ["destroy", victim])):
                    if name not in wanted:
                        continue
                    result = measure(kube, adapter, cmd, wrapper_dir, log)
                    rows.append((size, name, result))
                    print(f"{size} {name}: {result}", file=sys.stderr, flush=True)
                # destroy removed one: put it back for the next size.
                kube.hook("POST", "objects", {"items": [renamed(copy.deepcopy(o), first, victim) for o in objects]})
                if size == sizes[-1] and "gc" in wanted:
                    result = measure(kube, adapter, ["gc"], wrapper_dir, log)
                    rows.append((size, f"gc ({EXPIRED} expired, removed)", result))
                    print(f"{size} gc: {result}", file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("| sandboxes | command | exit | seconds | kubectl calls | bytes from kubectl | kubectl peak MiB "
          "| adapter peak MiB | adapter + kubectl together, peak MiB |")
    print("|---|---|---|---|---|---|---|---|---|")
    for size, name, r in rows:
        print(f"| {size} | `{name}` | {r['rc']} | {r['seconds']:.1f} | {r['calls']} | {r['bytes'] / 1048576:.2f} MiB "
              f"| {r['kubectl_kib'] / 1024:.0f} | {r['adapter_kib'] / 1024:.0f} | {r['together_kib'] / 1024:.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
