#!/usr/bin/env bash
# On this machine, the README's test command as a new user runs it: ./scripts/test.sh
# (packages, npm test tools, the Debug build and every CTest test, the libFuzzer targets
# 20 s each because CI is set, then the unit tests and the proxy's main integration
# tests under ASan+UBSan), with Chromium installed for the report's rendering tests. Phase 10 runs the same command in a fresh Debian 12 root.
set -euo pipefail
cd "$(dirname "$0")/../.."
export CI="${CI:-1}"
# Chromium for the report's rendering tests (scripts/install-deps.sh; docs/ci.md says why here only).
export OSF_BROWSER_TESTS="${OSF_BROWSER_TESTS:-1}"
./scripts/test.sh
