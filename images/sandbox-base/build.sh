#!/usr/bin/env bash
# Builds the sandbox-base image (Containerfile beside this script).
#
#   build.sh [base|image|all] [options]
#
#   base    make its Debian 12 base without a registry: debootstrap (minbase) from the
#           Debian archive into a root file system, trimmed like debian:bookworm-slim,
#           committed to buildah as --base-tag
#   image   build the image FROM the base (buildah or docker)
#   all     both (the default); with --base, only image
#
# Options:
#   --base IMAGE         build FROM this image instead of making one (for example
#                        docker.io/library/debian:bookworm-slim where a registry is reachable)
#   --base-tag NAME      the name `base` gives its image (default localhost/osf-debian:bookworm)
#   --mirror URL         the Debian archive for `base` (default http://deb.debian.org/debian)
#   --work DIR           scratch directory for `base` (default build/images/sandbox-base-work)
#   --tag NAME           image name, repeatable (default localhost/sandbox-base:dev)
#   --engine E           buildah (default: vfs storage, chroot isolation, no daemon) or docker
#                        (docker needs --base: `base` makes buildah images only)
#   --storage-root DIR   buildah only: keep images under DIR instead of the system store
#   --version V          org.opencontainers.image.version (default: git describe)
#   --revision R         org.opencontainers.image.revision (default: git HEAD)
#   --source URL         org.opencontainers.image.source (default: empty)
#
# Both steps download Debian packages (debootstrap, then the Containerfile's apt-get), so
# the Debian archive must be reachable; a registry need not be. `base` runs as root.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"

step=all
base=""
base_tag="localhost/osf-debian:bookworm"
mirror="http://deb.debian.org/debian"
work="$repo/build/images/sandbox-base-work"
# shellcheck source-path=SCRIPTDIR source=../lib/image-build.sh
. "$repo/images/lib/image-build.sh"

case "${1:-}" in
  base | image | all) step="$1"; shift ;;
esac
while [ $# -gt 0 ]; do
  case "$1" in
    --base) base="${2:?--base needs an image}"; shift 2 ;;
    --base-tag) base_tag="${2:?--base-tag needs a name}"; shift 2 ;;
    --mirror) mirror="${2:?--mirror needs a URL}"; shift 2 ;;
    --work) work="${2:?--work needs a directory}"; shift 2 ;;
    *) image_common_option "$@"; shift "$consumed" ;;
  esac
done
image_options_done localhost/sandbox-base:dev
if [ "$engine" = docker ] && [ -z "$base" ] && [ "$step" != image ]; then
  die "--engine docker needs --base (an image from a registry): base makes buildah images only"
fi

make_base() {
  [ "$(id -u)" = 0 ] || die "base needs root (debootstrap)"
  command -v debootstrap >/dev/null || die "base needs debootstrap (apt-get install debootstrap)"
  local rootfs="$work/rootfs"
  rm -rf "$work"
  mkdir -p "$work"
  debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >&2
  # What debian:bookworm-slim has: the archive and its security updates as sources,
  # no package caches or lists, no documentation beyond copyright notices.
  printf '%s\n' "deb $mirror bookworm main" "deb $mirror bookworm-updates main" \
    "deb ${mirror%/debian}/debian-security bookworm-security main" >"$rootfs/etc/apt/sources.list"
  cat >"$rootfs/etc/dpkg/dpkg.cfg.d/docker-slim" <<'CFG'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
CFG
  rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* \
    "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* "$rootfs"/var/log/*.log \
    "$rootfs"/var/log/apt/* "$rootfs"/debootstrap
  find "$rootfs/usr/share/doc" -type f ! -name copyright -delete
  local ctr mnt
  ctr="$(buildah "${buildah_global[@]}" from scratch)"
  mnt="$(buildah "${buildah_global[@]}" mount "$ctr")"
  tar -C "$rootfs" --numeric-owner -cf - . | tar -C "$mnt" --numeric-owner -xpf -
  buildah "${buildah_global[@]}" umount "$ctr" >/dev/null
  buildah "${buildah_global[@]}" config \
    --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin --cmd bash "$ctr"
  buildah "${buildah_global[@]}" commit --rm "$ctr" "$base_tag" >&2
  rm -rf "$work"
  echo "build.sh: base image $base_tag from $mirror" >&2
}

build_image() {
  build_context_image "$here" "$here/Containerfile" --build-arg "BASE=${base:-$base_tag}"
}

case "$step" in
  base) make_base ;;
  image) build_image ;;
  all) [ -n "$base" ] || make_base; build_image ;;
esac
