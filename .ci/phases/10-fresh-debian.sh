#!/usr/bin/env bash
# A fresh Debian 12 root (debootstrap minbase): the README's test command (the Debug
# build and every CTest test once, the report's Chromium tests among them, without the
# fuzz and ASan passes, which run on this machine in the next phase) and its main-job
# command. See scripts/fresh-debian-test.sh and docs/ci.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
export OSF_BROWSER_TESTS="${OSF_BROWSER_TESTS:-1}"
./scripts/fresh-debian-test.sh
