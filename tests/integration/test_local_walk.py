"""sandbox-local's host-side tools against a sandbox that fights back, with the real
CLI, bubblewrap and egress-proxy, as root and as an ordinary user: a snapshot (and a
copy) raced by symlink swaps timed with inotify never reads a host file nor the
CLI's environment; a copy out is bounded (a sparse file, a FIFO, /dev/zero behind a
symlink); a command that stops its exec helper (pidfd, SIGIO) or every later helper
is still stopped at the timeout, and copy has one; a tree of any depth is
destroyed; a command closing its stdin does not kill exec; the sandbox's bytes on a
copy's stderr are escaped. docs/security-tests.md ("A local sandbox's ways out")
lists the classes."""
import os
import resource
import shutil
import signal
import subprocess
import tempfile
import time

import pytest

from osftest import TestCA as UpstreamCA  # aliased: pytest would collect a Test* class
from osftest.tiny_root import make_tiny_root
from osftest.waiting import wait_until
from test_local_boundary import runner_for

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")

SECRET = f"osf-walk-real-secret-{os.getpid()}"


@pytest.fixture(scope="module")
def ca():
    with tempfile.TemporaryDirectory(prefix="oslw-ca-") as d:
        os.chmod(d, 0o755)
        yield UpstreamCA(d)


@pytest.fixture(scope="module", params=["root", "user"])
def runner(request, ca):
    with runner_for(request.param, ca) as r:
        # The caller's environment holds a real secret: no host tool may carry it anywhere.
        r.env["OSF_SECRET_WALK_TOKEN"] = SECRET
        yield r


@pytest.fixture(scope="module")
def sandbox(runner):
    return runner.create({"template": "host"})


def files_holding(root, needle):
    found = []
    for directory, dirs, files in os.walk(root):
        for name in files:
            path = os.path.join(directory, name)
            try:
                with open(path, "rb") as f:
                    if needle in f.read(1 << 20):
                        found.append(path)
            except OSError:
                pass
    return found


# ---- 1. Walks the sandbox can change while they walk -------------------------------

# Watches /workspace/race with inotify; each time a host tool opens the directory
# race/d, swaps it for a symlink to /proc/self (then back, for the next round).
# Bounded: at most `rounds` swaps and `seconds` seconds, or until /workspace/racer.stop.
RACER = r"""
import ctypes, os, struct, sys, time
libc = ctypes.CDLL(None, use_errno=True)
IN_OPEN, IN_ISDIR = 0x20, 0x40000000
rounds, seconds = int(sys.argv[1]), float(sys.argv[2])
os.chdir("/workspace/race")
fd = libc.inotify_init1(os.O_NONBLOCK)
libc.inotify_add_watch(fd, b"/workspace/race", IN_OPEN)
open("/workspace/racer.ready", "w").close()
deadline, swaps = time.time() + seconds, 0
import select
while swaps < rounds and time.time() < deadline and not os.path.exists("/workspace/racer.stop"):
    if not select.select([fd], [], [], 0.5)[0]:
        continue
    data = os.read(fd, 65536)
    hit, offset = False, 0
    while offset < len(data):
        wd, mask, cookie, size = struct.unpack_from("iIII", data, offset)
        name = data[offset + 16:offset + 16 + size].rstrip(b"\0")
        offset += 16 + size
        hit = hit or (mask & IN_ISDIR and name == b"d")
    if not hit or not os.path.isdir("d") or os.path.islink("d"):
        continue
    os.rename("d", "d.real")
    os.symlink("/proc/self", "d")
    swaps += 1
    time.sleep(0.5)
    os.unlink("d")
    os.rename("d.real", "d")
print(swaps)
"""

# A directory holding only names /proc/self also has (a path-by-path copy then still
# succeeds through the swapped link), the first a large file that keeps the copy busy
# while the swap happens, environ last.
RACE_TREE = ("rm -rf /workspace/race && mkdir -p /workspace/race/d && cd /workspace/race/d && "
             "head -c 64M /dev/zero > auxv && for n in cmdline comm status environ; do echo decoy > $n; done")
PROC_NAMES = ("auxv", "cmdline", "comm", "status", "environ")


def stop_racer(runner, sandbox_id):
    open(os.path.join(runner.dir(sandbox_id), "workspace", "racer.stop"), "w").close()


def test_a_snapshot_raced_by_symlink_swaps_copies_nothing_of_the_host(runner):
    sandbox_id = runner.create({"template": "host"})
    assert runner.sh(sandbox_id, RACE_TREE).returncode == 0
    assert runner.run("exec", sandbox_id, "--", "sh", "-c", "cat > /workspace/racer.py",
                      input=RACER).returncode == 0
    racer = runner.popen("exec", sandbox_id, "--", "python3", "/workspace/racer.py", "30", "90",
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert wait_until(lambda: os.path.exists(os.path.join(runner.dir(sandbox_id), "workspace",
                                                              "racer.ready")), 30)
        snapshots, started = [], time.monotonic()
        for _ in range(8):  # bounded: 8 snapshots, 120 s
            if time.monotonic() - started > 120:
                break
            res = runner.run("snapshot", sandbox_id, timeout=120)
            assert res.returncode == 0, res.stderr
            snapshots.append(os.path.join(runner.state, "snapshots", res.stdout.strip(), "workspace"))
            time.sleep(1.1)  # snapshot names are per second
        for snapshot in snapshots:
            assert files_holding(snapshot, SECRET.encode()) == [], snapshot
            assert files_holding(snapshot, b"OSF_SECRET_") == [], snapshot
            link = os.path.join(snapshot, "race", "d")
            # d is a directory of decoys, or the symlink copied as a symlink: never followed.
            assert os.path.islink(link) or os.path.isdir(link)
            if os.path.isdir(link) and not os.path.islink(link):
                for name in PROC_NAMES[1:]:
                    path = os.path.join(link, name)
                    if os.path.exists(path):
                        with open(path) as f:
                            assert f.read() == "decoy\n", path
        # A sandbox made from a snapshot reads nothing of the CLI's either.
        made = runner.create({"template": os.path.basename(os.path.dirname(snapshots[-1]))},
                             name="from-snapshot.json")
        res = runner.sh(made, "cat /workspace/race/d/environ /workspace/race/d.real/environ 2>/dev/null; true")
        assert SECRET not in res.stdout
    finally:
        stop_racer(runner, sandbox_id)
        racer.wait(timeout=120)


def test_a_copy_out_raced_by_symlink_swaps_brings_only_the_sandboxs_files(runner):
    """copy out reads inside the sandbox (its tar, its cat), where /proc/self is the
    sandbox's own; the host side only unpacks a private staging directory."""
    sandbox_id = runner.create({"template": "host"})
    assert runner.sh(sandbox_id, RACE_TREE).returncode == 0
    assert runner.run("exec", sandbox_id, "--", "sh", "-c", "cat > /workspace/racer.py",
                      input=RACER).returncode == 0
    racer = runner.popen("exec", sandbox_id, "--", "python3", "/workspace/racer.py", "20", "60",
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out_root = tempfile.mkdtemp(prefix="oslw-out-", dir=runner.home)
    if runner.mode == "user":
        from test_local_boundary import NOBODY, NOBODY_GID
        os.chown(out_root, NOBODY, NOBODY_GID)
    try:
        assert wait_until(lambda: os.path.exists(os.path.join(runner.dir(sandbox_id), "workspace",
                                                              "racer.ready")), 30)
        for attempt in range(5):
            out = os.path.join(out_root, f"o{attempt}")
            res = runner.run("copy", f"{sandbox_id}:race", out, timeout=120)
            assert res.returncode in (0, 1), res.stderr
            assert files_holding(out_root, SECRET.encode()) == []
            for directory, dirs, files in os.walk(out_root):
                for name in dirs + files:
                    assert not os.path.islink(os.path.join(directory, name))
    finally:
        stop_racer(runner, sandbox_id)
        racer.wait(timeout=120)


# ---- 2. What a copy out writes on the host --------------------------------------------

def staging_left(runner, sandbox_id):
    return [n for n in os.listdir(runner.dir(sandbox_id)) if n.startswith("copy-")]


def out_dir(runner):
    path = tempfile.mkdtemp(prefix="oslw-out-", dir=runner.home)
    if runner.mode == "user":
        from test_local_boundary import NOBODY, NOBODY_GID
        os.chown(path, NOBODY, NOBODY_GID)
    return path


def test_a_sparse_file_copied_out_stops_at_the_bound(runner, sandbox):
    res = runner.sh(sandbox, "mkdir -p sparse && truncate -s 256M sparse/big && echo small > sparse/small")
    assert res.returncode == 0, res.stderr
    out = out_dir(runner)
    bounded = {"OSF_SANDBOX_COPY_LIMIT": "16Mi"}
    for source, target in (("sparse/big", "big"), ("sparse", "tree")):
        res = runner.run("copy", f"{sandbox}:{source}", os.path.join(out, target), env=bounded, timeout=120)
        assert res.returncode == 1, (source, res.returncode, res.stderr[-500:])
        assert f"sent more than 16 MiB (its storage, or OSF_SANDBOX_COPY_LIMIT); nothing was written" \
            in res.stderr, res.stderr
        assert not os.path.lexists(os.path.join(out, target)), source
        assert staging_left(runner, sandbox) == []
    # Under the bound the same copies work.
    res = runner.run("copy", f"{sandbox}:sparse/small", os.path.join(out, "small"), env=bounded)
    assert res.returncode == 0, res.stderr
    assert open(os.path.join(out, "small")).read() == "small\n"
    res = runner.run("copy", f"{sandbox}:sparse", os.path.join(out, "whole"),
                     env={"OSF_SANDBOX_COPY_LIMIT": "512Mi"}, timeout=180)
    assert res.returncode == 0, res.stderr
    assert os.path.getsize(os.path.join(out, "whole", "big")) == 256 << 20
    # A bad bound is a usage error.
    res = runner.run("copy", f"{sandbox}:sparse/small", os.path.join(out, "x"),
                     env={"OSF_SANDBOX_COPY_LIMIT": "lots"})
    assert res.returncode == 2 and "OSF_SANDBOX_COPY_LIMIT must be a size" in res.stderr, res.stderr


def test_the_storage_bounds_a_copy_out(runner):
    from test_local_boundary import create_unless_refused
    sandbox_id = create_unless_refused(runner, {"template": "host", "storage": "64Mi"}, "storage-walk.json",
                                       "storage")
    if sandbox_id is None:
        return
    assert runner.sh(sandbox_id, "truncate -s 1G /workspace/huge").returncode == 0
    out = out_dir(runner)
    res = runner.run("copy", f"{sandbox_id}:huge", os.path.join(out, "huge"), timeout=120)
    assert res.returncode == 1, res.stderr[-500:]
    assert "sent more than 64 MiB" in res.stderr
    assert not os.path.lexists(os.path.join(out, "huge"))
    res = runner.run("snapshot", sandbox_id, timeout=120)
    assert res.returncode == 1 and "snapshot: the workspace holds more than 64 MiB" in res.stderr, res.stderr
    assert not [n for n in os.listdir(os.path.join(runner.state, "snapshots"))
                if n.startswith(f"osf-snap-{sandbox_id}")] if os.path.isdir(
        os.path.join(runner.state, "snapshots")) else True


def test_a_fifo_or_a_device_is_refused_not_copied(runner, sandbox):
    assert runner.sh(sandbox, "rm -f fifo zero && mkfifo fifo && ln -s /dev/zero zero").returncode == 0
    out = out_dir(runner)
    for source in ("fifo", "zero", "/dev/zero", "/dev/urandom"):
        res = runner.run("copy", f"{sandbox}:{source}", os.path.join(out, "x"), timeout=60)
        assert res.returncode == 1, (source, res.stderr)
        assert "is not a regular file or a directory" in res.stderr, res.stderr
        assert not os.path.lexists(os.path.join(out, "x"))


# ---- 3. A command cannot stop what stops it ---------------------------------------------

STOP_HELPER = r"""
import fcntl, os, signal, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
helper = os.getppid()
with open("/workspace/stopper.pid", "w") as f:
    f.write(str(os.getpid()))
if sys.argv[1] == "pidfd":
    fd = os.open(f"/proc/{helper}", os.O_RDONLY | os.O_DIRECTORY)
    signal.pidfd_send_signal(fd, signal.SIGSTOP)
else:  # SIGIO: the next byte the CLI writes to our stdin stops the helper
    F_SETSIG = 10
    fcntl.fcntl(0, fcntl.F_SETOWN, helper)
    fcntl.fcntl(0, F_SETSIG, signal.SIGSTOP)
    fcntl.fcntl(0, fcntl.F_SETFL, fcntl.fcntl(0, fcntl.F_GETFL) | os.O_ASYNC)
print("armed", flush=True)
time.sleep(300)
"""


def alive_inside(runner, sandbox_id, pidfile):
    res = runner.sh(sandbox_id, f"p=$(cat {pidfile} 2>/dev/null) && kill -0 \"$p\" 2>/dev/null && echo alive || echo gone",
                    timeout=60)
    return res.stdout.strip()


@pytest.mark.parametrize("how", ["pidfd", "sigio"])
def test_a_command_that_stops_its_helper_is_still_stopped_at_the_timeout(runner, how):
    sandbox_id = runner.create({"template": "host"})
    assert runner.run("exec", sandbox_id, "--", "sh", "-c", "cat > /workspace/stopper.py",
                      input=STOP_HELPER).returncode == 0
    proc = runner.popen("exec", sandbox_id, "--timeout", "4s", "--", "python3", "/workspace/stopper.py", how,
                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert proc.stdout.readline() == b"armed\n"
        if how == "sigio":
            proc.stdin.write(b"x\n")
            proc.stdin.flush()
        code = proc.wait(timeout=90)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert code == 137
    # the helper was killed (timeout 4 s, grace 5 s, margin 3 s) and the command with it: not
    # given up on after 35 s with the command running on
    assert wait_until(lambda: alive_inside(runner, sandbox_id, "/workspace/stopper.pid") == "gone", 20)
    assert runner.sh(sandbox_id, "echo still-serving").stdout == "still-serving\n"


# Left running after its exec: stops every exec helper it sees (the agent's children). It holds
# a write lease on /workspace/f, so a helper opening f to copy it waits there (up to the
# kernel's lease-break-time, 45 s by default) until the stopper, polling, has stopped it: the
# stopper wins every time, whatever the machine's load, and not only when its poll is quick.
HELPER_STOPPER = r"""
import fcntl, os, signal, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
signal.signal(signal.SIGIO, signal.SIG_IGN)  # the lease break's notice; the lease is kept
if os.fork():
    os._exit(0)
os.setsid()
me, deadline = os.getpid(), time.time() + 120
lease = os.open("/workspace/f", os.O_RDONLY)
fcntl.fcntl(lease, fcntl.F_SETLEASE, fcntl.F_WRLCK)
# The helper of the exec that started it is left alone: stopped, that exec would never end.
earlier = {int(n) for n in os.listdir("/proc") if n.isdigit()}
open("/workspace/helper-stopper.ready", "w").close()
while time.time() < deadline and not os.path.exists("/workspace/helper-stopper.end"):
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) in (1, me) or int(name) in earlier:
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                stat = f.read()
            if int(stat.rsplit(")", 1)[1].split()[1]) != 1:
                continue
            fd = os.open(f"/proc/{name}", os.O_RDONLY | os.O_DIRECTORY)
            signal.pidfd_send_signal(fd, signal.SIGSTOP)
            os.close(fd)
        except (OSError, ValueError, IndexError):
            pass
    time.sleep(0.005)
open("/workspace/helper-stopper.ended", "w").close()
"""


def test_a_process_that_stops_every_later_helper_does_not_hang_copy(runner):
    sandbox_id = runner.create({"template": "host"})
    assert runner.run("exec", sandbox_id, "--", "sh", "-c", "cat > /workspace/hs.py && echo x > /workspace/f",
                      input=HELPER_STOPPER).returncode == 0
    assert runner.run("exec", sandbox_id, "--", "python3", "/workspace/hs.py").returncode == 0
    assert wait_until(lambda: os.path.exists(os.path.join(runner.dir(sandbox_id), "workspace",
                                                          "helper-stopper.ready")), 30)
    out = out_dir(runner)
    res = runner.run("copy", f"{sandbox_id}:f", os.path.join(out, "f"),
                     env={"OSF_SANDBOX_COPY_TIMEOUT": "3"}, timeout=90)
    assert res.returncode == 1, res.stderr
    assert "did not finish within 3 s (OSF_SANDBOX_COPY_TIMEOUT)" in res.stderr, res.stderr
    assert not os.path.lexists(os.path.join(out, "f"))
    # The agent still serves: a helper stopped between its fork and its set-up's end did not
    # stop the agent with it (it once waited there for good, and every later exec hung).
    workspace = os.path.join(runner.dir(sandbox_id), "workspace")
    end = os.path.join(workspace, "helper-stopper.end")
    open(end, "w").close()
    os.chown(end, os.stat(workspace).st_uid, os.stat(workspace).st_gid)
    assert wait_until(lambda: os.path.exists(os.path.join(workspace, "helper-stopper.ended")), 30)
    assert runner.sh(sandbox_id, "echo still-serving", timeout=60).stdout == "still-serving\n"
    assert runner.run("destroy", sandbox_id, timeout=60).returncode == 0


# ---- 4. Trees of any depth are removed ------------------------------------------------------

DEEP = r"""
import os, sys
os.chdir("/workspace")
os.mkdir("deep")
os.chdir("deep")
for i in range(int(sys.argv[1])):
    os.mkdir("d")
    os.chdir("d")
open("leaf", "w").write("leaf\n")
os.symlink("/etc/passwd", "passwd")
os.chdir("/workspace")
os.chmod("deep/d", 0)  # unreadable near the top
print("built")
"""


@pytest.mark.parametrize("depth", [1500, 25000])
def test_a_deep_tree_is_destroyed(runner, depth):
    sandbox_id = runner.create({"template": "host"})
    res = runner.run("exec", sandbox_id, "--", "python3", "-c", DEEP, str(depth), timeout=300)
    assert res.stdout == "built\n", res.stderr
    # As from a shell with the usual 1,024 descriptors.
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    res = runner.run("destroy", sandbox_id, timeout=300,
                     preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (1024, hard)))
    assert res.returncode == 0, res.stderr
    assert not os.path.lexists(runner.dir(sandbox_id))
    assert os.path.exists("/etc/passwd")


# ---- 5. exec's own streams -------------------------------------------------------------------

def test_a_command_closing_its_stdin_does_not_kill_exec(runner, sandbox):
    res = subprocess.run(runner.argv("exec", sandbox, "--", "sh", "-c",
                                     "exec 0<&-; sleep 1; echo done; exit 7"),
                         input=b"x" * (8 << 20), capture_output=True, env=runner.env, timeout=120)
    assert res.returncode == 7, (res.returncode, res.stderr)
    assert res.stdout == b"done\n"


def test_the_sandboxs_bytes_on_a_copys_stderr_are_escaped(runner, tmp_path):
    """The sandbox's cat and tar (which a process left running could also have
    written through /proc/<pid>/fd/2) put terminal escapes on the copy's stderr."""
    root = make_tiny_root(["/bin/sh", "/bin/cat", "/usr/bin/test", "/bin/mkdir"], prefix="oslw-root-")
    try:
        bin_dir = os.path.join(root, "bin")
        os.rename(os.path.join(bin_dir, "cat"), os.path.join(bin_dir, "cat-real"))
        scripts = {"cat": "printf '\\033]0;owned\\007\\033[2J' >&2\nexec /bin/cat-real \"$@\"\n",
                   "tar": "printf 'tar: \\033]0;owned\\007\\n' >&2\nexit 2\n"}
        for name, body in scripts.items():
            with open(os.path.join(bin_dir, name), "w") as f:
                f.write("#!/bin/sh\n" + body)
            os.chmod(os.path.join(bin_dir, name), 0o755)
        for directory, dirs, files in os.walk(root):
            os.chmod(directory, 0o755)
        sandbox_id = runner.create({"template": root}, name="escapes.json")
        workspace = os.path.join(runner.dir(sandbox_id), "workspace")
        res = runner.run("exec", sandbox_id, "--", "/bin/sh", "-c", "echo hi > /workspace/f && /bin/mkdir /workspace/d")
        assert res.returncode == 0, res.stderr
        out = out_dir(runner)
        for source in ("f", "d"):
            res = runner.run("copy", f"{sandbox_id}:{source}", os.path.join(out, source))
            assert "\x1b" not in res.stderr and "\x07" not in res.stderr, repr(res.stderr)
            assert "\\x1b]0;owned\\x07" in res.stderr, repr(res.stderr)
        assert os.path.exists(workspace)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def test_a_caller_that_stops_reading_still_ends_exec_and_its_command(runner, sandbox):
    """SIGPIPE is ignored while exec runs (above); a caller's reader that goes still ends
    it as SIGPIPE would (exit 141), and the command with it."""
    proc = runner.popen("exec", sandbox, "--", "sh", "-c", "echo $$ > /workspace/yes.pid; exec yes",
                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdout.read(4096)
    proc.stdout.close()
    assert proc.wait(timeout=60) in (141, -signal.SIGPIPE)
    assert wait_until(lambda: alive_inside(runner, sandbox, "/workspace/yes.pid") == "gone", 30)
