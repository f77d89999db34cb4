"""The TypeScript API of the npm package (packaging/npm/sandbox-kubernetes): node's
own test runner drives every method against sandbox-local for real
(tests/typescript-api/local.test.mjs) and against the test Kubernetes API server with
the real kubectl (kube.test.mjs); tsc --strict compiles a program that uses the
types and refuses one that misuses them; the package installed from its tarball
in a fresh directory is used from a CommonJS and an ES module script."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

import pytest

from osftest import build_dir, kube_tool, proxy_bin, repo

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(repo(), "tests", "kube-api"))
from kube_api_fixture import KubeApiServer  # noqa: E402

PACKAGE = os.path.join(repo(), "packaging", "npm", "sandbox-kubernetes")
TESTS = os.path.join(repo(), "tests", "typescript-api")
TOOLS = os.path.join(repo(), "tests", "tools", "typescript", "node_modules")
TSC = os.path.join(TOOLS, ".bin", "tsc")


def local_bin():
    return os.environ.get("SANDBOX_LOCAL_BIN") or os.path.join(build_dir(), "adapter", "sandbox-local")


def kubernetes_bin():
    return os.environ.get("SANDBOX_KUBERNETES_BIN") or os.path.join(build_dir(), "adapter", "sandbox-kubernetes")


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith("OSF_") and not k.lower().endswith("_proxy")}
    env.update(extra)
    return env


@pytest.fixture
def project(tmp_path):
    """A directory where `@osf-sandbox/sandbox-kubernetes` is the package's source
    tree and the test files sit beside it, as in a user's project."""
    modules = tmp_path / "node_modules"
    (modules / "@osf-sandbox").mkdir(parents=True)
    (modules / "@osf-sandbox" / "sandbox-kubernetes").symlink_to(PACKAGE)
    (modules / "@types").mkdir()
    (modules / "@types" / "node").symlink_to(os.path.join(TOOLS, "@types", "node"))
    for name in os.listdir(TESTS):
        shutil.copy(os.path.join(TESTS, name), tmp_path / name)
    return tmp_path


def node_test(project, test_file, env, timeout=600):
    result = subprocess.run(["node", "--test", "--test-reporter=spec", test_file], cwd=project, env=env,
                            capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, f"node --test {test_file}:\n{result.stdout[-8000:]}\n{result.stderr[-4000:]}"
    return result.stdout


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")
def test_every_method_against_sandbox_local(project):
    state = tempfile.mkdtemp(prefix="osts-", dir="/tmp")  # short: Unix socket paths
    env = clean_env(OSF_SANDBOX_LOCAL_BIN=local_bin(), OSF_SANDBOX_LOCAL_STATE_DIR=state,
                    OSF_EGRESS_PROXY_BIN=proxy_bin(), OSF_SANDBOX_START_TIMEOUT="60",
                    OSF_SANDBOX_HOST_ALIASES="refused.test=127.0.0.1")
    try:
        out = node_test(project, "local.test.mjs", env)
        assert "ℹ fail 0" in out and "ℹ pass 13" in out, out[-3000:]
    finally:
        sandboxes = os.path.join(state, "sandboxes")
        for sandbox_id in os.listdir(sandboxes) if os.path.isdir(sandboxes) else []:
            subprocess.run([local_bin(), "destroy", sandbox_id], env=env, capture_output=True, timeout=60)
        shutil.rmtree(state, ignore_errors=True)


def test_against_the_test_kubernetes_api_with_kubectl(project, tmp_path_factory):
    kubectl_dir = os.path.dirname(kube_tool("kubectl"))
    from test_adapter import EXEC_HANDLERS  # the egress proxy image's canned answers
    with KubeApiServer(tmp_path_factory.mktemp("kube-api")) as kube:
        kube.set_exec(handlers=EXEC_HANDLERS)
        env = kube.env(clean_env())
        env["PATH"] = kubectl_dir + os.pathsep + env.get("PATH", "")
        env["OSF_SANDBOX_KUBERNETES_BIN"] = kubernetes_bin()
        out = node_test(project, "kube.test.mjs", env)
        assert "ℹ fail 0" in out and "ℹ pass 7" in out, out[-3000:]


def test_types_compile_under_strict_and_misuse_does_not(project):
    """Can take over a minute on a loaded machine (112 s in a stress run at load 10 to 50): it
    runs the TypeScript compiler twice (the project with its right use and its misuse, then the
    ES module view), each a Node.js process that type-checks the whole package."""
    ok = subprocess.run([TSC, "--strict", "--noEmit", "-p", "tsconfig.json"], cwd=project,
                        capture_output=True, text=True, timeout=300)
    errors = [line for line in ok.stdout.splitlines() if "error TS" in line]
    # The program that uses every method compiles; the misuse fails exactly twice.
    assert not [e for e in errors if not e.startswith("types-wrong.ts")], ok.stdout
    assert len(errors) == 2, ok.stdout
    assert "'egres' does not exist in type 'SandboxSpec'" in errors[0]
    assert "'readUInt8' does not exist on type 'string'" in errors[1]
    # The ES module view has the same types.
    (project / "esm-check.mts").write_text(
        "import {Sandbox, InvalidSpecError} from '@osf-sandbox/sandbox-kubernetes';\n"
        "export const make = (): Promise<Sandbox> => Sandbox.create({template: 'host'}, {backend: 'local'});\n"
        "export const isSpecError = (e: unknown): boolean => e instanceof InvalidSpecError;\n")
    esm = subprocess.run([TSC, "--strict", "--noEmit", "--module", "node16", "--moduleResolution", "node16",
                          "--types", "node", "esm-check.mts"], cwd=project, capture_output=True, text=True,
                         timeout=300)
    assert esm.returncode == 0, esm.stdout
    # The example in examples/ compiles as written.
    shutil.copy(os.path.join(repo(), "examples", "typescript", "run-tests.ts"), project / "run-tests.ts")
    example = subprocess.run([TSC, "--strict", "--noEmit", "--module", "node16", "--moduleResolution", "node16",
                              "--target", "es2022", "--types", "node", "run-tests.ts"], cwd=project,
                             capture_output=True, text=True, timeout=300)
    assert example.returncode == 0, example.stdout


def test_error_classes_from_exit_codes():
    result = subprocess.run(["node", "--test", os.path.join(PACKAGE, "lib", "errors.test.js")],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_module_and_commonjs_declarations_are_the_same():
    # index.d.mts (import) is a copy of index.d.ts (require): one set of types, two module kinds.
    with open(os.path.join(PACKAGE, "index.d.ts")) as cjs, open(os.path.join(PACKAGE, "index.d.mts")) as esm:
        assert cjs.read() == esm.read()


def test_generated_types_match_the_contracts():
    result = subprocess.run(["node", os.path.join(PACKAGE, "generate-types.mjs"), "--check"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")
def test_the_packed_tarball_installs_and_works_from_cjs_and_esm(tmp_path):
    npm_env = clean_env(HOME=str(tmp_path / "home"), npm_config_cache=str(tmp_path / "cache"),
                        npm_config_update_notifier="false", npm_config_audit="false", npm_config_fund="false")
    packed = subprocess.run(["npm", "pack", "--silent", "--pack-destination", str(tmp_path), PACKAGE],
                            env=npm_env, capture_output=True, text=True, timeout=120, check=True)
    tarball = tmp_path / packed.stdout.strip().splitlines()[-1]
    listing = subprocess.run(["tar", "tzf", str(tarball)], capture_output=True, text=True, check=True).stdout
    for name in ("package/index.js", "package/index.mjs", "package/index.d.ts", "package/lib/api.js",
                 "package/types/sandbox-spec.d.ts", "package/types/egress-log.d.ts"):
        assert name in listing.split(), listing
    app = tmp_path / "app"
    app.mkdir()
    subprocess.run(["npm", "init", "-y"], cwd=app, env=npm_env, capture_output=True, check=True, timeout=60)
    # The platform package is not published here: the binaries come from the build.
    install = subprocess.run(["npm", "install", "--offline", "--omit=optional", "--loglevel=error", str(tarball)],
                             cwd=app, env=npm_env, capture_output=True, text=True, timeout=300)
    assert install.returncode == 0, install.stderr
    (app / "use.cjs").write_text(
        "const {Sandbox, SandboxNotFoundError} = require('@osf-sandbox/sandbox-kubernetes');\n"
        "(async () => {\n"
        "  const box = await Sandbox.create({template: 'host'}, {backend: 'local', labels: {from: 'cjs'}});\n"
        "  const r = await box.exec(['sh', '-c', 'echo from-cjs'], {encoding: 'utf8'});\n"
        "  const listed = await Sandbox.list({backend: 'local', labels: {from: 'cjs'}});\n"
        "  await box.destroy();\n"
        "  let missing = false;\n"
        "  try { await Sandbox.get(box.id, {backend: 'local'}); } catch (e) { missing = e instanceof SandboxNotFoundError; }\n"
        "  console.log(JSON.stringify({out: r.stdout, code: r.exitCode, listed: listed.map((s) => s.id), id: box.id, missing}));\n"
        "})().catch((e) => { console.error(e); process.exit(1); });\n")
    (app / "use.mjs").write_text(
        "import {Sandbox, InvalidSpecError} from '@osf-sandbox/sandbox-kubernetes';\n"
        "try { await Sandbox.create({template: 'host', cpu: -1}, {backend: 'local'}); console.log('created'); }\n"
        "catch (e) { console.log(e instanceof InvalidSpecError ? `invalid ${e.exitCode}` : `other ${e}`); }\n")
    state = tempfile.mkdtemp(prefix="ostp-", dir="/tmp")
    env = clean_env(OSF_SANDBOX_LOCAL_BIN=local_bin(), OSF_SANDBOX_LOCAL_STATE_DIR=state,
                    OSF_EGRESS_PROXY_BIN=proxy_bin(), OSF_SANDBOX_START_TIMEOUT="60")
    try:
        cjs = subprocess.run(["node", "use.cjs"], cwd=app, env=env, capture_output=True, text=True, timeout=300)
        assert cjs.returncode == 0, cjs.stderr
        seen = json.loads(cjs.stdout)
        assert seen["out"] == "from-cjs\n" and seen["code"] == 0, seen
        assert seen["listed"] == [seen["id"]] and seen["missing"] is True, seen
        esm = subprocess.run(["node", "use.mjs"], cwd=app, env=env, capture_output=True, text=True, timeout=120)
        assert esm.stdout.strip() == "invalid 2", esm.stdout + esm.stderr
    finally:
        shutil.rmtree(state, ignore_errors=True)
