"""The egress-proxy image: built with images/egress-proxy/build.sh (buildah, vfs
storage, chroot isolation, FROM scratch), exported as an OCI layout and
unpacked, then checked as a user of the image would see it: no shell, a
non-root user, the proxy as entrypoint, and the proxy running from that root
file system (bubblewrap, as uid 65532) answering an allowed request and
refusing another with 403."""
import json
import os
import shutil
import stat
import subprocess
import tarfile
import tempfile
import urllib.request

import pytest

from osftest import Proxy, Upstream, proxy_bin, repo
from osftest import TestCA as UpstreamCA  # aliased: pytest would collect a Test* class

IMAGE = "localhost/egress-proxy:integration-test"
NONROOT = 65532
PROXY_PATH = "/usr/local/bin/egress-proxy"
STATE_DIR = "/var/lib/egress-proxy"


def _run(argv, **kw):
    return subprocess.run(argv, capture_output=True, text=True, timeout=kw.pop("timeout", 300), **kw)


class Buildah:
    """buildah with vfs storage in a private directory, so the test neither
    needs nor touches the machine's image store."""

    def __init__(self, root):
        self.root = root
        self.base = ["buildah", "--storage-driver", "vfs", "--root", os.path.join(root, "storage"),
                     "--runroot", os.path.join(root, "run")]

    def __call__(self, *args):
        res = _run(self.base + list(args))
        if res.returncode != 0:
            raise AssertionError(f"buildah {' '.join(args)} failed: {res.stderr.strip()}")
        return res.stdout


def _buildah_unusable(work):
    """Why buildah cannot run here at all, or None when it can."""
    if shutil.which("buildah") is None:
        return "buildah is not installed (scripts/install-deps.sh installs it)"
    res = _run(Buildah(os.path.join(work, "probe")).base + ["info"], timeout=120)
    if res.returncode != 0:
        return "buildah cannot run here: " + res.stderr.strip()[-500:]
    return None


def _unpack_oci(layout, dest):
    """Applies the image's layers in order (whiteouts included) into dest."""
    with open(os.path.join(layout, "index.json")) as f:
        manifest_digest = json.load(f)["manifests"][0]["digest"]

    def blob(digest):
        return os.path.join(layout, "blobs", *digest.split(":", 1))

    with open(blob(manifest_digest)) as f:
        manifest = json.load(f)
    os.makedirs(dest)
    for layer in manifest["layers"]:
        with tarfile.open(blob(layer["digest"]), "r:*") as tar:
            members = []
            for m in tar.getmembers():
                name = os.path.normpath(m.name).lstrip("/")
                base = os.path.basename(name)
                if base.startswith(".wh."):
                    target = os.path.join(dest, os.path.dirname(name), base[len(".wh."):])
                    if os.path.isdir(target) and not os.path.islink(target):
                        shutil.rmtree(target)
                    elif os.path.lexists(target):
                        os.remove(target)
                    continue
                members.append(m)
            tar.extractall(dest, members=members, numeric_owner=True)
    return manifest


@pytest.fixture(scope="module")
def image():
    """Builds the image once; yields its OCI config and unpacked root fs."""
    binary = proxy_bin()
    assert os.access(binary, os.X_OK), f"no egress-proxy binary at {binary}; build the egress-proxy target"
    # Readable by uid 65532, which runs the proxy from the unpacked root fs.
    work = tempfile.mkdtemp(prefix="osf-image-test-")
    os.chmod(work, 0o755)
    try:
        why = _buildah_unusable(work)
        if why:
            pytest.skip(why)
        buildah = Buildah(os.path.join(work, "buildah"))
        res = _run([os.path.join(repo(), "images", "egress-proxy", "build.sh"), "all",
                    "--binary", binary, "--context", os.path.join(work, "context"),
                    "--storage-root", buildah.root, "--tag", IMAGE,
                    "--version", "0.0.0-test", "--revision", "test"], timeout=600)
        assert res.returncode == 0, f"build.sh failed:\n{res.stdout}\n{res.stderr}"
        inspect = json.loads(buildah("inspect", "--type", "image", IMAGE))
        layout = os.path.join(work, "oci")
        buildah("push", IMAGE, "oci:" + layout)
        rootfs = os.path.join(work, "rootfs")
        manifest = _unpack_oci(layout, rootfs)
        os.chmod(rootfs, 0o755)
        yield {"config": inspect["OCIv1"]["config"], "manifest": manifest, "rootfs": rootfs, "work": work}
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _files(rootfs):
    """Every path in the root fs (relative, with a leading /) -> lstat."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(rootfs):
        for name in dirnames + filenames:
            full = os.path.join(dirpath, name)
            out["/" + os.path.relpath(full, rootfs)] = os.lstat(full)
    return out


def test_config_runs_the_proxy_as_non_root_with_its_ports(image):
    config = image["config"]
    user = config.get("User", "")
    uid, _, gid = user.partition(":")
    assert uid == str(NONROOT) and gid == str(NONROOT), f"image user is {user!r}"
    assert config["Entrypoint"] == [PROXY_PATH]
    assert config["Cmd"] == ["--spec", "/etc/egress-proxy/spec.json", "--listen", "0.0.0.0:8080",
                             "--admin-listen", "0.0.0.0:9090", "--state-dir", STATE_DIR]
    assert set(config["ExposedPorts"]) == {"8080/tcp", "9090/tcp"}
    labels = config["Labels"]
    assert labels["org.opencontainers.image.title"] == "egress-proxy"
    assert labels["org.opencontainers.image.version"] == "0.0.0-test"
    assert labels["org.opencontainers.image.revision"] == "test"
    assert "org.opencontainers.image.created" in labels


def test_root_fs_holds_only_the_proxy_its_libraries_and_trust_store(image):
    files = _files(image["rootfs"])
    for shell in ("/bin/sh", "/bin/bash", "/usr/bin/sh", "/usr/bin/bash", "/bin/busybox", "/usr/bin/busybox"):
        assert shell not in files, f"{shell} is in the image"
    assert not [p for p in files if os.path.basename(p) in ("busybox", "sh", "bash", "dash", "ash")]

    regular = {p for p, st in files.items() if stat.S_ISREG(st.st_mode)}
    expected = {PROXY_PATH, "/etc/ssl/certs/ca-certificates.crt", "/etc/passwd", "/etc/group",
                "/etc/nsswitch.conf"}
    assert expected <= regular
    libraries = regular - expected
    assert libraries, "no shared libraries: is the binary dynamic?"
    for p in libraries:
        assert ".so" in os.path.basename(p), f"unexpected file in the image: {p}"
    assert any(os.path.basename(p).startswith("ld-linux") for p in libraries), "no dynamic loader"
    assert any(os.path.basename(p) == "libc.so.6" for p in libraries)
    assert any(os.path.basename(p).startswith("libssl.so") for p in libraries)
    executables = {p for p in regular if files[p].st_mode & 0o111 and ".so" not in os.path.basename(p)}
    assert executables == {PROXY_PATH}


def test_only_the_state_dir_belongs_to_the_proxy_user(image):
    files = _files(image["rootfs"])
    with open(os.path.join(image["rootfs"], "etc/passwd")) as f:
        users = {line.split(":")[0]: line.split(":") for line in f.read().splitlines() if line}
    nonroot = [u for u in users.values() if u[2] == str(NONROOT)]
    assert nonroot and nonroot[0][3] == str(NONROOT), f"no user {NONROOT} in /etc/passwd: {users}"
    assert nonroot[0][6] == "/sbin/nologin"
    with open(os.path.join(image["rootfs"], "etc/group")) as f:
        assert any(line.split(":")[2] == str(NONROOT) for line in f.read().splitlines() if line)

    state = files[STATE_DIR]
    assert stat.S_ISDIR(state.st_mode) and (state.st_uid, state.st_gid) == (NONROOT, NONROOT)
    for path, st in files.items():
        if path == STATE_DIR:
            continue
        assert st.st_uid == 0, f"{path} is owned by uid {st.st_uid}"
        if not stat.S_ISLNK(st.st_mode):
            assert not st.st_mode & 0o002, f"{path} is world-writable"


class ImageProxy(Proxy):
    """The proxy run from the image's root fs: bubblewrap binds it as /, adds
    /proc, /dev, the spec, an upstream CA and a host directory as the state dir
    (so the test reads listen.json and the log), shares the network so
    127.0.0.1 works, and setpriv drops to the image's user first."""

    def __init__(self, image, spec, directory, aliases, upstream_ca):
        super().__init__(spec, directory, aliases=aliases, upstream_ca=upstream_ca, start=False)
        os.makedirs(self.state_dir)
        os.chown(self.state_dir, NONROOT, NONROOT)
        for path in (directory, self.spec_path, upstream_ca):
            os.chmod(path, 0o755 if os.path.isdir(path) else 0o644)
        config = image["config"]
        uid, _, gid = config["User"].partition(":")
        env = ["--clearenv"]
        for entry in config.get("Env", []):
            k, _, v = entry.partition("=")
            env += ["--setenv", k, v]
        env += ["--setenv", "OSF_SANDBOX_HOST_ALIASES", self.env["OSF_SANDBOX_HOST_ALIASES"]]
        # The image's default arguments, with kernel-chosen loopback ports.
        args = list(config["Cmd"])
        args[args.index("--listen") + 1] = "127.0.0.1:0"
        args[args.index("--admin-listen") + 1] = "127.0.0.1:0"
        args += ["--upstream-ca", "/etc/egress-proxy/upstream-ca.crt"]
        # /etc/egress-proxy is mounted whole, as Kubernetes mounts the spec's ConfigMap.
        config_dir = os.path.join(directory, "etc")
        os.makedirs(config_dir)
        shutil.copy(self.spec_path, os.path.join(config_dir, "spec.json"))
        shutil.copy(upstream_ca, os.path.join(config_dir, "upstream-ca.crt"))
        os.chmod(config_dir, 0o755)
        # The image's top-level directories on bwrap's empty root, which then
        # takes the mount points a container runtime adds (/proc, /dev).
        image_dirs = []
        for name in sorted(os.listdir(image["rootfs"])):
            image_dirs += ["--ro-bind", os.path.join(image["rootfs"], name), "/" + name]
        self.sandbox = [
            "setpriv", f"--reuid={uid}", f"--regid={gid}", "--clear-groups", "--",
            "bwrap", *image_dirs, "--proc", "/proc", "--dev", "/dev",
            "--bind", self.state_dir, STATE_DIR, "--ro-bind", config_dir, "/etc/egress-proxy",
            "--remount-ro", "/",
            "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--die-with-parent",
            "--chdir", config.get("WorkingDir") or "/", *env, "--",
        ]
        self.argv = self.sandbox + config["Entrypoint"] + args


def _curl(proxy, url):
    """(HTTP status, CONNECT status) of a request through the proxy."""
    res = subprocess.run(["curl", "-sS", "-o", "/dev/null", "--max-time", "30", "--proxy", proxy.url,
                          "--cacert", proxy.ca_path, "-w", "%{http_code} %{http_connect}", url],
                         capture_output=True, text=True, timeout=60)
    code, connect = res.stdout.split()
    return int(code), int(connect)


def test_proxy_from_the_image_allows_and_refuses(image):
    if shutil.which("bwrap") is None:
        pytest.fail("bubblewrap is missing (scripts/install-deps.sh installs it)")
    work = os.path.join(image["work"], "run")
    os.makedirs(work)
    os.chmod(work, 0o755)
    ca = UpstreamCA(os.path.join(work, "upstream-ca"))
    spec = {"template": "debian:12", "egress": ["allowed.test"]}
    with Upstream(ca, ["allowed.test", "refused.test"]) as upstream:
        with ImageProxy(image, spec, os.path.join(work, "proxy"),
                        aliases={"allowed.test": "127.0.0.1", "refused.test": "127.0.0.1"},
                        upstream_ca=ca.cert_path) as proxy:
            proxy.start()
            assert os.stat(proxy.ca_path).st_uid == NONROOT, "the proxy did not run as the image's user"
            # The egress pod's readiness probe.
            direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))
            with direct.open(proxy.admin_url + "/readyz", timeout=30) as ready:
                assert ready.status == 200

            status, connect = _curl(proxy, upstream.url("allowed.test", "/hello"))
            assert (connect, status) == (200, 200)
            assert [r["path"] for r in upstream.requests] == ["/hello"]

            status, connect = _curl(proxy, upstream.url("refused.test", "/secret"))
            assert connect == 403
            assert [r["path"] for r in upstream.requests] == ["/hello"], "a refused request reached the upstream"

            lines = proxy.wait_for_log(lambda l: l.get("outcome") == "refused")
            assert lines[0]["host"] == "refused.test"
            assert os.stat(proxy.log_path).st_uid == NONROOT

            # The subcommand the adapter runs through kubectl exec works from the image too.
            # As the adapter runs it (kubectl exec ... egress-proxy ca): found through the image's PATH.
            res = _run(proxy.sandbox + ["egress-proxy", "ca", "--state-dir", STATE_DIR], timeout=60)
            assert res.returncode == 0, res.stderr
            with open(proxy.ca_path) as f:
                assert res.stdout.strip() == f.read().strip()
