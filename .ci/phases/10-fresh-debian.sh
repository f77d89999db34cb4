#!/usr/bin/env bash
# A fresh Debian 12 root (debootstrap minbase): the README's test command (every
# CTest test once, without the fuzz and ASan passes, which run on this machine in
# the next phase) and its main-job command. See scripts/fresh-debian-test.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
./scripts/fresh-debian-test.sh
