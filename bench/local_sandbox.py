#!/usr/bin/python3
"""sandbox-local's costs against running the same thing directly, in one run:
create-to-ready (and destroy) against starting `true` directly, against
bwrap alone with the same namespaces and against the proxy alone; `exec -- true` against `true` directly.
Medians over --rounds; figures as ratios to the direct run measured here.

  /usr/bin/python3 bench/local_sandbox.py [--build build/release] [--rounds 20]
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time


def timed(argv, env=None, rounds=20):
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default="build/release")
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    local = os.path.join(args.build, "adapter", "sandbox-local")
    state = tempfile.mkdtemp(prefix="osl-bench-", dir="/tmp")
    env = dict(os.environ, OSF_SANDBOX_LOCAL_STATE_DIR=state,
               OSF_EGRESS_PROXY_BIN=os.path.join(args.build, "egress-proxy", "egress-proxy"))
    spec = os.path.join(state, "spec.json")
    with open(spec, "w") as f:
        json.dump({"template": "host", "egress": ["example.com"]}, f)

    direct = timed(["true"], rounds=args.rounds)
    bwrap = timed(["bwrap", "--die-with-parent", "--unshare-user", "--unshare-ipc", "--unshare-pid",
                   "--unshare-net", "--unshare-uts", "--cap-drop", "ALL", "--ro-bind", "/usr", "/usr",
                   "--symlink", "usr/bin", "/bin", "--symlink", "usr/lib", "/lib", "--symlink",
                   "usr/lib64", "/lib64", "--proc", "/proc", "--dev", "/dev", "true"], rounds=args.rounds)
    proxy_starts = []
    proxy_bin = env["OSF_EGRESS_PROXY_BIN"]
    for _ in range(args.rounds):
        proxy_state = os.path.join(state, "proxy-alone")
        start = time.perf_counter()
        proc = subprocess.Popen([proxy_bin, "--spec", spec, "--listen", "127.0.0.1:0",
                                 "--admin-listen", "127.0.0.1:0", "--state-dir", proxy_state],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        while not os.path.exists(os.path.join(proxy_state, "listen.json")):
            time.sleep(0.001)
        proxy_starts.append(time.perf_counter() - start)
        proc.terminate()
        proc.wait()
        shutil.rmtree(proxy_state)
    creates, destroys = [], []
    for _ in range(args.rounds):
        start = time.perf_counter()
        sandbox_id = subprocess.run([local, "create", spec], env=env, capture_output=True, text=True,
                                    check=True).stdout.strip()
        creates.append(time.perf_counter() - start)
        start = time.perf_counter()
        subprocess.run([local, "destroy", sandbox_id], env=env, capture_output=True, check=True)
        destroys.append(time.perf_counter() - start)
    sandbox_id = subprocess.run([local, "create", spec], env=env, capture_output=True, text=True,
                                check=True).stdout.strip()
    execs = timed([local, "exec", sandbox_id, "--", "true"], env=env, rounds=args.rounds)
    subprocess.run([local, "destroy", sandbox_id], env=env, capture_output=True, check=True)
    assert not os.listdir(os.path.join(state, "sandboxes")), "a sandbox was left behind"
    shutil.rmtree(state)

    create, destroy = statistics.median(creates), statistics.median(destroys)
    rows = [("`true` directly (baseline)", direct),
            ("bwrap alone, same namespaces, `true`", bwrap),
            ("egress-proxy alone, start to listening", statistics.median(proxy_starts)),
            ("`sandbox-local create` to ready", create),
            ("`sandbox-local destroy`", destroy),
            ("`sandbox-local exec <ID> -- true`", execs)]
    print(f"| run ({args.rounds} rounds, medians) | time | ratio to direct |")
    print("| --- | ---: | ---: |")
    for name, value in rows:
        print(f"| {name} | {value * 1000:.1f} ms | {value / direct:.1f}x |")


if __name__ == "__main__":
    main()
