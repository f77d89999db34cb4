#!/usr/bin/env bash
# Runs the integration tests several times under load, each run in a new random
# order, and prints one row per test that failed at least once: how often, and
# the first line of each distinct failure (docs/ci.md, "Tests under load").
#   ./scripts/stress-tests.sh                       every integration test, 5 runs, 2 busy loops
#   RUNS=3 BUSY=4 ./scripts/stress-tests.sh proxy mcp   the CTest names matching these words
#   MEMHOG=4096 SLOWDISK=1 ./scripts/stress-tests.sh    add a 4 GiB resident hog and a dd loop
# Variables: RUNS (5), BUSY (CPU-bound loops beside the tests, 2), MEMHOG (MiB held
# resident, 0), SLOWDISK (1: a bounded dd writing and syncing beside the tests, 0),
# JOBS (test files run at once, 1), SEED (the first run's order; each run adds 1),
# PRESET (the build the tests use, default), MAX_MINUTES (the whole run's bound, 600),
# SKIP (CTest names to leave out, e.g. "sandbox_image image": they build images).
# Exits 0 when every run of every test passed, 1 when any failed, 2 on bad usage.
# Needs a build of the preset (cmake --build --preset default) and the npm test tools.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=${RUNS:-5}
busy=${BUSY:-2}
memhog=${MEMHOG:-0}
slowdisk=${SLOWDISK:-0}
jobs=${JOBS:-1}
preset=${PRESET:-default}
max_minutes=${MAX_MINUTES:-600}
seed=${SEED:-$((RANDOM * 32768 + RANDOM))}
for value in "$runs" "$busy" "$memhog" "$slowdisk" "$jobs" "$max_minutes" "$seed"; do
  case $value in
    '' | *[!0-9]*)
      echo "stress-tests: RUNS, BUSY, MEMHOG, SLOWDISK, JOBS, MAX_MINUTES and SEED take whole numbers (got '$value')" >&2
      exit 2
      ;;
  esac
done
build=build/$preset
if [ ! -f "$build/CTestTestfile.cmake" ]; then
  echo "stress-tests: no build in $build: run cmake --preset $preset && cmake --build --preset $preset" >&2
  exit 2
fi

out=build/stress/$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$out"

# The load: each part is its own process group, ended by PID when the runs end
# (or after MAX_MINUTES, whichever comes first), so nothing outlives the script.
load_pids=()
stop_load() {
  for pid in "${load_pids[@]}"; do kill -- "-$pid" 2>/dev/null || true; done
  rm -f "$out/slowdisk.bin"
}
trap stop_load EXIT
start_load() { # COMMAND...: a load process in a session of its own, bounded by MAX_MINUTES
  setsid timeout "$((max_minutes * 60))" "$@" </dev/null >/dev/null 2>&1 &
  load_pids+=($!)
}
for ((i = 0; i < busy; i++)); do start_load sh -c 'while :; do :; done'; done
if [ "$memhog" -gt 0 ]; then
  start_load /usr/bin/python3 -c '
import sys, time
held = bytearray(int(sys.argv[1]) * 1024 * 1024)
for i in range(0, len(held), 4096):
    held[i] = 1
while True:
    time.sleep(3600)
' "$memhog"
fi
if [ "$slowdisk" -gt 0 ]; then
  # 256 MiB written and synced, again and again: the page cache and the disk stay busy.
  start_load sh -c "while :; do dd if=/dev/zero of='$out/slowdisk.bin' bs=1M count=256 conv=fsync status=none; done"
fi
echo "stress-tests: $runs runs, $busy busy loops, memory hog ${memhog} MiB, slow disk $slowdisk, $jobs at once, first seed $seed; results in $out"

set +e
timeout "$((max_minutes * 60))" /usr/bin/python3 scripts/stress_runs.py \
  --build "$build" --out "$out" --runs "$runs" --jobs "$jobs" --seed "$seed" --skip "${SKIP:-}" "$@"
status=$?
set -e
[ "$status" = 124 ] && echo "stress-tests: stopped after MAX_MINUTES=$max_minutes" >&2
exit "$status"
