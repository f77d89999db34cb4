# What the image build scripts (images/*/build.sh) share: the options every one
# of them takes, the buildah set-up (vfs storage, chroot isolation: no daemon,
# no registry), the copy of a binary's shared objects at the paths ldd prints,
# the non-root identity files, and `bud` of a Containerfile.
#
# Sourced, not run. A script sets `here`, `repo` and its default tag, then
#   while [ $# -gt 0 ]; do
#     case "$1" in
#       --its-own-option) ...; shift 2 ;;
#       *) image_common_option "$@"; shift "$consumed" ;;
#     esac
#   done
#   image_options_done localhost/name:dev

# shellcheck shell=bash

: "${repo:?set repo (the repository root) before sourcing image-build.sh}"
consumed=0 # set by image_common_option
tags=()
engine=buildah
storage_root=""
version="$(git -C "$repo" describe --tags --always --dirty 2>/dev/null || echo dev)"
revision="$(git -C "$repo" rev-parse HEAD 2>/dev/null || echo unknown)"
source_url=""
buildah_global=()

die() {
  echo "build.sh: $*" >&2
  exit 2
}

# The options every build script takes; sets `consumed` to how many words it read.
# shellcheck disable=SC2034 # consumed and the options are read by the sourcing script
image_common_option() {
  case "$1" in
    --tag) tags+=("${2:?--tag needs a name}"); consumed=2 ;;
    --engine) engine="${2:?--engine needs buildah or docker}"; consumed=2 ;;
    --storage-root) storage_root="${2:?--storage-root needs a directory}"; consumed=2 ;;
    --version) version="${2:?--version needs a value}"; consumed=2 ;;
    --revision) revision="${2:?--revision needs a value}"; consumed=2 ;;
    --source) source_url="${2:?--source needs a URL}"; consumed=2 ;;
    -h | --help)
      # The script's header comment is its help.
      awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
      exit 0
      ;;
    *) die "unknown argument: $1 (see --help)" ;;
  esac
}

# Checks the common options once they are all read; $1 is the default tag.
image_options_done() {
  [ ${#tags[@]} -gt 0 ] || tags=("$1")
  case "$engine" in buildah | docker) ;; *) die "--engine must be buildah or docker, not $engine" ;; esac
  buildah_global=(--storage-driver vfs)
  [ -z "$storage_root" ] || buildah_global+=(--root "$storage_root/storage" --runroot "$storage_root/run")
}

# Every file ldd resolves for a binary: libraries ("name => /path (addr)") and
# the loader ("/lib64/ld-linux-x86-64.so.2 (addr)"). A missing one fails. glibc
# dlopens libgcc_s to unwind threads on cancellation and exit, so it is added
# when ldd does not name it.
shared_objects() {
  local out libs libc_dir
  out="$(ldd "$1")" || die "ldd failed on $1 (is it a dynamic executable?)"
  if grep -q 'not found' <<<"$out"; then
    die "$1 needs libraries this machine lacks: $(grep 'not found' <<<"$out" | tr -s ' \t' ' ')"
  fi
  libs="$(awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' <<<"$out" | sort -u)"
  libc_dir="$(dirname "$(grep -m1 '/libc\.so\.6$' <<<"$libs" || echo /nonexistent/libc.so.6)")"
  if ! grep -q '/libgcc_s\.so\.1$' <<<"$libs" && [ -f "$libc_dir/libgcc_s.so.1" ]; then
    libs+=$'\n'"$libc_dir/libgcc_s.so.1"
  fi
  printf '%s\n' "$libs"
}

# Copies a binary's shared objects into ROOT at the paths ldd printed, so the
# loader finds each one where the build machine's did, whether or not /lib is a
# link to /usr/lib.
install_shared_objects() {
  local binary="$1" root="$2" so libs
  libs="$(shared_objects "$binary")" # on its own line, so a failure stops the build
  while IFS= read -r so; do
    [ -n "$so" ] || continue
    install -D -m 0755 "$(readlink -f "$so")" "$root$so"
  done <<<"$libs"
}

# The system CA bundle at Debian's path (SSL_CERT_FILE in the Containerfiles).
install_ca_bundle() {
  local root="$1" ca_bundle=/etc/ssl/certs/ca-certificates.crt
  [ -s "$ca_bundle" ] || die "no CA bundle at $ca_bundle (install Debian's ca-certificates)"
  install -D -m 0644 "$ca_bundle" "$root$ca_bundle"
}

# The licence and notices an image that redistributes files must carry: the
# project's LICENSE, NOTICE and THIRD-PARTY-NOTICES at /usr/share/doc/osf-sandbox,
# and the Debian copyright file of each package a staged shared object came
# from (and ca-certificates, whose bundle is generated, not packaged) at
# Debian's path. Run after the shared objects and the CA bundle are staged.
install_notices() {
  local root="$1" so alt package packages="ca-certificates"
  install -D -m 0644 -t "$root/usr/share/doc/osf-sandbox" \
    "$repo/LICENSE" "$repo/NOTICE" "$repo/THIRD-PARTY-NOTICES"
  while IFS= read -r so; do
    so="/${so#"$root"/}"
    # dpkg knows each file by the path its package ships (/lib or /usr/lib).
    case "$so" in /usr/*) alt="${so#/usr}" ;; *) alt="/usr$so" ;; esac
    package="$({ dpkg-query -S "$so" 2>/dev/null || dpkg-query -S "$alt" 2>/dev/null; } |
      sed -n '1s/^\([^:,]*\).*: .*/\1/p')"
    [ -n "$package" ] || die "no Debian package owns $so: its licence would be missing from the image"
    packages+=$'\n'"$package"
  done < <(find "$root" -path "$root/usr/share" -prune -o -type f -name '*.so*' -print)
  while IFS= read -r package; do
    [ -f "/usr/share/doc/$package/copyright" ] || die "no /usr/share/doc/$package/copyright"
    install -D -m 0644 "/usr/share/doc/$package/copyright" "$root/usr/share/doc/$package/copyright"
  done < <(sort -u <<<"$packages")
}

# root and distroless's "nonroot" user (65532) with HOME, and name resolution
# that consults /etc/hosts (Kubernetes hostAliases) before DNS.
install_nonroot_identity() {
  local root="$1" gecos="$2" home="$3"
  mkdir -p "$root/etc"
  printf '%s\n' 'root:x:0:0:root:/root:/sbin/nologin' \
    "nonroot:x:65532:65532:$gecos:$home:/sbin/nologin" >"$root/etc/passwd"
  printf '%s\n' 'root:x:0:' 'nonroot:x:65532:' >"$root/etc/group"
  printf '%s\n' 'hosts: files dns' >"$root/etc/nsswitch.conf"
  chmod 0644 "$root/etc/passwd" "$root/etc/group" "$root/etc/nsswitch.conf"
}

staged_summary() {
  local context="$1" root="$1/rootfs"
  echo "build.sh: staged $(find "$root" -type f | wc -l) files ($(du -sh "$root" | cut -f1)) in $context" >&2
}

# Builds CONTEXT's Containerfile with the OCI label arguments and the tags;
# further arguments are passed to the builder first (for example --build-arg).
build_context_image() {
  local context="$1" containerfile="$2"
  shift 2
  local created
  created="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  local args=("$@" --build-arg "VERSION=$version" --build-arg "REVISION=$revision"
    --build-arg "CREATED=$created" --build-arg "SOURCE=$source_url" -f "$containerfile")
  local t
  for t in "${tags[@]}"; do args+=(-t "$t"); done
  if [ "$engine" = docker ]; then
    docker build "${args[@]}" "$context"
  else
    buildah "${buildah_global[@]}" bud --isolation chroot --layers=false "${args[@]}" "$context"
  fi
}
