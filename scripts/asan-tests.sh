#!/usr/bin/env bash
# The sanitizer pass of scripts/test.sh: builds the asan preset (ASan+UBSan) and
# runs the unit tests and the proxy's main integration tests under it. Expects
# the packages and the npm test tools in place (install-deps.sh, test-tools.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
cmake --preset asan
cmake --build --preset asan -j"$jobs"
ctest --preset asan -j"$jobs" -L unit
# The proxy itself under ASan+UBSan with real clients: LeakSanitizer's report at
# exit fails the SIGTERM test (exit code), as it did for a leaked BIO per TLS stream.
# (test_faults is left out: its memory-baseline check cannot hold under ASan's quarantine;
# for the same reason OSF_SANITIZED tells the HTTP/2 flood tests to skip their RSS checks.)
OSF_SANITIZED=1 ctest --preset asan -j"$jobs" \
  -R 'integration\.(proxy|keepalive_clients|mcp|bypass_smuggling|secrets|secret_binding|aws_sigv4|egress_rules|mcp_arguments|tcp_egress|policy_change|http2|http2_upstream)$'
