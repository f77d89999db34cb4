"""The CLIs' machine interface (contracts/cli-output.schema.json): the examples and
what sandbox-local really prints for create -o json, --progress json, list -o json
and snapshot -o json hold to the schema (checked by ajv); labels go into the state and
select with -l; a label or selector that is not one exits 2 and starts nothing."""
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from osftest import build_dir, proxy_bin, repo
from osftest.waiting import wait_until

REPO = Path(repo())
SCHEMA = REPO / "contracts" / "cli-output.schema.json"
EXAMPLES = REPO / "contracts" / "examples" / "cli-output"
AJV_DIR = REPO / "tests" / "tools" / "ajv"
AJV = AJV_DIR / "node_modules" / ".bin" / "ajv"


def local_bin():
    return os.environ.get("SANDBOX_LOCAL_BIN") or os.path.join(build_dir(), "adapter", "sandbox-local")


def ajv_valid(documents, tmp_path):
    """Each document (a parsed JSON value) checked by ajv: {index: True when valid}."""
    files = []
    for i, document in enumerate(documents):
        path = tmp_path / f"doc-{i}.json"
        path.write_text(json.dumps(document))
        files.append(path)
    verdicts = {}
    for i, path in enumerate(files):
        with tempfile.TemporaryFile("w+") as out:  # ajv-cli exits before a pipe drains
            run = subprocess.run([str(AJV), "validate", "--spec=draft2020", "-c", "ajv-formats", "-s", str(SCHEMA),
                                  "-d", str(path)], cwd=AJV_DIR, stdout=out, stderr=out, timeout=120)
            out.seek(0)
            text = out.read()
        assert run.returncode in (0, 1), text
        verdicts[i] = run.returncode == 0
    return verdicts


def test_examples_hold_to_the_schema(tmp_path):
    assert AJV.exists(), f"ajv is not installed: run `npm ci` in {AJV_DIR}"
    documents = [json.loads((EXAMPLES / name).read_text()) for name in ("create.json", "snapshot.json", "list.json")]
    for lines in ("progress.jsonl", "gc.jsonl"):
        documents += [json.loads(line) for line in (EXAMPLES / lines).read_text().splitlines()]
    assert ajv_valid(documents, tmp_path) == {i: True for i in range(len(documents))}
    # And the schema can fail: a create result without its expiry, a row with a bad id.
    broken = [{k: v for k, v in documents[0].items() if k != "expires"}, [{**documents[2][0], "id": "XYZ"}]]
    assert ajv_valid(broken, tmp_path) == {0: False, 1: False}


@pytest.fixture
def local():
    state = tempfile.mkdtemp(prefix="oscl-", dir="/tmp")
    env = {k: v for k, v in os.environ.items() if not k.startswith("OSF_") and not k.lower().endswith("_proxy")}
    env.update(OSF_SANDBOX_LOCAL_STATE_DIR=state, OSF_EGRESS_PROXY_BIN=proxy_bin(), OSF_SANDBOX_START_TIMEOUT="60")

    def run(*args, check=None):
        result = subprocess.run([local_bin(), *args], capture_output=True, text=True, env=env, timeout=180)
        if check is not None:
            assert result.returncode == check, f"exit {result.returncode}: {result.stderr}"
        return result

    run.state = state
    try:
        yield run
    finally:
        sandboxes = os.path.join(state, "sandboxes")
        for sandbox_id in os.listdir(sandboxes) if os.path.isdir(sandboxes) else []:
            run("destroy", sandbox_id)
        shutil.rmtree(state, ignore_errors=True)


def write_spec(local, spec, name="spec.json"):
    path = os.path.join(local.state, name)
    with open(path, "w") as f:
        json.dump(spec, f)
    return path


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")
def test_sandbox_local_prints_what_the_schema_says(local, tmp_path):
    spec = write_spec(local, {"template": "host", "labels": {"run": "r1", "team": "spec"}, "lifetime": "1h"})
    created = local("create", "-o", "json", "--progress", "json", "--label", "team=cli", "--label", "tier=",
                    spec, check=0)
    result = json.loads(created.stdout)
    assert set(result) == {"id", "template", "created", "expires", "labels", "names"}
    assert result["labels"] == {"run": "r1", "team": "cli", "tier": ""}
    assert result["template"] == "host"
    progress = [json.loads(line) for line in created.stderr.splitlines()]
    assert all(p["type"] == "progress" and isinstance(p["message"], str) for p in progress)
    other = json.loads(local("create", "-o", "json", write_spec(local, {"template": "host"}, "plain.json"),
                             check=0).stdout)
    rows = json.loads(local("list", "-o", "json", check=0).stdout)
    assert {row["id"]: row["labels"] for row in rows} == {result["id"]: result["labels"], other["id"]: {}}
    # Selectors: equality, inequality (true where the key is absent), existence, absence.
    def selected(selector):
        return local("list", "-l", selector, check=0).stdout.split()
    assert selected("run=r1") == [result["id"]]
    assert selected("run==r1,team=cli") == [result["id"]]
    assert selected("team!=cli") == [other["id"]]
    assert selected("tier") == [result["id"]]
    assert selected("!tier") == [other["id"]]
    assert selected("run=r2") == []
    snap = json.loads(local("snapshot", "-o", "json", result["id"], check=0).stdout)
    assert snap["id"] == result["id"] and snap["template"]
    listed = json.loads(local("list", "-o", "json", "-l", "run=r1", check=0).stdout)
    assert ajv_valid([result, snap, listed, *progress], tmp_path) == {i: True for i in range(3 + len(progress))}
    # destroy -l removes what matches and nothing else.
    local("destroy", "-l", "team=cli", check=0)
    assert local("list", check=0).stdout.split() == [other["id"]]
    # gc -o json -l: a suspended sandbox past its expiry, of the selector only.
    doomed = json.loads(local("create", "-o", "json", "--label", "gc=yes",
                              write_spec(local, {"template": "host", "lifetime": "10s"}, "doomed.json"),
                              check=0).stdout)
    local("suspend", doomed["id"], check=0)
    wait_until(lambda: local("gc", "--dry-run", "-l", "gc=yes", check=0).stdout, timeout=60,
               what="the suspended sandbox to expire")
    assert local("gc", "-o", "json", "-l", "gc!=yes", check=0).stdout == ""
    removed = [json.loads(line) for line in local("gc", "-o", "json", "-l", "gc=yes", check=0).stdout.splitlines()]
    assert [r["id"] for r in removed] == [doomed["id"]] and "expired" in removed[0]["reason"], removed
    assert ajv_valid(removed, tmp_path) == {0: True}
    assert local("list", check=0).stdout.split() == [other["id"]]


@pytest.mark.parametrize("args, message", [
    (["--label", "osf.sandbox.id=x"], "osf.sandbox.id is a label the sandbox adapters set themselves"),
    (["--label", "app.kubernetes.io/managed-by=me"], "set themselves"),
    (["--label", "novalue"], "--label takes key=value"),
    (["--label", "run=has space"], "is not a label value"),
    (["--label", "-bad=x"], "is not a label key"),
    (["-o", "yaml"], "-o takes json or id"),
    (["--progress", "xml"], "--progress takes text or json"),
])
def test_bad_labels_and_formats_exit_2_and_start_nothing(local, args, message):
    result = local("create", *args, write_spec(local, {"template": "host"}), check=2)
    assert message in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert local("list", check=0).stdout == ""


@pytest.mark.parametrize("command", [["list"], ["gc"], ["destroy"]])
@pytest.mark.parametrize("selector, message", [
    ("a in (b)", "only equality-based selectors"),
    ("run=,", "has an empty part"),
    ("bad key=x", "only equality-based selectors"),
])
def test_bad_selectors_exit_2(local, command, selector, message):
    result = local(*command, "-l", selector, check=2)
    assert message in result.stderr, result.stderr


def test_spec_labels_are_checked_like_the_schema(local):
    result = local("create", write_spec(local, {"template": "host", "labels": {"osf.role": "x"}}), check=2)
    assert "$.labels['osf.role']: osf.role is a label the sandbox adapters set themselves" in result.stderr, \
        result.stderr
