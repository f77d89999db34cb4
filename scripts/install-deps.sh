#!/usr/bin/env bash
# Installs every Debian package the build, the tests and the benchmark need.
# Idempotent: apt-get skips what is already there. Run as root.
set -euo pipefail

packages=(
  # build
  build-essential cmake ninja-build pkg-config git
  libboost1.81-dev libboost-url1.81-dev libssl-dev libjemalloc-dev libnghttp2-dev
  nlohmann-json3-dev libcli11-dev libspdlog-dev libfmt-dev catch2
  # MCP tool-argument patterns (`matches`): RE2, linear-time regular expressions
  libre2-dev
  # sandbox-local: the system call filter of a sandbox's commands
  libseccomp-dev
  clang clang-format libclang-rt-14-dev
  # tests: real clients and servers
  curl openssl ca-certificates python3 python3-pytest python3-websockets
  python3-yaml python3-cryptography python3-h2 python3-grpcio nodejs jq iproute2 util-linux
  # tests: AWS clients signing with SigV4 (the proxy re-signs their requests)
  awscli python3-boto3
  # tests: an HTTP/2 origin (started by the tests themselves, never as a service)
  nginx-light
  # tests: raw TCP tunnels to an sshd (git over ssh) and a PostgreSQL cluster, each
  # started by the test on a loopback port, never as a service
  openssh-client openssh-server postgresql postgresql-client
  # tests: psql through a sandbox's SOCKS5 port (test_local_tcp_egress.py): a client
  # without proxy support, wrapped as a user would
  proxychains4
  bubblewrap buildah
  # sandbox-local: a bounded /workspace (storage) is an ext4 image mounted by loop
  e2fsprogs mount
  # the sandbox-base image test makes its Debian base without a registry; the
  # packaging test (scripts/package-test.sh) its Debian 11 and 12 roots
  debootstrap
  # packaging: man pages, dpkg-shlibdeps
  help2man dpkg-dev
  # benchmark
  hey procps
)
# The reviewer's HTML report rendered by a browser (tests/integration/test_egress_log_report.py):
# Debian's chromium, and python3-pil to read its screenshot. On a fresh Debian 12 that is 160
# more packages, 186 MB to download and 650 MB installed (docs/ci.md), so only when asked:
# OSF_BROWSER_TESTS=1 (CI's host phase sets it). Without them those tests skip, saying why.
if [ -n "${OSF_BROWSER_TESTS:-}" ]; then
  packages+=(chromium python3-pil)
fi

if [ "$(id -u)" != 0 ]; then
  echo "install-deps: run as root (apt-get needs it)" >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep 'install ok installed' >/dev/null || missing+=("$p")
done
# npm: nodesource's nodejs ships it (and conflicts with Debian's npm).
command -v npm >/dev/null 2>&1 || missing+=(npm)
# No kubectl here: the tests run the one the pinned npm package tests/tools/helm
# ships (Debian's kubernetes-client is 1.20, too old); adapter/README.md says how
# a user gets kubectl >= 1.30.
# nginx's, openssh-server's and postgresql's packages would start system services (and
# enable them at boot): the tests start their own. Debian's policy-rc.d hook says no while
# apt runs, and the units are disabled afterwards, when this script installed them.
installs_nginx=
if printf '%s\n' "${missing[@]}" | grep -qxE 'nginx-light|openssh-server|postgresql' &&
  [ ! -e /usr/sbin/policy-rc.d ]; then
  installs_nginx=1
  printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
  chmod 755 /usr/sbin/policy-rc.d
  trap 'rm -f /usr/sbin/policy-rc.d' EXIT
fi
if [ ${#missing[@]} -gt 0 ]; then
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
if [ -n "$installs_nginx" ]; then
  rm -f /usr/sbin/policy-rc.d
  if command -v systemctl >/dev/null 2>&1; then
    for unit in nginx ssh postgresql; do systemctl disable "$unit" >/dev/null 2>&1 || true; done
  fi
fi
echo "install-deps: all packages present"
