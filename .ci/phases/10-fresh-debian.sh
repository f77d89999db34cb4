#!/usr/bin/env bash
# A fresh Debian 12 root (debootstrap minbase): the README's two commands as a new user
# runs them, `./scripts/install-deps.sh`-and-`./scripts/test.sh` (the Debug build and the
# integration tests, the libFuzzer targets 20 s each because CI is set, the ASan+UBSan pass
# with the unit tests) and
# its main-job command. Chromium is installed there for the report's rendering tests.
# See scripts/fresh-debian-test.sh and docs/ci.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
export CI="${CI:-1}"
export OSF_BROWSER_TESTS="${OSF_BROWSER_TESTS:-1}"
export OSF_FRESH_FULL=1
status=0
./scripts/fresh-debian-test.sh || status=$?
# .ci/run prints a phase's build/ci/NAME.steps after its summary line.
cp build/fresh-debian/timings.txt build/ci/10-fresh-debian.steps 2>/dev/null || true
exit "$status"
