#!/usr/bin/env bash
# The benchmark, one command: egress-proxy next to a direct connection and the
# peers people use today (Squid ssl-bump, mitmproxy), same workloads, one run.
#
#   ./bench/run.sh                       # direct squid-bump1 mitmproxy egress + idle-tunnel memory
#   PEERS="direct egress" ./bench/run.sh # a subset
#   DUR=8 KEY_ALG=ec ./bench/run.sh      # knobs of the shared harness (see its run.sh header)
#   EGRESS_ARGS="--threads 1" ./bench/run.sh  # extra egress-proxy arguments
#   EGRESS_BIN=/path/to/egress-proxy ./bench/run.sh  # another build (A/B), not rebuilt here
#   EGRESS_BASELINE=/path/to/old/egress-proxy ./bench/run.sh  # adds peer egress-base: A/B in one run
#   ROUNDS=3 ./bench/run.sh              # the whole run 3 times, peer order reversed every other
#                                        # round; bench/rounds_summary.py prints medians and ratios
#   BUSY=2 ./bench/run.sh                # a busy node: 2 CPU-bound processes run beside every
#                                        # peer for the whole run (started and stopped here)
#
# The HTTPS workloads come from the shared harness (../shared/bench-peers, or
# BENCH_PEERS=DIR): nginx origin on loopback, hey load, CPU and RSS from /proc.
# bench/idle_tunnels.py adds the memory per idle intercepted tunnel.
# Results: bench-results/<stamp>/ (tables in markdown), and stdout.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
peers_dir=${BENCH_PEERS:-$repo/../shared/bench-peers}
[ -x "$peers_dir/run.sh" ] || { echo "bench: no harness at $peers_dir (set BENCH_PEERS)" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "bench: run as root (the harness uses a private mount namespace)" >&2; exit 2; }

if [ -n "${EGRESS_BIN:-}" ]; then
  bin=$EGRESS_BIN
else
  cmake --preset release >/dev/null
  cmake --build --preset release --target egress-proxy -j"$(nproc)" >/dev/null
  bin=$repo/build/release/egress-proxy/egress-proxy
fi
results=${BENCH_RESULTS:-$repo/bench-results}
mkdir -p "$results"

# The harness's origin and its c1..cN hosts live on 127.0.0.1, which the proxy
# refuses unless an alias names the address: the aliases say these test names
# may go to loopback, as a private service's would.
cold=${COLD_HOSTS:-20}
aliases="upstream.test=127.0.0.1"
for i in $(seq 1 "$cold"); do aliases+=",c$i.upstream.test=127.0.0.1"; done
egress="cmd:egress@{WORK}/state/ca.crt=env OSF_SANDBOX_HOST_ALIASES=$aliases $bin --spec $repo/bench/spec.json --listen 127.0.0.1:{PORT} --admin-listen 127.0.0.1:0 --state-dir {WORK}/state --upstream-ca {UPSTREAM_CA} ${EGRESS_ARGS:-}"

read -r -a peers <<<"${PEERS:-direct squid-bump1 mitmproxy egress}"
if [ -n "${EGRESS_BASELINE:-}" ]; then
  [ -x "$EGRESS_BASELINE" ] || { echo "bench: EGRESS_BASELINE $EGRESS_BASELINE is not an executable" >&2; exit 2; }
  peers+=(egress-base)
fi
args=()
for p in "${peers[@]}"; do
  case $p in
    egress) args+=("$egress") ;;
    egress-base) args+=("${egress//cmd:egress@/cmd:egress-base@}") ;;
    *) args+=("$p") ;;
  esac
done
[ -z "${EGRESS_BASELINE:-}" ] || args[-1]=${args[-1]//" $bin "/" $EGRESS_BASELINE "}

# A busy node: CPU-bound processes beside the run, the same for every peer.
# Each is bounded by time and stopped by PID when the run ends.
busy=${BUSY:-0}
[[ $busy =~ ^[0-9]+$ ]] || { echo "bench: BUSY is a number of processes" >&2; exit 2; }
busy_pids=()
stop_busy() {
  for p in "${busy_pids[@]}"; do kill "$p" 2>/dev/null || true; done
  busy_pids=()
}
trap stop_busy EXIT
for _ in $(seq 1 "$busy"); do
  timeout 7200 sh -c 'while :; do :; done' &
  busy_pids+=($!)
done

rounds=${ROUNDS:-1}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "bench: ROUNDS is a positive number" >&2; exit 2; }
round_dirs=()
for round in $(seq 1 "$rounds"); do
  order=("${args[@]}")
  if [ $((round % 2)) = 0 ]; then # every other round the other way round
    order=()
    for ((i = ${#args[@]} - 1; i >= 0; i--)); do order+=("${args[i]}"); done
  fi
  # (find, not ls: an empty results directory must not end the run under pipefail)
  before=$(find "$results" -mindepth 1 -maxdepth 1 -type d | wc -l)
  BENCH_RESULTS=$results COLD_HOSTS=$cold "$peers_dir/run.sh" "${order[@]}"
  [ "$(find "$results" -mindepth 1 -maxdepth 1 -type d | wc -l)" -gt "$before" ] && round_dirs+=("$(ls -td "$results"/*/ | head -1)")
done
stop_busy
if [ "$rounds" -gt 1 ]; then
  echo
  echo "## Medians over $rounds rounds (busy processes: $busy)"
  /usr/bin/python3 "$repo/bench/rounds_summary.py" "${round_dirs[@]}" | tee "$results/rounds-summary.md"
fi

echo
echo "## Memory per idle intercepted tunnel"
/usr/bin/python3 "$repo/bench/idle_tunnels.py" --proxy "$bin" --tunnels "${IDLE_TUNNELS:-1000}" | tee "$results/idle-tunnels.md"
