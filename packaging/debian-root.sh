#!/usr/bin/env bash
# A pristine Debian root file system (debootstrap --variant=minbase: Essential
# and Priority-required packages, apt), made once and kept under
# build/debian-roots/SUITE; tests copy it before changing anything.
#
#   packaging/debian-root.sh SUITE        prints the root's path (bullseye, bookworm, ...)
#
# OSF_DEBIAN_MIRROR overrides the mirror (default http://deb.debian.org/debian).
# Needs root.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
suite="${1:?usage: debian-root.sh SUITE}"
mirror="${OSF_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
root="$repo/build/debian-roots/$suite"
die() { echo "debian-root.sh: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "run as root (debootstrap needs it)"
command -v debootstrap >/dev/null || die "debootstrap is missing (apt-get install debootstrap)"
if [ ! -f "$root/.complete" ]; then
  rm -rf "$root"
  mkdir -p "$(dirname "$root")"
  echo "debian-root.sh: debootstrap --variant=minbase $suite (once; kept in $root)" >&2
  debootstrap --variant=minbase "$suite" "$root" "$mirror" >"$root.log" 2>&1 ||
    die "debootstrap $suite failed, see $root.log"
  touch "$root/.complete"
fi
echo "$root"
