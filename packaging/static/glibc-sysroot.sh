#!/usr/bin/env bash
# Makes the root file system the static preset links against: Debian 11
# (bullseye, glibc 2.31) with libc6-dev, from debootstrap. Linking against the
# oldest glibc the binaries should run on keeps every versioned symbol they
# need at or below it (glibc is backward compatible, not forward).
#
#   packaging/static/glibc-sysroot.sh [DIR]      default: build/glibc-sysroot/bullseye
#
# It starts as a copy of packaging/debian-root.sh's pristine bullseye root (which
# the tests also run the binaries in); both are made once and reused.
# Needs root (debootstrap, chroot).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
dir="${1:-$repo/build/glibc-sysroot/bullseye}"

die() { echo "glibc-sysroot.sh: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "run as root (debootstrap and chroot need it)"

if [ ! -f "$dir/.complete" ]; then
  minbase="$("$here/../debian-root.sh" bullseye)"
  rm -rf "$dir"
  mkdir -p "$(dirname "$dir")"
  cp -a "$minbase" "$dir"
  rm -f "$dir/.complete"
  cp /etc/resolv.conf "$dir/etc/resolv.conf" 2>/dev/null || true
  chroot "$dir" apt-get install -y -qq --no-install-recommends libc6-dev >"$dir.log" 2>&1 ||
    die "apt-get install libc6-dev in $dir failed, see $dir.log"
  # The linker reads the root's links from outside it: make the absolute ones
  # (libpthread.so -> /lib/x86_64-linux-gnu/libpthread.so.0, the loader)
  # relative, or they would name the build machine's newer glibc.
  while IFS= read -r link; do
    ln -sfnr "$dir$(readlink "$link")" "$link"
  done < <(find "$dir/usr/lib/x86_64-linux-gnu" "$dir/usr/lib64" -maxdepth 1 -type l -lname '/*')
  touch "$dir/.complete"
fi
echo "$dir"
