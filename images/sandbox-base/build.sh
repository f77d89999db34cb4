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
tags=()
engine=buildah
storage_root=""
version="$(git -C "$repo" describe --tags --always --dirty 2>/dev/null || echo dev)"
revision="$(git -C "$repo" rev-parse HEAD 2>/dev/null || echo unknown)"

die() { echo "build.sh: $*" >&2; exit 2; }

case "${1:-}" in
  base | image | all) step="$1"; shift ;;
esac
while [ $# -gt 0 ]; do
  case "$1" in
    --base) base="${2:?--base needs an image}"; shift 2 ;;
    --base-tag) base_tag="${2:?--base-tag needs a name}"; shift 2 ;;
    --mirror) mirror="${2:?--mirror needs a URL}"; shift 2 ;;
    --work) work="${2:?--work needs a directory}"; shift 2 ;;
    --tag) tags+=("${2:?--tag needs a name}"); shift 2 ;;
    --engine) engine="${2:?--engine needs buildah or docker}"; shift 2 ;;
    --storage-root) storage_root="${2:?--storage-root needs a directory}"; shift 2 ;;
    --version) version="${2:?}"; shift 2 ;;
    --revision) revision="${2:?}"; shift 2 ;;
    -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) die "unknown argument: $1 (see --help)" ;;
  esac
done
[ ${#tags[@]} -gt 0 ] || tags=(localhost/sandbox-base:dev)
case "$engine" in buildah | docker) ;; *) die "--engine must be buildah or docker, not $engine" ;; esac
if [ "$engine" = docker ] && [ -z "$base" ] && [ "$step" != image ]; then
  die "--engine docker needs --base (an image from a registry): base makes buildah images only"
fi

buildah_global=(--storage-driver vfs)
[ -z "$storage_root" ] || buildah_global+=(--root "$storage_root/storage" --runroot "$storage_root/run")

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
  local from="${base:-$base_tag}"
  local created
  created="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  local args=(--build-arg "BASE=$from" --build-arg "VERSION=$version" --build-arg "REVISION=$revision"
              --build-arg "CREATED=$created" -f "$here/Containerfile")
  local t
  for t in "${tags[@]}"; do args+=(-t "$t"); done
  if [ "$engine" = docker ]; then
    docker build "${args[@]}" "$here"
  else
    buildah "${buildah_global[@]}" bud --isolation chroot --layers=false "${args[@]}" "$here"
  fi
}

case "$step" in
  base) make_base ;;
  image) build_image ;;
  all) [ -n "$base" ] || make_base; build_image ;;
esac
