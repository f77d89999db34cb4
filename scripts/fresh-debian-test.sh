#!/usr/bin/env bash
# Runs the README's two commands on a fresh Debian 12, as a new user would:
#   1. debootstrap --variant=minbase bookworm into WORKDIR/root (Debian packages only);
#   2. copies in what any machine on this network has, and nothing else: the extra
#      CA certificates (/usr/local/share/ca-certificates), apt's Debian sources and its
#      network settings (proxy, release-file validity), and the /etc/hosts the Debian
#      installer writes (localhost only);
#   3. clones this repository's HEAD into it (/root/osf-sandbox; committed work only);
#   4. in the root (as root, in its own mount and PID namespaces: /proc, /sys with the
#      machine's cgroup hierarchies, /dev and a
#      fresh /run, the root made "/" with pivot_root, so it is no chroot), runs
#        ./scripts/install-deps.sh            (timed alone; test.sh repeats it as a no-op)
#        ./scripts/test.sh                    every CTest test once: OSF_SKIP_ASAN=1, OSF_FUZZ_SECONDS=0
#        PRESET=default ./scripts/run-proxy.sh --check  the proxy alone, up to its "Try it" output and a 403
#        PRESET=default KEEP=0 ./scripts/run-local-sandbox.sh  the main job: a local sandbox, its allowed and
#                                             refused requests in the egress log, then removed
#   Every mount lives in that namespace and every process in the PID namespace: both
#   end with the command, whatever happened (the CI machine's mounts are never touched).
#
#   sudo ./scripts/fresh-debian-test.sh [WORKDIR]     (default build/fresh-debian)
#   OSF_FRESH_FULL=1     test.sh with its fuzz and ASan passes too (as in the README, ~2x longer)
#   OSF_FRESH_KEEP=1     keep WORKDIR/root afterwards (it is removed on success otherwise)
#   OSF_BROWSER_TESTS=1  passed in: install-deps.sh adds Chromium, the report's rendering tests run
# Exit: 0 when both commands passed, 1 when one failed, 2 on bad usage or a machine
# that cannot build the root (not root, no debootstrap). Timings: WORKDIR/timings.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

if [ "$(id -u)" != 0 ]; then
  echo "fresh-debian-test: run as root (debootstrap, unshare and mount need it)" >&2
  exit 2
fi
for tool in debootstrap unshare pivot_root findmnt git; do
  command -v "$tool" >/dev/null 2>&1 || { echo "fresh-debian-test: $tool is missing (Debian packages debootstrap, util-linux, git)" >&2; exit 2; }
done
[ $# -le 1 ] || { echo "usage: $0 [WORKDIR]" >&2; exit 2; }
work=$(realpath -m "${1:-$repo/build/fresh-debian}")
root=$work/root
commit=$(git rev-parse HEAD)

# Mount points at or below $1, deepest first.
mounts_under() { findmnt -rn -o TARGET | awk -v r="$1" '$0 == r || index($0, r "/") == 1' | sort -r; }

remove_root() {
  if [ -n "$(mounts_under "$root")" ]; then
    echo "fresh-debian-test: something is mounted under $root; not removing it" >&2
    return 1
  fi
  rm -rf --one-file-system "$root"
}

timings=()
step_started=0
step() { step_started=$SECONDS; echo; echo "==== fresh-debian: $1"; }
took() { timings+=("$(printf '%-34s %5d s' "$1" $((SECONDS - step_started)))"); }

mkdir -p "$work"
[ ! -e "$root" ] || remove_root

# --- 1. the root -------------------------------------------------------------------
# The mirror apt already uses for bookworm (debootstrap's own default otherwise).
mirror=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 'Identifier: Packages' 2>/dev/null |
  awk '$2 == "bookworm" { print $1; exit }')
step "debootstrap --variant=minbase bookworm ${mirror:-(default mirror)}"
if ! debootstrap --variant=minbase bookworm "$root" ${mirror:+"$mirror"} >"$work/debootstrap.log" 2>&1; then
  tail -30 "$work/debootstrap.log" >&2
  echo "fresh-debian-test: debootstrap failed (log: $work/debootstrap.log)" >&2
  exit 1
fi
took debootstrap

# --- 2. what a machine on this network has -----------------------------------------
step "network settings: CA certificates, apt sources and settings, /etc/hosts"
if [ -d /usr/local/share/ca-certificates ]; then
  cp -a /usr/local/share/ca-certificates/. "$root/usr/local/share/ca-certificates/"
fi
# apt's Debian sources for bookworm, when their keyrings exist in the new root
# (debootstrap's sources.list has bookworm main only: no updates, no security).
copied=0
for src in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
  [ -f "$src" ] && grep -qE '^[^#]*bookworm' "$src" || continue
  keyrings_present=1
  for keyring in $(grep -oiE 'signed-by[:=] *[^] ]+' "$src" | sed -E 's/^[^:=]*[:=] *//'); do
    [ -e "$root$keyring" ] || keyrings_present=0
  done
  [ "$keyrings_present" = 1 ] || continue
  [ "$copied" = 1 ] || rm -f "$root/etc/apt/sources.list"
  cp "$src" "$root$src"
  copied=1
done
# apt's network settings only (a proxy, a mirror's release-file validity).
for conf in /etc/apt/apt.conf /etc/apt/apt.conf.d/*; do
  [ -f "$conf" ] || continue
  grep -qiE 'Acquire::(https?::)?(Proxy|Check-Valid-Until|Check-Date)' "$conf" && cp "$conf" "$root$conf"
done
# The Debian installer writes this; debootstrap writes none.
printf '127.0.0.1\tlocalhost\n::1\t\tlocalhost ip6-localhost ip6-loopback\nff02::1\t\tip6-allnodes\nff02::2\t\tip6-allrouters\n' \
  >"$root/etc/hosts"
took "network settings"

# --- 3. the commit -----------------------------------------------------------------
step "clone $commit"
git clone --quiet --no-hardlinks "$repo" "$root/root/osf-sandbox"
git -C "$root/root/osf-sandbox" checkout --quiet --detach "$commit"
took clone

# --- 4. the README's commands, in the root ------------------------------------------
# Enters the root in new mount and PID namespaces (unshare --fork --kill-child: when
# the command ends, or this script is killed, the kernel ends every process left in
# it and drops every mount). The root is bind-mounted onto itself and made "/" with
# pivot_root rather than chroot: the kernel refuses user namespaces (bubblewrap, in
# the image test) inside a chroot, and `ip netns exec` and buildah remount "/".
cat >"$work/enter-root.sh" <<'ENTER'
set -eu
root=$1
shift
mount --bind "$root" "$root"
mount -t proc proc "$root/proc"
mount -t sysfs sysfs "$root/sys"
# The cgroup hierarchies systemd mounts on an installed machine (a new sysfs has none).
mount --rbind /sys/fs/cgroup "$root/sys/fs/cgroup"
mount --rbind /dev "$root/dev"
mount -t tmpfs -o mode=0755 tmpfs "$root/run"
mkdir -p "$root/.old-root"
cd "$root"
pivot_root . .old-root
umount -l /.old-root
rmdir /.old-root
exec /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  HOME=/root LANG=C.UTF-8 TERM=dumb "$@"
ENTER

test_env=(OSF_SKIP_ASAN=1 OSF_FUZZ_SECONDS=0)
[ -z "${OSF_FRESH_FULL:-}" ] || test_env=()
in_root() {
  unshare --mount --pid --fork --kill-child --propagation private \
    /bin/bash "$work/enter-root.sh" "$root" CI="${CI:-}" OSF_BROWSER_TESTS="${OSF_BROWSER_TESTS:-}" "$@"
}

failed=0
step "./scripts/install-deps.sh"
in_root /bin/bash -c 'cd /root/osf-sandbox && ./scripts/install-deps.sh' || failed=1
took install-deps.sh
if [ "$failed" = 0 ]; then
  step "${test_env[*]} ./scripts/test.sh"
  in_root "${test_env[@]}" /bin/bash -c 'cd /root/osf-sandbox && ./scripts/test.sh' || failed=1
  took test.sh
  # test.sh's own steps, so a CI log's last lines say where the time went.
  while IFS= read -r line; do timings+=("  $line"); done <"$root/root/osf-sandbox/build/test-steps.txt" || true
  step "./scripts/run-proxy.sh --check"
  out=$work/run-proxy.out
  in_root /bin/bash -c 'cd /root/osf-sandbox && PRESET=default ./scripts/run-proxy.sh --check' 2>&1 | tee "$out" || failed=1
  grep -q '^Try it:' "$out" || { echo "fresh-debian-test: run-proxy.sh printed no 'Try it:'" >&2; failed=1; }
  took "run-proxy.sh --check"
  # The README's main job: a local sandbox; KEEP=0 removes it and its origin at the end.
  # Both demos use the Debug build test.sh has just made (PRESET=default): a second,
  # release build would cost CI about 8 minutes, and phase 30 builds the release
  # flags (the static preset) on this commit anyway.
  step "KEEP=0 ./scripts/run-local-sandbox.sh"
  out=$work/run-local-sandbox.out
  in_root /bin/bash -c 'cd /root/osf-sandbox && PRESET=default KEEP=0 ./scripts/run-local-sandbox.sh' 2>&1 | tee "$out" || failed=1
  for expected in '"outcome":"allowed"' '"outcome":"refused"' '^Done (KEEP=0'; do
    grep -q "$expected" "$out" || { echo "fresh-debian-test: run-local-sandbox.sh printed no $expected" >&2; failed=1; }
  done
  took "run-local-sandbox.sh"
fi

echo
printf '%s\n' "fresh-debian timings (commit $commit, $(nproc) cores):" "${timings[@]}" | tee "$work/timings.txt"
if [ "$failed" != 0 ]; then
  echo "fresh-debian-test: FAILED; the root is kept in $root" >&2
  exit 1
fi
[ -n "${OSF_FRESH_KEEP:-}" ] || remove_root
echo "fresh-debian-test: the README's test command and main job passed on a fresh Debian 12"
