#!/usr/bin/env bash
# Phase 30's preparation, run by .ci/run in the background from the run's start:
# the static build and the Debian roots, which phase 10 does not need, while
# phase 10 debootstraps and installs packages (network-bound). Phase 30 waits
# for it, then finds them made. See docs/ci.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
./scripts/install-deps.sh
./scripts/package-test.sh --prepare
