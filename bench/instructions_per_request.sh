#!/usr/bin/env bash
# Instructions the proxy executes per keep-alive request, counted by callgrind,
# for one or more builds in the same run: a figure that does not move with the
# machine's load, for A/B comparisons on a shared machine where req/s and CPU
# seconds swing by a factor of two.
#
#   ./bench/instructions_per_request.sh BIN [BIN ...]
#   N1=100 N2=600 TOP=15 ./bench/instructions_per_request.sh /tmp/old /tmp/new
#   MODE=new N1=20 N2=120 ./bench/instructions_per_request.sh BIN   # a new connection per request
#   SPEC=bench/spec-50-rules.json ./bench/instructions_per_request.sh BIN   # another spec
#
# Each build serves N1 and then N2 GETs of a 1 KiB file over one intercepted TLS
# tunnel (curl, keep-alive) from an nginx HTTPS origin on loopback, with one
# worker thread; (instructions at N2 - at N1) / (N2 - N1) takes start-up, the
# CA, the leaf and the handshakes out. MODE=new makes every request a new
# CONNECT and TLS handshake (`Connection: close`; RESUME=1 lets curl resume its
# TLS session, as clients with a session cache do): the handshakes are then
# what is counted, the leaf (minted once) still is not. Prints that figure per build, its ratio
# to the first build, and with two builds the functions whose own instructions
# per request differ most (callgrind_annotate, self cost).
# Caveat: valgrind does not emulate the SHA extensions, so OpenSSL's SHA-256 runs
# its generic code under callgrind (about 2,000 instructions per 64-byte block);
# on a CPU with SHA-NI the log chain's hash costs far less than counted here.
# Loopback only (origin on a free port); everything started is stopped by PID.
set -euo pipefail
[ $# -ge 1 ] || { sed -n '2,24p' "$0" >&2; exit 2; }
repo=$(cd "$(dirname "$0")/.." && pwd)
mode=${MODE:-ka}
case $mode in ka | new) ;; *) echo "instructions: MODE is ka or new" >&2; exit 2 ;; esac
n1=${N1:-$([ "$mode" = new ] && echo 20 || echo 100)}
n2=${N2:-$([ "$mode" = new ] && echo 120 || echo 600)}
top=${TOP:-15}
spec=$(realpath "${SPEC:-$repo/bench/spec.json}")
[ "$n2" -gt "$n1" ] || { echo "instructions: N2 must be above N1" >&2; exit 2; }
for tool in valgrind callgrind_annotate nginx curl openssl python3; do
    command -v "$tool" >/dev/null || { echo "instructions: $tool is missing" >&2; exit 2; }
done
for bin in "$@"; do [ -x "$bin" ] || { echo "instructions: $bin is not an executable" >&2; exit 2; }; done

work=$(mktemp -d)
chmod 755 "$work"
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
    -keyout "$work/key.pem" -out "$work/cert.pem" -subj /CN=upstream.test \
    -addext subjectAltName=DNS:upstream.test 2>/dev/null
chmod 644 "$work/key.pem"
mkdir -p "$work/www"
head -c 1024 /dev/zero | tr '\0' 'a' >"$work/www/1k"
origin_port=$(free_port)
cat >"$work/nginx.conf" <<EOF
worker_processes 1;
daemon off;
pid $work/nginx.pid;
error_log $work/nginx.err;
events { worker_connections 256; }
http {
  access_log off;
  keepalive_requests 1000000;
  server {
    listen 127.0.0.1:$origin_port ssl;
    ssl_certificate $work/cert.pem;
    ssl_certificate_key $work/key.pem;
    location / { root $work/www; }
  }
}
EOF
nginx -c "$work/nginx.conf" &
pids+=($!)
url=https://upstream.test:$origin_port/1k
for _ in $(seq 50); do
    curl -sf -o /dev/null --cacert "$work/cert.pem" --resolve "upstream.test:$origin_port:127.0.0.1" "$url" && break
    sleep 0.2
done

# count BIN N -> callgrind output file
count() {
    local bin=$1 n=$2 out=$work/cg-$3-$2.out state=$work/state-$3-$2 port pid
    port=$(free_port)
    mkdir -p "$state"
    OSF_SANDBOX_HOST_ALIASES=upstream.test=127.0.0.1 valgrind --tool=callgrind --callgrind-out-file="$out" \
        "$bin" --spec "$spec" --listen "127.0.0.1:$port" --admin-listen 127.0.0.1:0 \
        --state-dir "$state" --upstream-ca "$work/cert.pem" --threads 1 >"$work/proxy-$3-$2.log" 2>&1 &
    pid=$!
    pids+=("$pid")
    local urls=() i
    for i in $(seq 120); do
        [ -f "$state/ca.crt" ] && curl -sf -o /dev/null -x "http://127.0.0.1:$port" --cacert "$state/ca.crt" "$url" && break
        sleep 0.5
    done
    for i in $(seq $((n - 1))); do urls+=("$url"); done
    local per_request=()
    if [ "$mode" = new ]; then
        per_request=(-H "Connection: close")
        [ "${RESUME:-0}" = 1 ] || per_request+=(--no-sessionid)
    fi
    curl -sf -x "http://127.0.0.1:$port" --cacert "$state/ca.crt" "${per_request[@]}" "${urls[@]}" >/dev/null ||
        { echo "instructions: requests through $bin failed" >&2; exit 1; }
    kill -INT "$pid"
    wait "$pid" || true
    echo "$out"
}

labels=()
i=0
for bin in "$@"; do
    i=$((i + 1))
    label=b$i
    count "$bin" "$n1" "$label" >/dev/null
    count "$bin" "$n2" "$label" >/dev/null
    for n in "$n1" "$n2"; do
        callgrind_annotate --threshold=100 --tree=none --inclusive=no "$work/cg-$label-$n.out" \
            >"$work/cg-$label-$n.txt" 2>/dev/null
    done
    labels+=("$label:$bin")
done

python3 - "$work" "$n1" "$n2" "$top" "${labels[@]}" <<'EOF'
import re, sys
work, n1, n2, top = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
builds = [a.split(":", 1) for a in sys.argv[5:]]

def name(raw):
    lib = re.match(r"\?\?\?:0x[0-9a-f]+ \[.*/([^/\]]+)\]$", raw)
    if lib:  # no symbol: count it under its library
        return lib.group(1) + " (no symbol)"
    raw = re.sub(r"\s*\(\d[\d,]*x\)|\s*\[[^]]*\]$", "", raw)
    return re.sub(r"^.*?/(egress-proxy|contracts|usr)/", r"\1/", raw).strip()

def self_costs(path):
    costs = {}
    for line in open(path):
        m = re.match(r"\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(.*)$", line)
        if m and "=>" not in line:
            k = name(m.group(2))
            costs[k] = costs.get(k, 0) + int(m.group(1).replace(",", ""))
    return costs

per = []
for label, _ in builds:
    a = self_costs(f"{work}/cg-{label}-{n1}.txt")
    b = self_costs(f"{work}/cg-{label}-{n2}.txt")
    per.append({k: (b.get(k, 0) - a.get(k, 0)) / (n2 - n1) for k in set(a) | set(b)})

base = per[0]["PROGRAM TOTALS"]
print(f"| build | instructions per request | ratio to the first |")
print(f"|---|---:|---:|")
for (label, bin_), p in zip(builds, per):
    total = p["PROGRAM TOTALS"]
    print(f"| `{bin_}` | {total:,.0f} | {total / base:.2f} |")
if len(per) == 2:
    a, b = per
    keys = [k for k in set(a) | set(b) if k not in ("PROGRAM TOTALS", "events annotated")]
    keys.sort(key=lambda k: -abs(b.get(k, 0) - a.get(k, 0)))
    print()
    print("| first | second | difference | function (self cost per request) |")
    print("|---:|---:|---:|---|")
    for k in keys[:top]:
        print(f"| {a.get(k, 0):,.0f} | {b.get(k, 0):,.0f} | {b.get(k, 0) - a.get(k, 0):+,.0f} | `{k[:110]}` |")
EOF
