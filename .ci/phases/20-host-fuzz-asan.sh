#!/usr/bin/env bash
# On this machine, the rest of ./scripts/test.sh: the five libFuzzer targets 20 s
# each, then the unit tests and the proxy's main integration tests under ASan+UBSan.
set -euo pipefail
cd "$(dirname "$0")/../.."
./scripts/install-deps.sh
./scripts/test-tools.sh
./scripts/fuzz.sh "${OSF_FUZZ_SECONDS:-20}"
./scripts/asan-tests.sh
