"""The sandbox-base image: built with images/sandbox-base/build.sh (its Debian 12 base made with
debootstrap from the Debian archive, no registry; buildah with vfs storage and chroot isolation),
exported as an OCI layout and unpacked, then run from that root file system (bubblewrap) the way
sandbox-kubernetes runs a sandbox in each mode:

- root mode: as root, with only the capabilities the adapter adds back (CHOWN, DAC_OVERRIDE,
  FOWNER, FSETID, SETUID, SETGID, KILL), a writable root file system: apt's tools, chown and
  switching to the `sandbox` user work;
- non-root read-only mode: as 1000:1000 (`"user": {"uid": 1000, "gid": 1000}`), the root file
  system read-only, /tmp, /workspace and /home/sandbox writable: git, a Python venv and Node.js
  work there, and nothing else can be written.

Slow (it downloads and installs Debian packages: several minutes); skipped where buildah or
debootstrap cannot run or the Debian archive cannot be reached."""
import json
import os
import shutil
import subprocess
import tempfile
import urllib.request

import pytest

from osftest import repo
from test_image import Buildah, _buildah_unusable, _root_layout, _run, _unpack_oci

IMAGE = "localhost/sandbox-base:integration-test"
MIRROR = "http://deb.debian.org/debian"
ROOT_MODE_CAPABILITIES = ["CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FOWNER", "CAP_FSETID", "CAP_SETUID",
                          "CAP_SETGID", "CAP_KILL"]
TOOLS = ("/bin/sh", "/usr/bin/tar", "/usr/bin/cp", "/usr/bin/git", "/usr/bin/curl", "/usr/bin/python3",
         "/usr/bin/node", "/usr/bin/npm", "/usr/bin/make", "/usr/bin/gcc", "/usr/bin/jq", "/usr/bin/apt-get")


def _why_not_here(work):
    if os.geteuid() != 0:
        return "building the base needs root (debootstrap)"
    if shutil.which("debootstrap") is None:
        return "debootstrap is not installed (scripts/install-deps.sh installs it)"
    why = _buildah_unusable(work)
    if why:
        return why
    try:
        urllib.request.urlopen(MIRROR + "/dists/bookworm/Release", timeout=30).close()
    except OSError as e:
        return f"the Debian archive is not reachable: {e}"
    return None


@pytest.fixture(scope="module")
def image():
    work = tempfile.mkdtemp(prefix="osf-sandbox-image-test-")
    os.chmod(work, 0o755)
    try:
        why = _why_not_here(work)
        if why:
            pytest.skip(why)
        buildah = Buildah(os.path.join(work, "buildah"))
        res = _run([os.path.join(repo(), "images", "sandbox-base", "build.sh"), "all",
                    "--work", os.path.join(work, "base"), "--storage-root", buildah.root, "--tag", IMAGE,
                    "--version", "0.0.0-test", "--revision", "test"], timeout=3000)
        assert res.returncode == 0, f"build.sh failed:\n{res.stdout[-3000:]}\n{res.stderr[-3000:]}"
        inspect = json.loads(buildah("inspect", "--type", "image", IMAGE))
        layout = os.path.join(work, "oci")
        buildah("push", IMAGE, "oci:" + layout)
        buildah("rmi", "--all", "--force")  # the store is a second copy of every layer
        rootfs = os.path.join(work, "rootfs")
        _unpack_oci(layout, rootfs)
        shutil.rmtree(layout)
        os.chmod(rootfs, 0o755)
        yield {"config": inspect["OCIv1"]["config"], "rootfs": rootfs, "work": work}
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _variables(image, extra):
    variables = dict(e.partition("=")[::2] for e in image["config"].get("Env", []))
    variables.update(extra)
    return sum((["--setenv", k, v] for k, v in variables.items()), ["--clearenv"])


def _owned_dir(path, uid, gid):
    os.makedirs(path)
    os.chown(path, uid, gid)
    return path


def test_config_runs_as_root_in_workspace_with_a_sandbox_user(image):
    config = image["config"]
    assert config.get("User", "") in ("", "0", "root", "0:0")  # root mode can use apt
    assert config["WorkingDir"] == "/workspace"
    assert config["Cmd"] == ["sleep", "infinity"]
    assert "PIP_DISABLE_PIP_VERSION_CHECK=1" in config["Env"]
    assert config["Labels"]["org.opencontainers.image.title"] == "sandbox-base"
    assert config["Labels"]["org.opencontainers.image.version"] == "0.0.0-test"
    with open(os.path.join(image["rootfs"], "etc/passwd")) as f:
        users = {line.split(":")[0]: line.split(":") for line in f.read().splitlines() if line}
    assert users["sandbox"][2:4] == ["1000", "1000"]
    assert users["sandbox"][5] == "/home/sandbox"
    for tool in TOOLS:
        assert os.path.lexists(os.path.join(image["rootfs"], tool.lstrip("/"))), f"no {tool} in the image"


def test_root_mode(image):
    """As the adapter's root mode runs it: uid 0 with exactly its seven capabilities."""
    work = os.path.join(image["work"], "root-mode")
    os.makedirs(work)
    caps = ["--cap-drop", "ALL"] + sum((["--cap-add", c] for c in ROOT_MODE_CAPABILITIES), [])
    script = ("set -e; id -u; apt-get --version | head -1; touch /usr/local/bin/installed; "
              "echo data > /workspace/f; chown 1000:1000 /workspace/f; stat -c %u /workspace/f; "
              "setpriv --reuid=1000 --regid=1000 --clear-groups id -un; "
              "git --version | cut -d' ' -f1; python3 -c 'print(\"py\")'; node -e 'console.log(\"node\")'")
    res = _run(["bwrap", "--bind", image["rootfs"], "/", "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp",
                *caps, "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--die-with-parent",
                "--chdir", "/workspace", *_variables(image, {}), "--", "sh", "-c", script], timeout=120)
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert lines[0] == "0"
    assert lines[1].startswith("apt ")
    assert lines[2:] == ["1000", "sandbox", "git", "py", "node"]


def test_non_root_read_only_mode(image):
    """As `"user": {"uid": 1000, "gid": 1000}, "readOnlyRoot": true` runs it: the root file
    system read-only; /workspace, the home directory and /tmp are the only writable places."""
    work = os.path.join(image["work"], "non-root")
    os.makedirs(work)
    os.chmod(work, 0o755)
    workspace = _owned_dir(os.path.join(work, "workspace"), 1000, 1000)
    home = _owned_dir(os.path.join(work, "home"), 1000, 1000)
    mounts = {"/workspace": workspace, "/home/sandbox": home}
    layout = _root_layout(image["rootfs"], list(mounts))
    binds = sum((["--bind", host, path] for path, host in mounts.items()), [])
    script = ("set -e; id -u; id -g; echo $HOME; "
              "echo w > /workspace/f; echo h > $HOME/g; echo t > /tmp/h; "
              "if touch /usr/local/bin/x 2>/dev/null; then echo root-fs-writable; fi; "
              "if apt-get install -y -q jq >/dev/null 2>&1; then echo apt-worked; fi; "
              "git init -q /workspace/repo && git -C /workspace/repo config user.name t && echo git; "
              "python3 -m venv /workspace/venv && /workspace/venv/bin/python -c 'print(\"venv\")'; "
              "node -e 'console.log(\"node\")'")
    res = _run(["setpriv", "--reuid=1000", "--regid=1000", "--clear-groups", "--",
                "bwrap", *layout, "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", *binds,
                "--remount-ro", "/", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--die-with-parent",
                "--chdir", "/workspace", *_variables(image, {"HOME": "/home/sandbox"}), "--",
                "sh", "-c", script], timeout=300)
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines() == ["1000", "1000", "/home/sandbox", "git", "venv", "node"]
    assert open(os.path.join(workspace, "f")).read() == "w\n"
    assert os.stat(os.path.join(workspace, "f")).st_uid == 1000
    assert open(os.path.join(home, "g")).read() == "h\n"
    assert os.path.isfile(os.path.join(workspace, "venv", "bin", "python"))
