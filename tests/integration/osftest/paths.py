"""Where the repository, the build and the binaries are (set by CTest)."""
import os

_HERE = os.path.dirname(os.path.abspath(__file__))


def repo() -> str:
    return os.environ.get("OSF_REPO") or os.path.abspath(os.path.join(_HERE, "..", "..", ".."))


def build_dir() -> str:
    return os.environ.get("OSF_BUILD") or os.path.join(repo(), "build", "default")


def proxy_bin() -> str:
    return os.environ.get("EGRESS_PROXY_BIN") or os.path.join(build_dir(), "egress-proxy", "egress-proxy")


def spec_check_bin() -> str:
    return os.environ.get("SPEC_CHECK_BIN") or os.path.join(build_dir(), "contracts", "osf-spec-check")


def adapter_bin() -> str:
    return os.environ.get("SANDBOX_KUBERNETES_BIN") or os.path.join(build_dir(), "adapter", "sandbox-kubernetes")


# Debian's interpreter: it has pytest, websockets, yaml and cryptography.
python = "/usr/bin/python3"
