#!/usr/bin/env bash
# On this machine, the rest of the README's test command: ./scripts/test.sh with CI set
# (packages, npm test tools, the libFuzzer targets 20 s each, then the unit tests and the
# proxy's main integration tests under ASan+UBSan). Its Debug build and CTest pass run
# once per CI run, in phase 10's fresh Debian 12 root (OSF_SKIP_CTEST here; docs/ci.md).
set -euo pipefail
cd "$(dirname "$0")/../.."
export CI="${CI:-1}"
export OSF_SKIP_CTEST=1
./scripts/test.sh
