#!/usr/bin/env bash
# What one TLS-terminating hop costs at best on this machine: nginx as a
# reverse proxy (TLS in, pooled keep-alive TLS out) next to the direct path
# and egress-proxy, same origin, same hey load, in one run. nginx's reverse
# proxy does per request what an intercepting proxy does (decrypt, parse,
# forward on a pooled upstream connection, re-encrypt) without the CONNECT
# step, so its ratio to direct is the ceiling the keep-alive figures of
# bench/run.sh sit under.
#
#   sudo ./bench/tls_hop_ceiling.sh            # DUR=8 CONC="16 64" ROUNDS=2
#
# Loopback only (127.0.0.1:18443 origin, :19443 nginx proxy, egress-proxy on a
# free port); everything it starts is stopped by PID on exit.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
dur=${DUR:-8}
read -r -a concs <<<"${CONC:-16 64}"
rounds=${ROUNDS:-2}
for tool in nginx hey openssl; do
    command -v "$tool" >/dev/null || { echo "ceiling: $tool is missing (scripts/install-deps.sh)" >&2; exit 2; }
done
bin=$repo/build/release/egress-proxy/egress-proxy
[ -x "$bin" ] || { echo "ceiling: build the release preset first" >&2; exit 2; }

work=$(mktemp -d)
chmod 755 "$work"
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
    -keyout "$work/key.pem" -out "$work/cert.pem" -subj /CN=upstream.test \
    -addext subjectAltName=DNS:upstream.test 2>/dev/null
chmod 644 "$work/key.pem"
mkdir -p "$work/www" "$work/origin" "$work/rp"
head -c 1024 /dev/zero | tr '\0' 'a' >"$work/www/1k"

nginx_conf() { # dir workers server-block
    cat >"$1/nginx.conf" <<EOF
daemon off;
master_process on;
worker_processes $2;
pid $1/nginx.pid;
error_log $1/error.log warn;
events { worker_connections 8192; multi_accept on; }
http {
  access_log off;
  client_body_temp_path $1/body; proxy_temp_path $1/proxy; fastcgi_temp_path $1/fcgi;
  uwsgi_temp_path $1/uwsgi; scgi_temp_path $1/scgi;
  sendfile on; tcp_nopush on; tcp_nodelay on;
  keepalive_timeout 75s; keepalive_requests 1000000;
  default_type application/octet-stream;
  ssl_protocols TLSv1.2 TLSv1.3;
  $3
}
EOF
}
# The origin as bench-peers sets it up: one worker, static 1 KiB file.
nginx_conf "$work/origin" 1 "server { listen 127.0.0.1:18443 ssl; ssl_certificate $work/cert.pem;
    ssl_certificate_key $work/key.pem; root $work/www; location / { } }"
# The reverse proxy: two workers (egress-proxy runs one thread per core), a
# keep-alive pool to the origin, TLS sessions reused.
nginx_conf "$work/rp" 2 "upstream origin { server 127.0.0.1:18443; keepalive 256; }
  server { listen 127.0.0.1:19443 ssl; ssl_certificate $work/cert.pem;
    ssl_certificate_key $work/key.pem;
    location / { proxy_pass https://origin; proxy_http_version 1.1;
      proxy_set_header Connection \"\"; proxy_ssl_server_name on; proxy_ssl_name upstream.test;
      proxy_ssl_session_reuse on; proxy_buffering off; } }"
nginx -c "$work/origin/nginx.conf" -p "$work/origin" &
pids+=($!)
nginx -c "$work/rp/nginx.conf" -p "$work/rp" &
pids+=($!)

mkdir -p "$work/state"
OSF_SANDBOX_HOST_ALIASES=upstream.test=127.0.0.1 "$bin" --spec "$repo/bench/spec.json" \
    --listen 127.0.0.1:0 --admin-listen 127.0.0.1:0 --state-dir "$work/state" \
    --upstream-ca "$work/cert.pem" >"$work/egress.out" 2>"$work/egress.err" &
pids+=($!)
for _ in $(seq 1 100); do
    [ -s "$work/state/listen.json" ] && break
    sleep 0.1
done
eport=$(grep -o '"proxy" *: *"127.0.0.1:[0-9]*"' "$work/state/listen.json" | grep -o '[0-9]*"$' | tr -d '"' || true)
[ -n "$eport" ] || { echo "ceiling: egress-proxy did not start: $(tail -1 "$work/egress.err")" >&2; exit 1; }
for _ in $(seq 1 50); do
    curl -sk -o /dev/null https://127.0.0.1:19443/1k && break
    sleep 0.1
done

cpu_ticks() { # PIDs and their children: utime + stime, in clock ticks
    local p all=()
    for p in "$@"; do all+=("$p" $(pgrep -P "$p" || true)); done
    for p in "${all[@]}"; do cut -d')' -f2 "/proc/$p/stat" 2>/dev/null; done |
        awk '{ t += $12 + $13 } END { print t + 0 }'
}
# hey with the given arguments while the CPU of PIDs (and children) is counted;
# prints "requests/s CPU-seconds-per-1000-requests" (the second is "-" without PIDs).
measure() { # "pids" hey-arguments...
    local pids=$1 before after out
    shift
    before=$(cpu_ticks $pids)
    out=$(timeout -k 5 $((dur + 25)) hey -z "${dur}s" -t 10 -host upstream.test "$@")
    after=$(cpu_ticks $pids)
    awk -v b="$before" -v a="$after" -v hz="$(getconf CLK_TCK)" -v has="$pids" '
        /Requests\/sec:/ { rps = $2 }
        /Total:/ { secs = $2 }
        END { n = rps * secs; printf "%d %s\n", rps, (has == "" || n == 0) ? "-" : sprintf("%.3f", (a - b) / hz / n * 1000) }' <<<"$out"
}
echo "| connections | round | direct req/s | nginx reverse proxy req/s (% of direct) | its CPU s/1k req | egress-proxy req/s (% of direct) | its CPU s/1k req |"
echo "|---:|---:|---:|---:|---:|---:|---:|"
for c in "${concs[@]}"; do
    for r in $(seq 1 "$rounds"); do
        read -r d _ < <(measure "" -c "$c" https://127.0.0.1:18443/1k)
        read -r n ncpu < <(measure "${pids[1]}" -c "$c" https://127.0.0.1:19443/1k)
        read -r e ecpu < <(measure "${pids[2]}" -c "$c" -x "http://127.0.0.1:$eport" https://upstream.test:18443/1k)
        awk -v c="$c" -v r="$r" -v d="$d" -v n="$n" -v e="$e" -v nc="$ncpu" -v ec="$ecpu" \
            'BEGIN { printf "| %s | %s | %d | %d (%.0f %%) | %s | %d (%.0f %%) | %s |\n", c, r, d, n, 100*n/d, nc, e, 100*e/d, ec }'
    done
done
