"""sandbox-kubernetes refuses a kubectl older than 1.30 with one clear line (exit 1)
before any cluster call, asks the version only when a command talks to kubectl,
and runs with the pinned kubectl 1.32 (every test in test_adapter.py does too).

The old kubectl here is a script that answers `version` exactly as Debian 12's
kubernetes-client (kubectl 1.20.2) does and records every call it gets: the point
is what the adapter does with that answer, and that nothing else is called."""
import json
import os
import subprocess

import pytest

from osftest import adapter_bin, kube_tool

DEBIAN_KUBECTL_VERSION = {"clientVersion": {
    "major": "1", "minor": "20", "gitVersion": "v1.20.2", "gitCommit": "faecb196815e248d3ecfb03c680a4507229c2a56",
    "gitTreeState": "archive", "buildDate": "2025-06-08T22:40:27Z", "goVersion": "go1.19.8", "compiler": "gc",
    "platform": "linux/amd64"}}
SPEC = {"template": "node:24-alpine", "egress": ["registry.npmjs.org"]}


@pytest.fixture
def adapter():
    binary = adapter_bin()
    assert os.access(binary, os.X_OK), f"no sandbox-kubernetes at {binary}; build the sandbox-kubernetes target"

    def run(*args, path):
        env = {"PATH": path, "HOME": "/nonexistent", "KUBECONFIG": "/nonexistent/kubeconfig"}
        return subprocess.run([binary, *args], capture_output=True, text=True, env=env, timeout=60)
    return run


@pytest.fixture
def old_kubectl(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    calls = tmp_path / "calls"
    script = bin_dir / "kubectl"
    script.write_text("#!/bin/sh\n"
                      f"echo \"$*\" >> {calls}\n"
                      'if [ "$1" = version ]; then cat <<\'JSON\'\n'
                      + json.dumps(DEBIAN_KUBECTL_VERSION, indent=2) + "\nJSON\nexit 0; fi\n"
                      "echo 'error: unknown command' >&2; exit 1\n")
    script.chmod(0o755)
    return str(bin_dir), calls


def cluster_calls(calls):
    """The kubectl calls made, but the kubeconfig read for the current context's namespace."""
    lines = calls.read_text().splitlines() if calls.exists() else []
    return [line for line in lines if not line.startswith("config view --minify ")]


@pytest.mark.parametrize("args", [["list"], ["destroy", "0123456789ab"], ["egress-log", "0123456789ab"],
                                  ["exec", "0123456789ab", "--", "true"]])
def test_an_old_kubectl_is_refused_before_any_cluster_call(adapter, old_kubectl, args):
    bin_dir, calls = old_kubectl
    result = adapter(*args, path=f"{bin_dir}:/usr/bin:/bin")
    assert result.returncode == 1, result
    assert result.stderr == ("sandbox-kubernetes: kubectl v1.20.2 is too old: sandbox-kubernetes needs "
                             "kubectl 1.30 or newer on PATH (adapter/README.md says where to get one)\n")
    assert cluster_calls(calls) == ["version --client -o json"]


def test_an_old_kubectl_is_refused_by_create_before_it_makes_anything(adapter, old_kubectl, tmp_path):
    # create's own progress and clean-up lines come first (its clean-up is refused the
    # same way, without calling kubectl again); the last line is the refusal.
    bin_dir, calls = old_kubectl
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps(SPEC))
    result = adapter("create", str(spec), path=f"{bin_dir}:/usr/bin:/bin")
    assert result.returncode == 1, result
    assert result.stdout == ""
    assert result.stderr.splitlines()[-1].startswith("sandbox-kubernetes: kubectl v1.20.2 is too old: ")
    assert cluster_calls(calls) == ["version --client -o json"]


def test_doctor_names_an_old_kubectl_and_stops(adapter, old_kubectl):
    bin_dir, calls = old_kubectl
    result = adapter("doctor", path=f"{bin_dir}:/usr/bin:/bin")
    assert result.returncode == 1, result
    assert result.stdout.startswith("FAIL  kubectl: kubectl v1.20.2 is too old: ")
    assert result.stdout.count("\n") == 1  # nothing else is asked of a kubectl that old
    assert cluster_calls(calls) == ["version --client -o json"]


def test_commands_that_need_no_kubectl_do_not_ask_it(adapter, old_kubectl, tmp_path):
    bin_dir, calls = old_kubectl
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps(SPEC))
    assert adapter("--help", path=bin_dir).returncode == 0
    assert adapter("list", "--no-such-option", path=bin_dir).returncode == 2
    assert not calls.exists()
    dry = adapter("create", "--dry-run", str(spec), path=f"{bin_dir}:/usr/bin:/bin")
    assert dry.returncode == 0, dry
    assert json.loads(dry.stdout)["kind"] == "List"
    # Only the current context's namespace is read (kubectl config view: the kubeconfig, no cluster).
    assert cluster_calls(calls) == []


def test_no_kubectl_on_path_is_one_clear_line(adapter, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    result = adapter("list", path=str(empty))
    assert result.returncode == 1
    assert result.stderr == "sandbox-kubernetes: kubectl version failed: cannot run kubectl: No such file or directory\n"


def test_the_pinned_kubectl_passes_the_check(adapter, tmp_path):
    # kubectl 1.32 from tests/tools/helm: the check passes and the real call fails
    # only because there is no cluster behind the kubeconfig.
    kubectl_dir = os.path.dirname(kube_tool("kubectl"))
    result = adapter("list", path=f"{kubectl_dir}:/usr/bin:/bin")
    assert result.returncode == 1
    assert result.stderr.startswith("sandbox-kubernetes: kubectl get failed: "), result.stderr
    assert "too old" not in result.stderr
