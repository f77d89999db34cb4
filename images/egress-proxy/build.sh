#!/usr/bin/env bash
# Builds the egress-proxy image FROM scratch out of a binary the CMake build made.
#
#   build.sh [stage|image|all] [options]
#
#   stage   assemble the build context: Containerfile, rootfs/ (the binary, every
#           shared library ldd names, copied at the path ldd prints, the dynamic
#           loader, the CA bundle, passwd/group/nsswitch.conf) and state/
#   image   build the image from a staged context (buildah or docker)
#   all     both (the default)
#
# Options:
#   --binary FILE        egress-proxy binary (default build/release/egress-proxy/egress-proxy)
#   --context DIR        build context (default build/images/egress-proxy-context)
#   --tag NAME           image name, repeatable (default localhost/egress-proxy:dev)
#   --engine E           buildah (default: vfs storage, chroot isolation, works without
#                        a daemon or a registry) or docker
#   --storage-root DIR   buildah only: keep images under DIR instead of the system store
#   --version V          org.opencontainers.image.version (default: git describe)
#   --revision R         org.opencontainers.image.revision (default: git HEAD)
#   --source URL         org.opencontainers.image.source (default: empty)
#
# No base image is pulled, so the build needs no registry; the libraries in the
# image are the ones the binary was linked against on the build machine.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"

step=all
binary="$repo/build/release/egress-proxy/egress-proxy"
context="$repo/build/images/egress-proxy-context"
# shellcheck source-path=SCRIPTDIR source=../lib/image-build.sh
. "$repo/images/lib/image-build.sh"

case "${1:-}" in
  stage | image | all) step="$1"; shift ;;
esac
while [ $# -gt 0 ]; do
  case "$1" in
    --binary) binary="${2:?--binary needs a file}"; shift 2 ;;
    --context) context="${2:?--context needs a directory}"; shift 2 ;;
    *) image_common_option "$@"; shift "$consumed" ;;
  esac
done
image_options_done localhost/egress-proxy:dev

stage() {
  [ -x "$binary" ] || die "no egress-proxy binary at $binary; build it first:
  cmake --preset release && cmake --build --preset release --target egress-proxy"
  rm -rf "$context"
  mkdir -p "$context/rootfs" "$context/state"
  local root="$context/rootfs"
  cp "$here/Containerfile" "$context/Containerfile"

  # The binary, without debug sections (the release archive keeps an unstripped copy).
  install -D -m 0755 "$binary" "$root/usr/local/bin/egress-proxy"
  if command -v strip >/dev/null 2>&1; then strip --strip-debug "$root/usr/local/bin/egress-proxy"; fi

  install_shared_objects "$binary" "$root"

  # Trust store for upstream TLS; OpenSSL finds it through SSL_CERT_FILE (set in
  # the Containerfile) and through its default file, linked like Debian does.
  install_ca_bundle "$root"
  local openssl_dir
  openssl_dir="$(openssl version -d 2>/dev/null | sed -n 's/^OPENSSLDIR: "\(.*\)"$/\1/p')"
  if [ -n "$openssl_dir" ]; then
    mkdir -p "$root$openssl_dir"
    ln -s /etc/ssl/certs/ca-certificates.crt "$root$openssl_dir/cert.pem"
  fi

  # The proxy's user (distroless's "nonroot" numbers) and name resolution that
  # consults /etc/hosts (Kubernetes hostAliases) before DNS.
  # /var/lib belongs to root; only the state directory itself (COPY --chown in
  # the Containerfile) belongs to the proxy's user.
  mkdir -p "$root/etc/egress-proxy" "$root/var/lib"
  install_nonroot_identity "$root" egress-proxy /var/lib/egress-proxy
  install_notices "$root"
  find "$root" -type d -exec chmod 0755 {} +

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
