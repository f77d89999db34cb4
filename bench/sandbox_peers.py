#!/usr/bin/python3
"""sandbox-local beside two peers installed from npm, in one run: Anthropic's
sandbox runtime (srt) and OpenAI's Codex CLI (`codex sandbox`, its bubblewrap
sandbox with its network proxy on; timed both as npm installs it, a Node
wrapper, and as its native binary, which the wrapper starts). Each makes a
sandbox whose only way out is its own proxy and runs `true` in it.

  npm install --prefix PEERS @anthropic-ai/sandbox-runtime @openai/codex
  apt-get install ripgrep socat            # srt refuses to start without them
  /usr/bin/python3 bench/sandbox_peers.py --build build/release --peers PEERS [--rounds 20]

Rows: a fresh sandbox with its proxy and a first command (sandbox-local
`create` then `exec -- true`; `srt -c true`; `codex sandbox --enable
network_proxy -- true`, native and through npm's wrapper), and a command in a
running sandbox (sandbox-local `exec`; srt as a library, initialized once;
Codex has no running sandbox, so each command is a fresh one). The tools take turns within each round;
medians, and ratios to `true` started directly in the same run.
"""
import argparse
import glob
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time


def run_timed(argv, env=None):
    start = time.perf_counter()
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def peer_version(peers, package):
    with open(os.path.join(peers, "node_modules", package, "package.json")) as f:
        return json.load(f)["version"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default="build/release")
    parser.add_argument("--peers", required=True, help="the --prefix the peers were installed with")
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    peers = os.path.abspath(args.peers)
    binaries = os.path.join(peers, "node_modules", ".bin")
    local = os.path.join(args.build, "adapter", "sandbox-local")
    scratch = tempfile.mkdtemp(prefix="osf-peers-", dir="/tmp")
    # Codex refuses helper links under /tmp; its home sits beside the peers.
    codex_home = os.path.join(peers, "codex-home")
    os.makedirs(codex_home, exist_ok=True)
    with open(os.path.join(codex_home, "config.toml"), "w") as f:
        f.write('default_permissions = "workspace"\n'
                '[permissions.workspace.filesystem]\n":root" = "read"\n":tmpdir" = "write"\n'
                '[permissions.workspace.network]\nenabled = true\nmode = "full"\n'
                '[permissions.workspace.network.domains]\n"example.com" = "allow"\n')
    srt_settings = os.path.join(scratch, "srt-settings.json")
    with open(srt_settings, "w") as f:
        json.dump({"network": {"allowedDomains": ["example.com"], "deniedDomains": []},
                   "filesystem": {"denyRead": [], "allowWrite": ["/tmp"], "denyWrite": []}}, f)
    spec = os.path.join(scratch, "spec.json")
    with open(spec, "w") as f:
        json.dump({"template": "host", "egress": ["example.com"]}, f)
    env = dict(os.environ, OSF_SANDBOX_LOCAL_STATE_DIR=os.path.join(scratch, "state"),
               OSF_EGRESS_PROXY_BIN=os.path.join(args.build, "egress-proxy", "egress-proxy"),
               CODEX_HOME=codex_home, PATH=binaries + ":" + os.environ["PATH"])

    native = glob.glob(os.path.join(peers, "node_modules", "@openai", "codex-*", "vendor", "*",
                                    "bin", "codex"))
    if not native:
        raise SystemExit("sandbox_peers: no native codex binary under " + peers)
    codex_args = ["sandbox", "--enable", "network_proxy", "--", "true"]
    fresh = {"local": [], "srt": [], "codex": [], "codex native": []}
    direct = []
    for _ in range(args.rounds):
        direct.append(run_timed(["true"]))
        start = time.perf_counter()
        sandbox_id = subprocess.run([local, "create", spec], env=env, capture_output=True,
                                    text=True, check=True).stdout.strip()
        subprocess.run([local, "exec", sandbox_id, "--", "true"], env=env, check=True)
        fresh["local"].append(time.perf_counter() - start)
        subprocess.run([local, "destroy", sandbox_id], env=env, capture_output=True, check=True)
        fresh["srt"].append(run_timed(["srt", "-s", srt_settings, "-c", "true"], env=env))
        fresh["codex"].append(run_timed(["codex", *codex_args], env=env))
        fresh["codex native"].append(run_timed([native[0], *codex_args], env=env))

    sandbox_id = subprocess.run([local, "create", spec], env=env, capture_output=True, text=True,
                                check=True).stdout.strip()
    local_exec = [run_timed([local, "exec", sandbox_id, "--", "true"], env=env)
                  for _ in range(args.rounds)]
    subprocess.run([local, "destroy", sandbox_id], env=env, capture_output=True, check=True)
    srt_library = json.loads(subprocess.run(
        ["node", os.path.join(os.path.dirname(__file__), "srt_exec.mjs"), peers, str(args.rounds)],
        env=env, capture_output=True, text=True, check=True).stdout)
    shutil.rmtree(scratch)

    base = statistics.median(direct)
    ms = lambda seconds: f"{seconds * 1000:.1f} ms ({seconds / base:.0f}x)"
    median = statistics.median
    print(f"srt {peer_version(peers, '@anthropic-ai/sandbox-runtime')}, "
          f"codex {peer_version(peers, '@openai/codex')}; {args.rounds} rounds, medians; "
          f"`true` directly: {base * 1000:.2f} ms")
    print("| | sandbox-local | srt | codex (native binary) | codex (npm's Node wrapper) |")
    print("| --- | ---: | ---: | ---: | ---: |")
    print(f"| fresh sandbox and proxy, then `true` | {ms(median(fresh['local']))} | "
          f"{ms(median(fresh['srt']))} | {ms(median(fresh['codex native']))} | "
          f"{ms(median(fresh['codex']))} |")
    print(f"| `true` in a running sandbox | {ms(median(local_exec))} | "
          f"{ms(median(srt_library['command_ms']) / 1000)} (library) | "
          f"a fresh sandbox each time | |")
    print(f"| srt's initialize() (its proxies start) | | "
          f"{srt_library['initialize_ms']:.1f} ms | | |")


if __name__ == "__main__":
    main()
