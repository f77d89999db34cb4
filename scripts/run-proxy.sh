#!/usr/bin/env bash
# The main job: installs what is needed, builds the proxy (release preset) and
# runs it standalone with an example spec, printing where its CA certificate is
# and a curl command that goes through it. Ctrl-C stops it (SIGINT drains).
#   SPEC=path/to/spec.json LISTEN=127.0.0.1:8080 ADMIN=127.0.0.1:9090 PRESET=release ./scripts/run-proxy.sh
#   ./scripts/run-proxy.sh --check   the same, then checks that the proxy refuses a host the
#                                    spec does not allow (403) and stops it: exit 0 when it did (CI)
set -euo pipefail
cd "$(dirname "$0")/.."
check=
case "${1:-}" in
  "") ;;
  --check) check=1 ;;
  *) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac
repo=$PWD
if [ "$(id -u)" = 0 ]; then
  echo "installing the Debian packages the build needs (scripts/install-deps.sh)"
  ./scripts/install-deps.sh >/dev/null
fi
preset=${PRESET:-release}
./scripts/build-with-progress.sh "$preset" egress-proxy
spec=${SPEC:-$repo/examples/standalone-spec.json}
listen=${LISTEN:-127.0.0.1:8080}
admin=${ADMIN:-127.0.0.1:9090}
state=${STATE_DIR:-$repo/egress-state}
bin=$repo/build/$preset/egress-proxy/egress-proxy
mkdir -p "$state"
rm -f "$state/listen.json" # a previous run's: wait for this run's
"$bin" --spec "$spec" --listen "$listen" --admin-listen "$admin" --state-dir "$state" &
pid=$!
trap 'kill -INT $pid 2>/dev/null; wait $pid' INT TERM
for _ in $(seq 100); do [ -s "$state/listen.json" ] && break; kill -0 $pid 2>/dev/null || exit 2; sleep 0.1; done
cat <<MSG

egress-proxy is running (pid $pid) with spec $spec
  CA certificate: $state/ca.crt   (a new one at every start; trust it in the client)
  egress log:     $state/egress.jsonl   ($bin log --state-dir $state)
  metrics:        curl -s http://$admin/metrics

Try it:
  curl --proxy http://$listen --cacert $state/ca.crt https://example.com/
  curl --proxy http://$listen --cacert $state/ca.crt https://not-allowed.example.org/   # 403

Ctrl-C stops it.
MSG
if [ -n "$check" ]; then
  # No network needed: the refusal happens before any name is resolved.
  connect=$(curl -s -o /dev/null -w '%{http_connect}' --max-time 30 --proxy "http://$listen" \
    --cacert "$state/ca.crt" https://not-allowed.example.org/ || true)
  # SIGTERM drains as SIGINT does; a background job of a script may have SIGINT ignored
  # until the proxy installs its handler. Bounded: killed after 30 s.
  kill -TERM $pid
  for _ in $(seq 300); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
  kill -KILL $pid 2>/dev/null || true
  wait $pid || true
  if [ "$connect" != 403 ]; then
    echo "run-proxy: --check: expected 403 for a host the spec does not allow, got '$connect'" >&2
    exit 1
  fi
  echo "run-proxy: --check: not-allowed.example.org refused with 403; proxy stopped"
  exit 0
fi
wait $pid
