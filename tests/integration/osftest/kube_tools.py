"""kubectl and helm for the tests: the binaries the pinned npm package in
tests/tools/helm ships (kubectl 1.32, helm 3), copied to tests/tools/helm/bin by
its postinstall step. The same binaries on every machine, whatever kubectl the
machine itself has: the conftest puts their directory first on PATH, so the
adapter and the test API server's fixture run them too."""
import os

from .paths import repo


def kube_tools_dir() -> str:
    return os.path.join(repo(), "tests", "tools", "helm", "bin")


def kube_tool(name: str) -> str:
    """The pinned kubectl or helm; fails with what to run when it is missing."""
    path = os.path.join(kube_tools_dir(), name)
    if not os.access(path, os.X_OK):
        raise AssertionError(f"no {name} at {path}: run `npm ci` in tests/tools/helm "
                             "(scripts/test.sh does)")
    return path


def put_kube_tools_first_on_path() -> None:
    directory = kube_tools_dir()
    parts = [p for p in os.environ.get("PATH", "/usr/bin:/bin").split(os.pathsep) if p != directory]
    os.environ["PATH"] = os.pathsep.join([directory, *parts])
