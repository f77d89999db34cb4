#!/usr/bin/env bash
# On this machine: every install route (Debian packages, the self-contained
# binaries, the npm package, the adapter image) built from this commit and
# installed on clean roots. See scripts/package-test.sh and docs/release.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
./scripts/install-deps.sh
./scripts/package-test.sh
