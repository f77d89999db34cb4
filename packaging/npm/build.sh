#!/usr/bin/env bash
# Packs the npm packages from the static build's binaries:
#   @osf-sandbox/sandbox-kubernetes            the JavaScript shims (bin: sandbox-kubernetes,
#                                              sandbox-local, egress-proxy)
#   @osf-sandbox/sandbox-kubernetes-linux-x64  the three binaries, stripped
#
#   packaging/npm/build.sh [--bin-dir DIR] [--version V] [--out DIR]
#
#   --bin-dir DIR   where egress-proxy, sandbox-kubernetes and sandbox-local are (default: the
#                   static preset's build/static/{egress-proxy,adapter})
#   --version V     package version (default: the CMake project version)
#   --out DIR       where the two .tgz files go (default build/packages)
# Prints the paths of the two tarballs.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
bin_dir=""
version="$(sed -n 's/^project(osf-sandbox VERSION \([0-9.]*\).*/\1/p' "$repo/CMakeLists.txt")"
out="$repo/build/packages"
die() { echo "npm/build.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --bin-dir) bin_dir="${2:?}"; shift 2 ;;
    --version) version="${2:?}"; shift 2 ;;
    --out) out="${2:?}"; shift 2 ;;
    -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) die "unknown argument: $1 (see --help)" ;;
  esac
done
binary() { # program -> path
  if [ -n "$bin_dir" ]; then echo "$bin_dir/$1"
  elif [ "$1" = egress-proxy ]; then echo "$repo/build/static/egress-proxy/egress-proxy"
  else echo "$repo/build/static/adapter/$1"; fi
}
for p in egress-proxy sandbox-kubernetes sandbox-local; do
  [ -x "$(binary $p)" ] || die "no $p at $(binary $p); build it: cmake --preset static && cmake --build --preset static"
done

stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
mkdir -p "$out"
cp -r "$here/sandbox-kubernetes" "$here/sandbox-kubernetes-linux-x64" "$stage/"
rm -f "$stage/sandbox-kubernetes/lib/"*.test.js
# The licence and notices in both (package.json "files"): the platform package
# holds the binaries and what they link in (THIRD-PARTY-NOTICES).
for name in sandbox-kubernetes sandbox-kubernetes-linux-x64; do
  cp "$repo/LICENSE" "$repo/NOTICE" "$repo/THIRD-PARTY-NOTICES" "$stage/$name/"
done
mkdir -p "$stage/sandbox-kubernetes-linux-x64/bin"
for p in egress-proxy sandbox-kubernetes sandbox-local; do
  install -m 0755 "$(binary $p)" "$stage/sandbox-kubernetes-linux-x64/bin/$p"
  strip --strip-debug "$stage/sandbox-kubernetes-linux-x64/bin/$p"
done
# One version for both, and the main package pinned to exactly its binaries.
node -e '
  const fs = require("fs"), [dir, version] = process.argv.slice(1);
  for (const name of ["sandbox-kubernetes", "sandbox-kubernetes-linux-x64"]) {
    const file = `${dir}/${name}/package.json`, pkg = JSON.parse(fs.readFileSync(file));
    pkg.version = version;
    for (const dep of Object.keys(pkg.optionalDependencies || {})) pkg.optionalDependencies[dep] = version;
    fs.writeFileSync(file, JSON.stringify(pkg, null, 2) + "\n");
  }' "$stage" "$version"
for name in sandbox-kubernetes-linux-x64 sandbox-kubernetes; do
  (cd "$stage/$name" && npm pack --silent --pack-destination "$out") | sed "s|^|$out/|"
done
