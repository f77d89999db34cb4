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
[ ${#tags[@]} -gt 0 ] || tags=(localhost/egress-proxy:dev)
case "$engine" in buildah | docker) ;; *) die "--engine must be buildah or docker, not $engine" ;; esac

# Every file ldd resolves for the binary: libraries ("name => /path (addr)")
# and the loader ("/lib64/ld-linux-x86-64.so.2 (addr)"). A missing one fails.
shared_objects() {
  local out
  out="$(ldd "$1")" || die "ldd failed on $1 (is it a dynamic executable?)"
  if grep -q 'not found' <<<"$out"; then
    die "$1 needs libraries this machine lacks: $(grep 'not found' <<<"$out" | tr -s ' \t' ' ')"
  fi
  awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' <<<"$out" | sort -u
}

stage() {
  [ -x "$binary" ] || die "no egress-proxy binary at $binary; build it first:
  cmake --preset release && cmake --build --preset release --target egress-proxy"
  local ca_bundle=/etc/ssl/certs/ca-certificates.crt
  [ -s "$ca_bundle" ] || die "no CA bundle at $ca_bundle (install Debian's ca-certificates)"

  rm -rf "$context"
  mkdir -p "$context/rootfs" "$context/state"
  local root="$context/rootfs"
  cp "$here/Containerfile" "$context/Containerfile"

  # The binary, without debug sections (the release archive keeps an unstripped copy).
  install -D -m 0755 "$binary" "$root/usr/local/bin/egress-proxy"
  if command -v strip >/dev/null 2>&1; then strip --strip-debug "$root/usr/local/bin/egress-proxy"; fi

  # Libraries and loader at the paths ldd printed, so the loader finds each one
  # where the build machine's did, whether or not /lib is a link to /usr/lib.
  local so libs
  libs="$(shared_objects "$binary")"
  # glibc dlopens libgcc_s to unwind threads on cancellation and exit.
  local libc_dir
  libc_dir="$(dirname "$(grep -m1 '/libc\.so\.6$' <<<"$libs" || echo /nonexistent/libc.so.6)")"
  if ! grep -q '/libgcc_s\.so\.1$' <<<"$libs" && [ -f "$libc_dir/libgcc_s.so.1" ]; then
    libs+=$'\n'"$libc_dir/libgcc_s.so.1"
  fi
  while IFS= read -r so; do
    [ -n "$so" ] || continue
    install -D -m 0755 "$(readlink -f "$so")" "$root$so"
  done <<<"$libs"

  # Trust store for upstream TLS; OpenSSL finds it through SSL_CERT_FILE (set in
  # the Containerfile) and through its default file, linked like Debian does.
  install -D -m 0644 "$ca_bundle" "$root$ca_bundle"
  local openssl_dir
  openssl_dir="$(openssl version -d 2>/dev/null | sed -n 's/^OPENSSLDIR: "\(.*\)"$/\1/p')"
  if [ -n "$openssl_dir" ]; then
    mkdir -p "$root$openssl_dir"
    ln -s "$ca_bundle" "$root$openssl_dir/cert.pem"
  fi

  # The proxy's user (distroless's "nonroot" numbers) and name resolution that
  # consults /etc/hosts (Kubernetes hostAliases) before DNS.
  # /var/lib belongs to root; only the state directory itself (COPY --chown in
  # the Containerfile) belongs to the proxy's user.
  mkdir -p "$root/etc/egress-proxy" "$root/var/lib"
  printf '%s\n' 'root:x:0:0:root:/root:/sbin/nologin' \
    'nonroot:x:65532:65532:egress-proxy:/var/lib/egress-proxy:/sbin/nologin' >"$root/etc/passwd"
  printf '%s\n' 'root:x:0:' 'nonroot:x:65532:' >"$root/etc/group"
  printf '%s\n' 'hosts: files dns' >"$root/etc/nsswitch.conf"
  chmod 0644 "$root/etc/passwd" "$root/etc/group" "$root/etc/nsswitch.conf"
  find "$root" -type d -exec chmod 0755 {} +

  echo "build.sh: staged $(find "$root" -type f | wc -l) files ($(du -sh "$root" | cut -f1)) in $context" >&2
}

image() {
  if [ ! -f "$context/Containerfile" ] || [ ! -d "$context/rootfs" ]; then
    die "no staged context in $context (run: build.sh stage)"
  fi
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
