"""The egress-proxy image: built with images/egress-proxy/build.sh (buildah, vfs
storage, chroot isolation, FROM scratch), exported as an OCI layout and
unpacked, then checked as a user of the image would see it: no shell, a
non-root user, the proxy as entrypoint, and the proxy running from that root
file system (bubblewrap, as uid 65532) answering an allowed request and
refusing another with 403, both as `docker run` would run it and as the egress
pod the adapter writes runs it."""
import json
import os
import re
import shutil
import stat
import subprocess
import tarfile
import tempfile
import urllib.request

import pytest

from osftest import Proxy, Upstream, adapter_bin, proxy_bin, repo
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
    """Why buildah cannot build an image here at all, or None when it can: it
    commits an empty container, which applies a layer as the real build does."""
    if shutil.which("buildah") is None:
        return "buildah is not installed (scripts/install-deps.sh installs it)"
    probe = Buildah(os.path.join(work, "probe"))
    for args in (["info"], ["from", "--name", "probe", "scratch"], ["commit", "--quiet", "probe", "probe:1"]):
        res = _run(probe.base + args, timeout=120)
        if res.returncode == 0:
            continue
        if "remount /" in res.stderr:
            return ("buildah cannot apply an image layer here: this machine's root directory is not a "
                    "mount point (a chroot of a plain directory; bind-mount it onto itself first, as "
                    "scripts/fresh-debian-test.sh does): " + res.stderr.strip()[-300:])
        return f"buildah {args[0]} cannot run here: " + res.stderr.strip()[-500:]
    return None


def _bwrap_unusable():
    """Why bubblewrap cannot run a process as uid NONROOT here, or None when it can.
    Unprivileged bwrap needs a user namespace, which the kernel refuses inside a
    chroot and where they are switched off."""
    res = _run(["setpriv", f"--reuid={NONROOT}", f"--regid={NONROOT}", "--clear-groups", "--",
                "bwrap", "--ro-bind", "/", "/", "--unshare-pid", "--", "true"], timeout=60)
    if res.returncode == 0:
        return None
    return ("the image was built and checked, but not run: this machine gives uid "
            f"{NONROOT} no user namespace, which bubblewrap needs (the kernel refuses them inside "
            "a chroot such as CI's fresh root, and where unprivileged ones are off: sysctl "
            "kernel.unprivileged_userns_clone, AppArmor's kernel.apparmor_restrict_unprivileged_userns); "
            f"bwrap said: {res.stderr.strip()[-300:]}")


@pytest.fixture(scope="module")
def bwrap():
    if shutil.which("bwrap") is None:
        pytest.fail("bubblewrap is missing (scripts/install-deps.sh installs it)")
    why = _bwrap_unusable()
    if why:
        pytest.skip(why)


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
    # The licences: the project's, and Debian's copyright file of each package whose shared
    # objects the image holds (README.md, "Licence").
    docs = {p for p in regular if p.startswith("/usr/share/doc/")}
    assert {f"/usr/share/doc/osf-sandbox/{n}" for n in ("LICENSE", "NOTICE", "THIRD-PARTY-NOTICES")} <= docs
    for p in docs - {f"/usr/share/doc/osf-sandbox/{n}" for n in ("LICENSE", "NOTICE", "THIRD-PARTY-NOTICES")}:
        assert re.fullmatch(r"/usr/share/doc/[a-z0-9.+-]+/copyright", p), f"unexpected file in the image: {p}"
        assert not files[p].st_mode & 0o111, p
    assert "/usr/share/doc/libc6/copyright" in docs
    libraries = regular - expected - docs
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


def _root_layout(rootfs, targets, rel=""):
    """bwrap arguments that lay the image's root fs out on bwrap's empty root:
    each entry bound read-only, except that a directory which must receive a
    mount point the image lacks (Kubernetes creates those) becomes a tmpfs
    holding its entries, recursively."""
    args = []
    for name in sorted(os.listdir(os.path.join(rootfs, rel))):
        path = os.path.join(rel, name)
        host = os.path.join(rootfs, path)
        needs_room = [t for t in targets if t.startswith("/" + path + "/")
                      and not os.path.lexists(os.path.join(rootfs, t.lstrip("/")))]
        if needs_room and os.path.isdir(host) and not os.path.islink(host):
            args += ["--tmpfs", "/" + path]
            args += _root_layout(rootfs, targets, path)
        else:
            args += ["--ro-bind", host, "/" + path]
    return args


class ImageRun(Proxy):
    """The proxy run from the image's root fs, as a container runtime would
    run it: bubblewrap lays out the image read-only, adds /proc, /dev and the
    `mounts` (host directory -> path; the state directory writable, so the
    test reads listen.json and the log), shares the network so 127.0.0.1
    works, and setpriv drops to `user` first. `argv` is what the container
    runs, `env` its variables on top of the image's."""

    def __init__(self, image, directory, *, argv, user, env, mounts):
        super().__init__({"template": "unused"}, directory, start=False)
        self.state_dir = next(host for host, path in mounts.items() if path == STATE_DIR)
        os.makedirs(self.state_dir, exist_ok=True)
        os.chown(self.state_dir, NONROOT, NONROOT)
        os.chmod(directory, 0o755)
        variables = dict(e.partition("=")[::2] for e in image["config"].get("Env", []))
        variables.update(env)
        setenv = ["--clearenv"] + sum((["--setenv", k, v] for k, v in variables.items()), [])
        binds = sum((["--bind" if path == STATE_DIR else "--ro-bind", host, path]
                     for host, path in mounts.items()), [])
        uid, _, gid = str(user).partition(":")
        layout = _root_layout(image["rootfs"], list(mounts.values()))
        # Read-only root file system, as the adapter's egress pod has it.
        read_only = sum((["--remount-ro", path] for flag, path in zip(layout, layout[1:])
                         if flag == "--tmpfs"), ["--remount-ro", "/"])
        self.sandbox = [
            "setpriv", f"--reuid={uid}", f"--regid={gid or uid}", "--clear-groups", "--",
            "bwrap", *layout, "--proc", "/proc", "--dev", "/dev", *binds, *read_only,
            "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--die-with-parent",
            "--chdir", image["config"].get("WorkingDir") or "/", *setenv, "--",
        ]
        self.argv = self.sandbox + list(argv)


def _loopback_ports(args):
    """The container's arguments with kernel-chosen loopback ports instead of
    0.0.0.0:8080 and 0.0.0.0:9090 (the test must not take fixed ports)."""
    args = list(args)
    for flag in ("--listen", "--admin-listen"):
        assert flag in args, f"no {flag} in {args}"
        args[args.index(flag) + 1] = "127.0.0.1:0"
    return args


def _private_dir(path, files):
    os.makedirs(path)
    for name, text in files.items():
        with open(os.path.join(path, name), "w") as f:
            f.write(text)
        os.chmod(os.path.join(path, name), 0o644)
    os.chmod(path, 0o755)
    return path


def _curl(proxy, url):
    """(HTTP status, CONNECT status) of a request through the proxy."""
    res = subprocess.run(["curl", "-sS", "-o", "/dev/null", "--max-time", "30", "--proxy", proxy.url,
                          "--cacert", proxy.ca_path, "-w", "%{http_code} %{http_connect}", url],
                         capture_output=True, text=True, timeout=60)
    code, connect = res.stdout.split()
    return int(code), int(connect)


def test_proxy_from_the_image_allows_and_refuses(image, bwrap):
    work = os.path.join(image["work"], "run")
    os.makedirs(work)
    os.chmod(work, 0o755)
    ca = UpstreamCA(os.path.join(work, "upstream-ca"))
    with open(ca.cert_path) as f:
        ca_pem = f.read()
    spec = {"template": "debian:12", "egress": ["allowed.test"]}
    # As `docker run` runs it: the image's entrypoint and default arguments,
    # the spec (and an upstream CA) mounted at /etc/egress-proxy.
    config = image["config"]
    etc = _private_dir(os.path.join(work, "etc"), {"spec.json": json.dumps(spec), "upstream-ca.crt": ca_pem})
    argv = config["Entrypoint"] + _loopback_ports(config["Cmd"]) + [
        "--upstream-ca", "/etc/egress-proxy/upstream-ca.crt"]
    with Upstream(ca, ["allowed.test", "refused.test"]) as upstream:
        with ImageRun(image, os.path.join(work, "proxy"), argv=argv, user=config["User"],
                      env={"OSF_SANDBOX_HOST_ALIASES": "allowed.test=127.0.0.1,refused.test=127.0.0.1"},
                      mounts={os.path.join(work, "state"): STATE_DIR, etc: "/etc/egress-proxy"}) as proxy:
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


def test_the_egress_pod_the_adapter_writes_runs_from_the_image(image, bwrap):
    """The egress pod of `sandbox-kubernetes create --dry-run`, run as its
    container spec says (command, args, env, user, volume mounts, read-only
    root) from the image: ready on the admin port, allowing the spec's host
    and refusing another."""
    binary = adapter_bin()
    assert os.access(binary, os.X_OK), f"no sandbox-kubernetes at {binary}; build the sandbox-kubernetes target"
    work = os.path.join(image["work"], "pod")
    os.makedirs(work)
    os.chmod(work, 0o755)
    with open(os.path.join(work, "spec.json"), "w") as f:
        json.dump({"template": "debian:12", "egress": ["allowed.test"]}, f)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "KUBECONFIG": os.path.join(work, "none"),
           "OSF_SANDBOX_HOST_ALIASES": "allowed.test=127.0.0.1"}
    res = _run([binary, "create", "--dry-run", os.path.join(work, "spec.json")], env=env, timeout=60)
    assert res.returncode == 0, res.stderr
    items = json.loads(res.stdout)["items"]
    pod = next(i for i in items if i["kind"] == "Pod")
    config_maps = {i["metadata"]["name"]: i for i in items if i["kind"] == "ConfigMap"}
    (container,) = pod["spec"]["containers"]
    security = dict(pod["spec"].get("securityContext", {}), **container.get("securityContext", {}))
    assert security["readOnlyRootFilesystem"] is True

    # The pod's volumes on the host: emptyDir -> an empty directory, configMap -> its keys as files.
    volumes = {}
    for volume in pod["spec"]["volumes"]:
        host = os.path.join(work, "volumes", volume["name"])
        if "emptyDir" in volume:
            volumes[volume["name"]] = _private_dir(host, {})
        elif "configMap" in volume:
            volumes[volume["name"]] = _private_dir(host, config_maps[volume["configMap"]["name"]]["data"])
        else:
            raise AssertionError(f"the test does not lay out volume {volume}")
    mounts = {volumes[m["name"]]: m["mountPath"] for m in container["volumeMounts"]}
    assert STATE_DIR in mounts.values(), "the egress pod no longer mounts a state directory"
    argv = container.get("command") or image["config"]["Entrypoint"]
    argv = argv + _loopback_ports(container.get("args") or image["config"]["Cmd"])
    variables = {e["name"]: e["value"] for e in container.get("env", []) if "value" in e}
    user = f"{security['runAsUser']}:{security.get('runAsGroup', security['runAsUser'])}"

    with Upstream(None) as upstream:
        with ImageRun(image, os.path.join(work, "proxy"), argv=argv, user=user, env=variables,
                      mounts=mounts) as proxy:
            proxy.start()
            direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))
            probe = container["readinessProbe"]["httpGet"]
            with direct.open(proxy.admin_url + probe["path"], timeout=30) as ready:
                assert ready.status == 200
            status, _ = _curl(proxy, upstream.url("allowed.test", "/through-the-pod"))
            assert status == 200
            status, _ = _curl(proxy, upstream.url("refused.test", "/never"))
            assert status == 403
            assert [r["path"] for r in upstream.requests] == ["/through-the-pod"]
            # --log-stdout (the cluster's log collector) mirrors the egress log.
            proxy.wait_for_log(lambda l: l.get("host") == "refused.test")
    assert '"refused.test"' in proxy.stdout()


def test_build_script_refuses_a_missing_binary_or_an_empty_context(tmp_path):
    script = os.path.join(repo(), "images", "egress-proxy", "build.sh")
    res = _run([script, "stage", "--binary", str(tmp_path / "missing"), "--context", str(tmp_path / "ctx")])
    assert res.returncode == 2
    assert "no egress-proxy binary at" in res.stderr and "cmake --preset release" in res.stderr
    res = _run([script, "image", "--context", str(tmp_path / "empty")])
    assert res.returncode == 2 and "no staged context" in res.stderr
    res = _run([script, "--engine", "podman"])
    assert res.returncode == 2 and "--engine must be buildah or docker" in res.stderr
