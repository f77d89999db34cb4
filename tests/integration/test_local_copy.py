"""sandbox-local copy out of a sandbox, with the real CLI, bubblewrap and tar: what the
sandbox sends (it controls every byte of the tar stream) never writes outside the
destination, never carries setuid/setgid bits, and never plants a symlink on the
host; symlinks, devices and FIFOs are skipped with a warning. A sandbox whose `tar`
is a script sends a hand-made archive (device node, absolute and `..` names, hard
links out, a file through a symlink)."""
import io
import os
import re
import shutil
import stat
import subprocess
import tarfile
import signal
import tempfile
import time

import pytest

from osftest import TestCA as UpstreamCA  # aliased: pytest would collect a Test* class
from osftest.waiting import wait_until
from test_local_sandbox import local_bin, local_state

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")


@pytest.fixture(scope="module")
def ca():
    with tempfile.TemporaryDirectory(prefix="oslc-ca-") as d:
        yield UpstreamCA(d)


@pytest.fixture(scope="module")
def local(ca):
    with local_state(ca, "oslc-") as local:
        yield local


@pytest.fixture(scope="module")
def sandbox(local):
    return local.create({"template": "host"})


def less_umask(mode):
    umask = os.umask(0)
    os.umask(umask)
    return mode & ~umask


def victim_file(tmp_path):
    victim = tmp_path / "victim"
    victim.write_text("original\n")
    return victim


def test_a_directory_copy_keeps_files_dirs_and_x_bits(local, sandbox, tmp_path):
    script = ("mkdir -p tree/a/b && printf 'top\\n' > tree/top.txt && printf 'deep\\n' > tree/a/b/deep.txt"
              " && printf '#!/bin/sh\\necho ran\\n' > tree/a/run.sh && chmod 755 tree/a/run.sh"
              " && chmod 600 tree/top.txt")
    assert local.sh(sandbox, script).returncode == 0
    out = tmp_path / "out"
    res = local.run("copy", f"{sandbox}:tree", str(out))
    assert res.returncode == 0, res.stderr
    assert res.stderr == ""
    assert (out / "top.txt").read_text() == "top\n"
    assert (out / "a" / "b" / "deep.txt").read_text() == "deep\n"
    assert subprocess.run([str(out / "a" / "run.sh")], capture_output=True, text=True).stdout == "ran\n"
    assert stat.S_IMODE((out / "top.txt").stat().st_mode) == less_umask(0o600)
    assert not [n for n in os.listdir(local.dir(sandbox)) if n.startswith("copy-")]  # staging removed


def test_setuid_files_and_symlinks_do_not_come_out(local, sandbox, tmp_path):
    victim = victim_file(tmp_path)
    script = (f"mkdir d && cp /bin/true d/suid && chmod 4755 d/suid && cp /bin/true d/sgid && chmod 2755 d/sgid"
              f" && ln -s {victim} d/link && mkfifo d/fifo && mkdir -m 1777 d/sticky && echo fine > d/plain")
    res = local.sh(sandbox, script)
    assert res.returncode == 0, res.stderr
    out = tmp_path / "out"
    res = local.run("copy", f"{sandbox}:d", str(out))
    assert res.returncode == 0, res.stderr
    assert f"copy: skipped symlink d/link -> {victim}\n" in res.stderr
    assert "copy: skipped fifo d/fifo\n" in res.stderr
    assert sorted(os.listdir(out)) == ["plain", "sgid", "sticky", "suid"]
    for name in ("suid", "sgid", "sticky"):
        mode = (out / name).stat().st_mode
        assert mode & 0o7000 == 0, (name, oct(mode))
    assert stat.S_IMODE((out / "suid").stat().st_mode) == less_umask(0o755)
    assert (out / "plain").read_text() == "fine\n"
    # A single file copied out is never setuid either.
    res = local.run("copy", f"{sandbox}:d/suid", str(tmp_path / "single"))
    assert res.returncode == 0, res.stderr
    assert (tmp_path / "single").stat().st_mode & 0o7000 == 0
    assert victim.read_text() == "original\n"


def test_a_single_file_is_not_written_through_a_symlink_in_the_destination(local, sandbox, tmp_path):
    victim = victim_file(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    os.symlink(victim, out / "link")  # as an older copy-out would have left it
    assert local.sh(sandbox, "echo pwned > link").returncode == 0
    res = local.run("copy", f"{sandbox}:link", str(out) + "/")
    assert res.returncode == 1
    assert f"copy: cannot open {out}/link:" in res.stderr
    assert victim.read_text() == "original\n"
    assert os.readlink(out / "link") == str(victim)
    # Into a directory under a new name: written, 0644 less the umask.
    res = local.run("copy", f"{sandbox}:link", str(out / "named"))
    assert res.returncode == 0, res.stderr
    assert (out / "named").read_text() == "pwned\n"
    assert (out / "named").stat().st_mode & 0o7111 == 0


def test_a_snapshot_keeps_no_setuid_file(local, sandbox):
    assert local.sh(sandbox, "mkdir -p snap && cp /bin/true snap/suid && chmod 4755 snap/suid").returncode == 0
    res = local.run("snapshot", sandbox)
    assert res.returncode == 0, res.stderr
    copied = os.path.join(local.state, "snapshots", res.stdout.strip(), "workspace", "snap", "suid")
    assert stat.S_IMODE(os.lstat(copied).st_mode) == 0o755


# --- a sandbox whose tar sends a hand-made archive ---------------------------------------------

def tiny_root():
    """sh, cat, test, sleep and a `tar` that sends /workspace/evil.tar whatever it is asked
    (and then waits while /workspace/slow exists)."""
    root = tempfile.mkdtemp(prefix="oslc-root-", dir="/tmp")
    for program in ("/bin/sh", "/bin/cat", "/usr/bin/test", "/bin/sleep"):
        real = os.path.realpath(program)
        target = os.path.join(root, program.lstrip("/"))
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copy2(real, target)
        for line in subprocess.run(["ldd", real], capture_output=True, text=True).stdout.splitlines():
            match = re.search(r"(/\S+) \(0x", line)
            if match:
                library = os.path.join(root, match.group(1).lstrip("/"))
                os.makedirs(os.path.dirname(library), exist_ok=True)
                shutil.copy2(os.path.realpath(match.group(1)), library)
    with open(os.path.join(root, "bin", "tar"), "w") as f:
        f.write("#!/bin/sh\ncat /workspace/evil.tar\n[ -e /workspace/slow ] && exec sleep 60\nexit 0\n")
    os.chmod(os.path.join(root, "bin", "tar"), 0o755)
    return root


def crafted_archive(victim, victim_dir, absolute):
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.GNU_FORMAT) as tar:
        def add(name, kind=tarfile.REGTYPE, data=b"", mode=0o644, **fields):
            info = tarfile.TarInfo(name)
            info.type, info.mode, info.size = kind, mode, len(data)
            for key, value in fields.items():
                setattr(info, key, value)
            tar.addfile(info, io.BytesIO(data) if kind == tarfile.REGTYPE else None)
        add("./", tarfile.DIRTYPE, mode=0o755)
        add("./ok.txt", data=b"fine\n", mode=0o4755)
        add("./null", tarfile.CHRTYPE, mode=0o666, devmajor=1, devminor=3)
        add("./disk", tarfile.BLKTYPE, mode=0o666, devmajor=8, devminor=0)
        add("./pipe", tarfile.FIFOTYPE)
        add(absolute, data=b"absolute\n")
        add("../escaped.txt", data=b"escaped\n")
        add("./passwd", tarfile.LNKTYPE, linkname="/etc/passwd")
        add("./victim-link", tarfile.LNKTYPE, linkname=str(victim))
        add("./same.txt", tarfile.LNKTYPE, linkname="./ok.txt")  # inside the archive: fine
        add("./l", tarfile.SYMTYPE, linkname=str(victim_dir))
        add("./l/through.txt", data=b"pwned\n")
        add("./sub/", tarfile.DIRTYPE, mode=0o2755)
        add("./sub/run.sh", data=b"#!/bin/sh\n", mode=0o6755)
    return buffer.getvalue()


def test_a_hand_made_archive_from_the_sandbox_is_confined(local, tmp_path):
    root = tiny_root()
    try:
        sandbox_id = local.create({"template": root}, name="evil.json")
        victim = victim_file(tmp_path)
        victim_dir = tmp_path / "victim-dir"
        victim_dir.mkdir()
        absolute = f"/oslc-absolute-{os.getpid()}.txt"
        workspace = os.path.join(local.dir(sandbox_id), "workspace")
        with open(os.path.join(workspace, "evil.tar"), "wb") as f:
            f.write(crafted_archive(victim, victim_dir, absolute))
        os.mkdir(os.path.join(workspace, "d"))
        out = tmp_path / "out"
        res = local.run("copy", f"{sandbox_id}:d", str(out))
        # tar refused some entries: exit 1, and the rest is there.
        assert res.returncode == 1, res.stderr
        assert "copy: some of /workspace/d was not copied (see above); the rest is in" in res.stderr
        assert f"copy: skipped symlink d/l -> {victim_dir}\n" in res.stderr
        assert "copy: skipped fifo d/pipe\n" in res.stderr
        assert victim.read_text() == "original\n"
        assert os.listdir(victim_dir) == []
        assert not os.path.exists(absolute)
        assert not (tmp_path / "escaped.txt").exists()
        assert not os.path.lexists(out / "null") and not os.path.lexists(out / "disk")
        assert not os.path.lexists(out / "l") and not os.path.lexists(out / "pipe")
        for path, entry in ((out / name, name) for name in os.listdir(out)):
            info = os.lstat(path)
            assert stat.S_ISREG(info.st_mode) or stat.S_ISDIR(info.st_mode), entry
            assert info.st_mode & 0o7000 == 0, (entry, oct(info.st_mode))
            assert info.st_nlink == 1 or stat.S_ISDIR(info.st_mode), entry
            assert info.st_ino != victim.stat().st_ino
        assert (out / "ok.txt").read_text() == "fine\n"
        assert (out / "same.txt").read_text() == "fine\n"  # a separate file
        assert (out / "sub" / "run.sh").stat().st_mode & 0o7000 == 0
        assert (out / "sub").stat().st_mode & 0o7000 == 0
        assert not [n for n in os.listdir(local.dir(sandbox_id)) if n.startswith("copy-")]

        # Ctrl-C while the sandbox is still sending: 130, nothing copied, staging removed,
        # and the destination directory the copy made (empty) removed too.
        open(os.path.join(workspace, "slow"), "w").close()
        stopped = tmp_path / "stopped"
        copy = subprocess.Popen([local_bin(), "copy", f"{sandbox_id}:d", str(stopped)], env=local.env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            def staging():
                assert copy.poll() is None, "copy ended before it made a staging directory"
                return [n for n in os.listdir(local.dir(sandbox_id)) if n.startswith("copy-")]

            wait_until(staging, 60, "the copy's staging directory")
            copy.send_signal(signal.SIGINT)
            assert copy.wait(timeout=60) == 130, copy.stderr.read()
        finally:
            if copy.poll() is None:
                copy.kill()
                copy.wait()
        assert not [n for n in os.listdir(local.dir(sandbox_id)) if n.startswith("copy-")]
        assert not os.path.lexists(stopped)
        assert local.run("destroy", sandbox_id).returncode == 0
    finally:
        shutil.rmtree(root, ignore_errors=True)
