#!/usr/bin/env bash
# The main job: installs what is needed, builds egress-proxy and sandbox-local
# (release preset), starts an HTTPS origin on this machine's loopback standing
# for an allowed host, creates a local sandbox from examples/local-sandbox-spec.json
# and shows inside it an allowed request (the proxy swaps the secret in), a
# refused host (403), a direct connection that fails and the placeholder where
# the secret would be; then the egress log; then prints what to try next.
# No cluster, no internet. The sandbox and the origin keep running for you to
# try things (KEEP=0 removes both at the end).
#   KEEP=0 DEMO_DIR=/tmp/demo PRESET=release ./scripts/run-local-sandbox.sh
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
if [ "$(id -u)" = 0 ]; then
  echo "installing the Debian packages the build needs (scripts/install-deps.sh)"
  ./scripts/install-deps.sh >/dev/null
fi
preset=${PRESET:-release}
./scripts/build-with-progress.sh "$preset" egress-proxy sandbox-local
bin=$repo/build/$preset/adapter/sandbox-local
spec=$repo/examples/local-sandbox-spec.json
demo=${DEMO_DIR:-$repo/local-sandbox-demo}
keep=${KEEP:-1}
mkdir -p "$demo"

# A throwaway CA and a certificate for the origin's two names.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
  -keyout "$demo/origin-ca.key" -out "$demo/origin-ca.crt" -subj /CN=osf-demo-origin-ca \
  -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=api.demo.test \
  -keyout "$demo/origin.key" -out "$demo/origin.csr" 2>/dev/null
printf 'subjectAltName=DNS:api.demo.test,DNS:other.demo.test\nextendedKeyUsage=serverAuth\n' >"$demo/origin.ext"
openssl x509 -req -in "$demo/origin.csr" -CA "$demo/origin-ca.crt" -CAkey "$demo/origin-ca.key" \
  -CAcreateserial -days 2 -extfile "$demo/origin.ext" -out "$demo/origin.crt" 2>/dev/null

rm -f "$demo/origin.port"
setsid /usr/bin/python3 "$repo/scripts/local-demo-origin.py" --cert "$demo/origin.crt" \
  --key "$demo/origin.key" --port-file "$demo/origin.port" </dev/null >"$demo/origin.log" 2>&1 &
origin=$!
for _ in $(seq 100); do [ -s "$demo/origin.port" ] && break; sleep 0.1; done
port=$(cat "$demo/origin.port")

# What the proxy (never the sandbox) gets: the names, the origin's CA, the secret.
export OSF_SANDBOX_HOST_ALIASES="api.demo.test=127.0.0.1,other.demo.test=127.0.0.1"
export OSF_UPSTREAM_CA_BUNDLE="$demo/origin-ca.crt"
export OSF_SECRET_DEMO_TOKEN="demo-real-secret-$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')"
# The example's egress entry pinned to the origin's port: an alias to 127.0.0.1
# with no port would let the sandbox reach every port of this machine's loopback.
/usr/bin/python3 - "$spec" "$demo/spec.json" "$port" <<'PY'
import json, sys
spec = json.load(open(sys.argv[1]))
spec["egress"] = [f"{host}:{sys.argv[3]}" if ":" not in host else host for host in spec["egress"]]
json.dump(spec, open(sys.argv[2], "w"), indent=2)
PY
spec=$demo/spec.json
id=$("$bin" create "$spec")
cleanup() { "$bin" destroy "$id" 2>/dev/null || true; kill "$origin" 2>/dev/null || true; }
if [ "$keep" = 0 ]; then trap cleanup EXIT; fi

show() { printf '\n$ sandbox-local exec %s -- %s\n' "$id" "$1"; "$bin" exec "$id" -- sh -c "$1" || true; }
printf '\nsandbox %s is ready (spec %s); inside it:\n' "$id" "$spec"
show "echo \$DEMO_TOKEN                                     # a placeholder: the real value stays outside"
show "curl -sS -H \"Authorization: Bearer \$DEMO_TOKEN\" https://api.demo.test:$port/hello   # allowed: the proxy swapped the secret in"
printf '(outside the sandbox, "Bearer <the real DEMO_TOKEN>" has sha256 %s)\n' \
  "$(printf 'Bearer %s' "$OSF_SECRET_DEMO_TOKEN" | sha256sum | cut -c1-12)"
show "curl -sS -o /dev/null -w '%{http_connect}\\n' https://other.demo.test:$port/   # not in egress: 403"
show "curl -sS --noproxy '*' --max-time 5 https://127.0.0.1:$port/ 2>&1   # around the proxy: nowhere to go"
show "ip -o link | cut -d' ' -f2                          # the network namespace has only loopback"
printf '\n$ sandbox-local egress-log %s\n' "$id"
"$bin" egress-log "$id"

if [ "$keep" = 0 ]; then
  printf '\nDone (KEEP=0: the sandbox and the origin are removed).\n'
  exit 0
fi
cat <<MSG

Try next (sandbox-local is $bin):
  $bin exec $id -- sh                          # a shell in the sandbox (/workspace)
  $bin exec $id -- curl -sS https://api.demo.test:$port/anything
  $bin copy ./README.md $id:README.md && $bin exec $id -- ls -l
  $bin snapshot $id                            # keep /workspace as a template
  $bin list -o wide; $bin egress-log $id
  $bin egress-log $id --summary                # hosts, refusals, secrets; does the log verify?
  $bin extend $id 2h; $bin suspend $id; $bin resume $id    # lifetime (8h), stop and start again
  $bin destroy $id --save-log $id.jsonl; kill $origin   # keep the verified log, remove the rest
Your own spec: examples/local-sandbox-spec.json and adapter/docs/sandbox-local.md.
MSG
