"""sandbox-local as a boundary, attacked from inside with the real CLI, bubblewrap and
egress-proxy, as root and as an ordinary user (nobody, through setpriv). Each class of
way out is tried the way an attacker would: host root and host ids, the caller's and
the supervisor's descriptors, host files handed in by copy and exec, system calls the
kernel offers, limits, the read-only root, what an exec leaves behind, and spec
fields a backend could silently ignore. docs/security-tests.md ("A local sandbox's
ways out") lists the classes and their results."""
import contextlib
import errno
import grp
import json
import os
import pty
import pwd
import re
import select
import shutil
import signal
import socket
import stat
import subprocess
import tempfile
import termios
import time

import pytest

from osftest import TestCA as UpstreamCA  # aliased: pytest would collect a Test* class
from osftest import proxy_bin
from osftest.waiting import wait_until
from osftest.tiny_root import make_tiny_root
from test_local_sandbox import local_bin

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")

# The ordinary user the "user" runs switch to: nobody, or OSF_TEST_USER (a user made with useradd).
_TEST_USER = pwd.getpwnam(os.environ.get("OSF_TEST_USER", "nobody"))
NOBODY, NOBODY_GID = _TEST_USER.pw_uid, _TEST_USER.pw_gid


def reachable_by_others(path):
    path = os.path.realpath(path)
    while path != "/":
        if not os.stat(path).st_mode & 0o001:
            return False
        path = os.path.dirname(path)
    return True


class Runner:
    """sandbox-local with its own state directory, as root or as nobody."""

    def __init__(self, mode, home, ca_path):
        self.mode = mode
        self.home = home
        self.env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "HOME": home, "LANG": "C.UTF-8",
                    "OSF_EGRESS_PROXY_BIN": proxy_bin(), "OSF_UPSTREAM_CA_BUNDLE": ca_path,
                    "OSF_SANDBOX_START_TIMEOUT": "60"}
        if mode == "root":
            self.env["OSF_SANDBOX_LOCAL_STATE_DIR"] = os.path.join(home, "state")
            self.state = self.env["OSF_SANDBOX_LOCAL_STATE_DIR"]
        else:
            self.env["XDG_STATE_HOME"] = os.path.join(home, "xdg")
            self.state = os.path.join(home, "xdg", "osf-sandbox-local")

    def argv(self, *args):
        prefix = [] if self.mode == "root" else ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY_GID}",
                                                 "--clear-groups"]
        return [*prefix, local_bin(), *args]

    def run(self, *args, input=None, timeout=120, env=None, **kwargs):
        return subprocess.run(self.argv(*args), capture_output=True, text=True, input=input,
                              env={**self.env, **(env or {})}, timeout=timeout, **kwargs)

    def popen(self, *args, env=None, **kwargs):
        return subprocess.Popen(self.argv(*args), env={**self.env, **(env or {})}, **kwargs)

    def spec_file(self, spec, name):
        path = os.path.join(self.home, name)
        with open(path, "w") as f:
            json.dump(spec, f)
        os.chmod(path, 0o644)
        return path

    def create(self, spec, name="spec.json", **kwargs):
        res = self.run("create", self.spec_file(spec, name), **kwargs)
        assert res.returncode == 0, res.stderr
        sandbox_id = res.stdout.strip()
        assert re.fullmatch(r"[0-9a-f]{12}", sandbox_id), res.stdout
        return sandbox_id

    def sh(self, sandbox_id, script, **kwargs):
        return self.run("exec", sandbox_id, "--", "sh", "-c", script, **kwargs)

    def python(self, sandbox_id, code, **kwargs):
        return self.run("exec", sandbox_id, "--", "python3", "-c", code, **kwargs)

    def dir(self, sandbox_id):
        return os.path.join(self.state, "sandboxes", sandbox_id)

    def supervisor_pid(self, sandbox_id):
        with open(os.path.join(self.dir(sandbox_id), "supervisor.pid")) as f:
            return int(f.read())

    def user_file(self, name, text):
        path = os.path.join(self.home, name)
        with open(path, "w") as f:
            f.write(text)
        if self.mode != "root":
            os.chown(path, NOBODY, NOBODY_GID)
        return path


@pytest.fixture(scope="module")
def ca():
    with tempfile.TemporaryDirectory(prefix="oslb-ca-") as d:
        os.chmod(d, 0o755)
        yield UpstreamCA(d)


@contextlib.contextmanager
def runner_for(mode, ca):
    if os.geteuid() != 0:
        pytest.skip("the boundary tests run as root and switch to nobody themselves")
    if mode == "user":
        if shutil.which("setpriv") is None:
            pytest.skip("setpriv is missing")
        for binary in (local_bin(), proxy_bin()):
            if not reachable_by_others(binary):
                pytest.skip(f"{binary} is not reachable by other users")
    home = tempfile.mkdtemp(prefix=f"oslb-{mode}-", dir="/tmp")
    os.chmod(home, 0o755)
    ca_copy = os.path.join(home, "upstream-ca.crt")
    shutil.copy(ca.cert_path, ca_copy)
    os.chmod(ca_copy, 0o644)
    if mode == "user":
        os.chown(home, NOBODY, NOBODY_GID)
    runner = Runner(mode, home, ca_copy)
    try:
        yield runner
    finally:
        sandboxes = os.path.join(runner.state, "sandboxes")
        for sandbox_id in os.listdir(sandboxes) if os.path.isdir(sandboxes) else []:
            runner.run("destroy", sandbox_id, timeout=60)
        subprocess.run(["rm", "-rf", "--one-file-system", home])


@pytest.fixture(scope="module", params=["root", "user"])
def runner(request, ca):
    with runner_for(request.param, ca) as r:
        yield r


LIMITED = {"template": "host", "memory": "256Mi", "cpu": "1"}


@pytest.fixture(scope="module")
def sandbox(runner):
    """With cpu and memory limits where this host lets the caller enforce them (an
    ordinary user on cgroup v1 cannot, nor root where no cgroup is mounted:
    test_memory_limit_holds checks the refusal)."""
    res = runner.run("create", runner.spec_file(LIMITED, "limited.json"))
    runner.limited = res.returncode == 0
    if res.returncode == 2 and may_refuse(runner, "memory"):
        return runner.create({"template": "host"})
    assert res.returncode == 0, res.stderr
    return res.stdout.strip()


def sandbox_processes(runner, sandbox_id):
    """Host PIDs of bwrap and of every process inside the sandbox (the supervisor's
    descendants but its egress proxy)."""
    children = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        with contextlib.suppress(OSError, IndexError, ValueError):
            with open(f"/proc/{pid}/stat") as f:
                children.setdefault(int(f.read().rsplit(")", 1)[1].split()[1]), []).append(int(pid))
    found, frontier = [], []
    for pid in children.get(runner.supervisor_pid(sandbox_id), []):
        with contextlib.suppress(OSError):
            with open(f"/proc/{pid}/comm") as f:
                if f.read().strip() != "egress-proxy":
                    frontier.append(pid)
    while frontier:
        pid = frontier.pop()
        found.append(pid)
        frontier.extend(children.get(pid, []))
    return found


def machine_has_cgroups():
    with open("/proc/self/mountinfo") as f:
        return any(line.split(" - ")[1].split()[0] in ("cgroup", "cgroup2") for line in f if " - " in line)


def may_refuse(runner, field):
    """Whether create may refuse `field` here: an ordinary user's sandbox-local, or root's on a
    machine with no cgroup hierarchy mounted at all (cpu and memory then have nothing to hold them)."""
    return runner.mode == "user" or (field in ("cpu", "memory") and not machine_has_cgroups())


def create_unless_refused(runner, spec, name, field):
    """The new sandbox's ID, or None when create refused the spec for `field` (exit 2), which
    only may_refuse() allows: a limit it cannot enforce is refused, never dropped."""
    res = runner.run("create", runner.spec_file(spec, name))
    if res.returncode == 2:
        assert field in res.stderr and may_refuse(runner, field), res.stderr
        return None
    assert res.returncode == 0, res.stderr
    return res.stdout.strip()


def host_ids(pid):
    """The real, effective, saved and file system uids and gids of a process, as the host sees them."""
    ids = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(("Uid:", "Gid:")):
                ids[line[:3]] = {int(x) for x in line.split()[1:]}
    return ids


def owner_ids_of_host_files():
    """Every uid and gid owning a file in the places sandboxes see or people keep files."""
    owners = set()
    for top in ("/usr", "/etc", "/home", "/root", "/var", "/opt", "/srv"):
        for count, (dirpath, dirnames, filenames) in enumerate(os.walk(top)):
            for name in dirnames + filenames:
                with contextlib.suppress(OSError):
                    info = os.lstat(os.path.join(dirpath, name))
                    owners.update((info.st_uid, info.st_gid))
            if count > 20000:
                break
    return owners


def assert_unprivileged_host_ids(runner, sandbox_id):
    res = runner.sh(sandbox_id, "sleep 20 & echo $!")  # a process inside while we look
    assert res.returncode == 0, res.stderr
    pids = sandbox_processes(runner, sandbox_id)
    assert len(pids) >= 3, pids  # bwrap, its init, the agent (and the sleep)
    seen = set()
    for pid in pids:
        with contextlib.suppress(FileNotFoundError):
            ids = host_ids(pid)
            seen |= ids["Uid"] | ids["Gid"]
    assert 0 not in seen, seen
    if runner.mode == "root":
        # one host id of its own: no account, no group, no host file owned by it
        assert len(seen) == 1, seen
        (own,) = seen
        with pytest.raises(KeyError):
            pwd.getpwuid(own)
        with pytest.raises(KeyError):
            grp.getgrgid(own)
        assert own not in owner_ids_of_host_files()
    else:
        assert seen == {NOBODY}, seen  # an ordinary user's sandbox runs as that user
    return seen


def test_no_process_inside_is_host_root_or_an_owner_of_host_files(runner, sandbox):
    assert_unprivileged_host_ids(runner, sandbox)


def test_the_specs_user_maps_to_the_same_unprivileged_host_id(runner):
    sandbox_id = runner.create({"template": "host", "user": {"uid": 1000, "gid": 1000}}, name="user.json")
    res = runner.sh(sandbox_id, "id -u; id -g")
    assert res.stdout.split() == ["1000", "1000"], res.stdout
    assert_unprivileged_host_ids(runner, sandbox_id)
    assert runner.run("destroy", sandbox_id).returncode == 0


def test_two_sandboxes_have_different_host_ids(runner):
    if runner.mode != "root":
        pytest.skip("an ordinary user's sandboxes all run as that user")
    first = runner.create({"template": "host"}, name="ids1.json")
    second = runner.create({"template": "host"}, name="ids2.json")
    assert assert_unprivileged_host_ids(runner, first) != assert_unprivileged_host_ids(runner, second)
    for sandbox_id in (first, second):
        assert runner.run("destroy", sandbox_id).returncode == 0


def test_workspace_files_belong_to_the_sandboxes_host_id(runner, sandbox):
    assert runner.sh(sandbox, "echo mine > owned.txt").returncode == 0
    info = os.stat(os.path.join(runner.dir(sandbox), "workspace", "owned.txt"))
    ids = host_ids(sandbox_processes(runner, sandbox)[0])
    assert info.st_uid in ids["Uid"] and info.st_uid != 0


def test_host_kernel_knobs_cannot_be_written(runner, sandbox):
    with open("/proc/sys/kernel/core_pattern") as f:
        core_pattern = f.read()
    code = r"""
import os
for path in ("/proc/sys/kernel/core_pattern", "/proc/sys/kernel/modprobe", "/proc/sys/vm/drop_caches",
             "/proc/sysrq-trigger", "/proc/sys/kernel/hostname", "/proc/sys/net/ipv4/ip_forward"):
    try:
        fd = os.open(path, os.O_WRONLY)
    except OSError as e:
        print(path, "refused", e.errno)
        continue
    try:
        os.write(fd, b"|/tmp/pwn\n" if path.endswith("core_pattern") else b"1\n")
        print(path, "WRITTEN")
    except OSError as e:
        print(path, "write-refused", e.errno)
"""
    res = runner.python(sandbox, code)
    assert res.returncode == 0, res.stderr
    assert "WRITTEN" not in res.stdout, res.stdout
    assert res.stdout.count("refused") == 6, res.stdout
    with open("/proc/sys/kernel/core_pattern") as f:
        assert f.read() == core_pattern


def test_device_nodes_cannot_be_changed_on_the_host(runner, sandbox):
    before = os.stat("/dev/full")
    res = runner.sh(sandbox, "chmod 600 /dev/full; touch -d 2001-01-01 /dev/full; chown 0:0 /dev/null; "
                             "mknod /workspace/node c 1 3; ls -l /dev/full; echo hi > /dev/null && echo null-ok")
    after = os.stat("/dev/full")
    assert (after.st_mode, after.st_mtime, after.st_uid) == (before.st_mode, before.st_mtime, before.st_uid)
    assert "null-ok" in res.stdout
    assert not os.path.exists(os.path.join(runner.dir(sandbox), "workspace", "node"))


@pytest.fixture(scope="module")
def tiny_root():
    """A root file system directory with a root-only file below a world-readable /etc entry."""
    root = make_tiny_root(["/bin/sh", "/bin/cat", "/bin/ls"], prefix="oslb-root-")
    os.chmod(root, 0o755)
    os.makedirs(os.path.join(root, "etc", "security"))
    os.chmod(os.path.join(root, "etc", "security"), 0o755)
    secret = os.path.join(root, "etc", "security", "opasswd")
    with open(secret, "w") as f:
        f.write("root-only-content\n")
    os.chmod(secret, 0o600)
    yield root
    shutil.rmtree(root, ignore_errors=True)


def test_root_only_files_under_shown_etc_entries_stay_unreadable(runner, tiny_root):
    sandbox_id = runner.create({"template": tiny_root}, name="tiny.json")
    res = runner.sh(sandbox_id, "ls /etc/security; cat /etc/security/opasswd")
    assert "root-only-content" not in res.stdout, res.stdout
    assert runner.run("destroy", sandbox_id).returncode == 0


# ---- 2. The caller's and the supervisor's descriptors never reach a command ----------

FD_SURVEY = r"""
import os, socket, sys
mine = sorted(int(n) for n in os.listdir("/proc/self/fd"))
print("own", mine)
reachable = []
for pid in os.listdir("/proc"):
    if not pid.isdigit() or int(pid) == os.getpid():
        continue
    try:
        names = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        continue
    for name in names:
        try:
            target = os.readlink(f"/proc/{pid}/fd/{name}")
        except OSError:
            continue
        reachable.append((pid, name, target))
        if target.startswith("/") and not target.startswith(("/dev/", "/proc/")):
            try:
                fd = os.open(f"/proc/{pid}/fd/{name}", os.O_WRONLY | os.O_APPEND)
                os.write(fd, b"MARK-FROM-INSIDE\n")
                print("wrote", pid, name, target)
            except OSError:
                pass
        if target.startswith("socket:"):
            try:
                fd = os.open(f"/proc/{pid}/fd/{name}", os.O_RDWR)
                print("opened-socket", pid, name)
            except OSError:
                pass
print("reachable", reachable)
"""


def test_a_connection_the_caller_holds_is_not_inside(runner, tmp_path):
    listener = socket.create_server(("127.0.0.1", 0))
    client = socket.create_connection(listener.getsockname())
    peer, _ = listener.accept()
    client.setblocking(True)
    os.set_inheritable(client.fileno(), True)
    try:
        sandbox_id = runner.create({"template": "host"}, name="fds.json", pass_fds=[client.fileno()])
        res = runner.run("exec", sandbox_id, "--", "python3", "-c", FD_SURVEY, pass_fds=[client.fileno()])
        assert res.returncode == 0, res.stderr
        own = json.loads(res.stdout.splitlines()[0][4:])
        assert own == [0, 1, 2, 3], res.stdout  # 3: the listing of /proc/self/fd itself
        assert "opened-socket" not in res.stdout and "wrote" not in res.stdout, res.stdout
        # nothing inside wrote to the caller's connection
        peer.setblocking(False)
        with pytest.raises(BlockingIOError):
            peer.recv(1)
        assert runner.run("destroy", sandbox_id).returncode == 0
    finally:
        for s in (client, peer, listener):
            s.close()


HIJACKER = r"""
import array, os, socket, sys, time
# Looks for any socket it can reach (its own descriptors, every /proc/PID/fd) and
# answers whatever exec request arrives there, for a few seconds.
deadline = time.time() + float(sys.argv[1])
seen = set()
open("/workspace/hijack.ready", "w").close()
while time.time() < deadline:
    for pid in [p for p in os.listdir("/proc") if p.isdigit()]:
        try:
            names = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for name in names:
            key = (pid, name)
            try:
                if not os.readlink(f"/proc/{pid}/fd/{name}").startswith("socket:"):
                    continue
                fd = int(name) if pid == str(os.getpid()) else os.open(f"/proc/{pid}/fd/{name}", os.O_RDWR)
            except OSError:
                continue
            try:
                s = socket.socket(fileno=os.dup(fd))
                s.setblocking(False)
                data, fds, flags, addr = socket.recv_fds(s, 65536, 8)
                for f in fds:
                    os.write(f, b"HIJACKED\n")
                s.send(b"exit 0\n")
                print("answered", key, file=sys.stderr)
            except OSError:
                pass
    time.sleep(0.05)
"""


def test_a_command_cannot_answer_the_operators_next_exec(runner, sandbox):
    path = "/workspace/hijack.py"
    assert runner.run("exec", sandbox, "--", "sh", "-c", f"cat > {path} && rm -f /workspace/hijack.ready",
                      input=HIJACKER).returncode == 0
    background = runner.popen("exec", sandbox, "--", "python3", path, "8", stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        wait_until(lambda: os.path.exists(os.path.join(runner.dir(sandbox), "workspace", "hijack.ready")),
                   60, "the hijacker to start")
        for _ in range(10):
            res = runner.sh(sandbox, "echo real; exit 3")
            assert (res.returncode, res.stdout) == (3, "real\n"), (res.returncode, res.stdout, res.stderr)
    finally:
        background.wait(timeout=60)


def test_state_files_are_not_writable_from_inside(runner, sandbox):
    res = runner.python(sandbox, FD_SURVEY)
    assert res.returncode == 0, res.stderr
    assert "wrote" not in res.stdout, res.stdout
    for dirpath, _, filenames in os.walk(runner.dir(sandbox)):
        if "workspace" in dirpath.split(os.sep):
            continue
        for name in filenames:
            path = os.path.join(dirpath, name)
            with contextlib.suppress(OSError):
                if stat.S_ISREG(os.lstat(path).st_mode):
                    with open(path, "rb") as f:
                        assert b"MARK-FROM-INSIDE" not in f.read(), path


# ---- 3. Host files handed in by copy and exec are never reopened ---------------------

REOPENER = r"""
import os, sys, time
# Watches every process for a descriptor naming a file outside the sandbox's own
# directories and reopens it read-write through /proc; later writes and chmods it.
deadline = time.time() + float(sys.argv[1])
held = []
open("/workspace/reopen.ready", "w").close()
while time.time() < deadline:
    for pid in [p for p in os.listdir("/proc") if p.isdigit()]:
        for n in ("0", "1"):
            try:
                target = os.readlink(f"/proc/{pid}/fd/{n}")
            except OSError:
                continue
            if not target.startswith("/") or target.startswith(("/dev/", "/workspace", "/proc", "/tmp")):
                continue
            try:
                held.append(os.open(f"/proc/{pid}/fd/{n}", os.O_RDWR))
                print("reopened", target, file=sys.stderr)
            except OSError:
                pass
    time.sleep(0.01)
for fd in held:
    try:
        os.lseek(fd, 0, 0)
        os.write(fd, b"PWNED-FROM-INSIDE")
        os.fchmod(fd, 0o4755)
    except OSError:
        pass
"""


def start_reopener(runner, sandbox_id, seconds):
    path = "/workspace/reopen.py"
    assert runner.run("exec", sandbox_id, "--", "sh", "-c", f"cat > {path}", input=REOPENER).returncode == 0
    ready = os.path.join(runner.dir(sandbox_id), "workspace", "reopen.ready")
    with contextlib.suppress(FileNotFoundError):
        os.remove(ready)  # an earlier test's reopener, in the same sandbox
    background = runner.popen("exec", sandbox_id, "--", "python3", path, str(seconds),
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_until(lambda: os.path.exists(ready), 60, "the reopener to start")
    return background


def test_copy_in_never_hands_the_host_file_inside(runner, sandbox):
    source = runner.user_file("copy-in-source", "host content\n")
    background = start_reopener(runner, sandbox, 4)
    try:
        res = runner.run("copy", source, f"{sandbox}:copied-in")
        assert res.returncode == 0, res.stderr
    finally:
        background.wait(timeout=60)
    with open(source) as f:
        assert f.read() == "host content\n"
    assert os.stat(source).st_mode & 0o7777 == 0o644 or os.stat(source).st_mode & 0o4000 == 0


def test_copy_out_is_written_only_by_the_host_side(runner, sandbox):
    assert runner.sh(sandbox, "printf 'sandbox content\\n' > out.txt").returncode == 0
    destination = os.path.join(runner.home, "copied-out.txt")
    background = start_reopener(runner, sandbox, 4)
    try:
        res = runner.run("copy", f"{sandbox}:out.txt", destination)
        assert res.returncode == 0, res.stderr
    finally:
        background.wait(timeout=60)
    with open(destination) as f:
        assert f.read() == "sandbox content\n"
    assert os.stat(destination).st_mode & 0o7000 == 0


def test_exec_stdin_from_a_host_file_is_not_reopened(runner, sandbox):
    source = runner.user_file("exec-stdin", "stdin content\n")
    with open(source) as stdin:
        res = subprocess.run(runner.argv("exec", sandbox, "--", "python3", "-c",
                                         "import os,sys\n"
                                         "print(sys.stdin.read(), end='')\n"
                                         "print(os.readlink('/proc/self/fd/0').split(':')[0])\n"
                                         "try:\n fd=os.open('/proc/self/fd/0', os.O_RDWR); os.write(fd, b'PWNED')\n"
                                         "except OSError as e: pass\n"),
                             stdin=stdin, capture_output=True, text=True, env=runner.env, timeout=60)
    assert res.returncode == 0, res.stderr
    # the command's stdin is a pipe of the CLI's (reopening it reaches only that pipe)
    assert res.stdout == "stdin content\npipe\n", res.stdout
    with open(source) as f:
        assert f.read() == "stdin content\n"


# ---- 4. A system call filter ---------------------------------------------------------

SYSCALLS = r"""
import ctypes, errno, os, socket
libc = ctypes.CDLL(None, use_errno=True)
def call(name, number, *args):
    ctypes.set_errno(0)
    result = libc.syscall(number, *args)
    print(name, "ok" if result >= 0 else errno.errorcode.get(ctypes.get_errno(), ctypes.get_errno()))
for name, family in (("AF_VSOCK", 40), ("AF_ALG", 38), ("AF_PACKET", 17), ("AF_KEY", 15),
                     ("AF_BLUETOOTH", 31), ("AF_TIPC", 30), ("AF_XDP", 44)):
    try:
        socket.socket(family, socket.SOCK_STREAM if family in (40, 30) else socket.SOCK_RAW if family in (17, 15) else socket.SOCK_SEQPACKET)
        print(name, "ok")
    except OSError as e:
        print(name, errno.errorcode.get(e.errno, e.errno))
for name, type_ in (("NETLINK_AUDIT", 9), ("NETLINK_KOBJECT_UEVENT", 15)):
    try:
        socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, type_)
        print(name, "ok")
    except OSError as e:
        print(name, errno.errorcode.get(e.errno, e.errno))
params = ctypes.create_string_buffer(120)
call("io_uring_setup", 425, 8, params)
call("keyctl", 250, 0, -3, 0)          # KEYCTL_GET_KEYRING_ID of the session keyring
call("add_key", 248, b"user", b"osf", b"x", 1, -3)
call("request_key", 249, b"user", b"osf", None, 0)
call("userfaultfd", 323, 0)
call("bpf", 321, 0, None, 0)
call("ptrace_attach_1", 101, 16, 1, 0, 0)
call("ptrace_attach_parent", 101, 16, os.getppid(), 0, 0)
call("process_vm_readv", 310, 1, None, 0, None, 0, 0)
call("unshare_user", 272, 0x10000000)
call("unshare_mount", 272, 0x00020000)
call("setns", 308, 0, 0)
call("mount", 165, b"none", b"/tmp", b"tmpfs", 0, None)
call("pivot_root", 155, b"/", b"/")
call("open_tree", 428, -100, b"/", 0)
call("fsopen", 430, b"tmpfs", 0)
call("perf_event_open", 298, None, 0, -1, -1, 0)
call("kexec_load", 246, 0, 0, None, 0)
call("init_module", 175, None, 0, b"")
print("still alive")
"""

REFUSED = ["AF_VSOCK", "AF_ALG", "AF_PACKET", "AF_KEY", "AF_BLUETOOTH", "AF_TIPC", "AF_XDP",
           "NETLINK_AUDIT", "NETLINK_KOBJECT_UEVENT", "io_uring_setup", "keyctl", "add_key",
           "request_key", "userfaultfd", "bpf", "ptrace_attach_1", "ptrace_attach_parent",
           "process_vm_readv", "unshare_user", "unshare_mount", "setns", "mount", "pivot_root",
           "open_tree", "fsopen", "perf_event_open", "kexec_load", "init_module"]


def test_the_system_call_filter_refuses_with_eperm(runner, sandbox):
    res = runner.python(sandbox, SYSCALLS)
    assert res.returncode == 0, res.stderr
    results = dict(line.split(" ", 1) for line in res.stdout.splitlines() if " " in line)
    assert res.stdout.rstrip().endswith("still alive"), res.stdout
    assert {name: results.get(name) for name in REFUSED} == {name: "EPERM" for name in REFUSED}, res.stdout
    # what programs need still works: TCP through the proxy's port, Unix sockets, netlink routes
    res = runner.python(sandbox, "import socket\n"
                                 "socket.socket(socket.AF_UNIX).close(); socket.socket(socket.AF_INET6).close()\n"
                                 "socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0).close()\n"
                                 "socket.create_connection(('127.0.0.1', 8080)).close(); print('fine')")
    assert res.stdout == "fine\n", res.stderr
    assert runner.sh(sandbox, "ip -o addr | wc -l").stdout.strip() != "0"


MEMORY_OF_OTHERS = r"""
import os
me = os.getpid()
checked = 0
for pid in sorted(int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) != me):
    try:
        with open(f"/proc/{pid}/comm") as f:
            ours = f.read().strip() == "sandbox-local"  # the agent and the exec helpers
    except OSError:
        continue
    if not ours:
        continue  # another exec's command: the sandbox's own code anyway
    checked += 1
    try:
        os.open(f"/proc/{pid}/mem", os.O_RDWR)
        print(pid, "OPEN")
    except OSError:
        pass
print("checked", checked)
"""


def test_no_process_inside_is_open_to_a_commands_memory_writes(runner, sandbox):
    """The sandbox's own processes that are not commands (the agent, the exec helpers) are
    out of reach of /proc/<pid>/mem: none runs outside the system call filter where a
    command could write its code."""
    res = runner.python(sandbox, MEMORY_OF_OTHERS)
    assert res.returncode == 0, res.stderr
    assert "OPEN" not in res.stdout and int(res.stdout.split()[-1]) >= 2, res.stdout  # agent, own helper
    assert runner.sh(sandbox, "cat /proc/1/comm").stdout == "sandbox-local\n"


def test_no_core_dump_reaches_the_hosts_core_pattern(runner, sandbox):
    res = runner.sh(sandbox, "ulimit -c; ulimit -c unlimited 2>/dev/null && echo RAISED; "
                             "sh -c 'kill -SEGV $$'; echo crashed=$?")
    assert res.stdout.split() == ["0", "crashed=139"], (res.stdout, res.stderr)


def test_the_callers_session_keyring_is_not_inside(runner):
    if runner.mode != "root":
        pytest.skip("adds a key to root's session keyring")
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    key = libc.syscall(248, b"user", b"osf-boundary-test", b"keyring-secret", 14, -3)
    if key < 0:
        pytest.skip("this process cannot add a key to its session keyring")
    try:
        sandbox_id = runner.create({"template": "host"}, name="keys.json")
        res = runner.sh(sandbox_id, "cat /proc/keys 2>&1; python3 -c 'import ctypes; l=ctypes.CDLL(None, use_errno=True); "
                                    "b=ctypes.create_string_buffer(64); print(l.syscall(250, 11, %d, b, 64), b.value)'" % key)
        assert b"keyring-secret".decode() not in res.stdout, res.stdout
        assert runner.run("destroy", sandbox_id).returncode == 0
    finally:
        libc.syscall(250, 3, key)  # KEYCTL_REVOKE


def test_a_terminal_inside_is_a_pty_the_cli_owns(runner, sandbox):
    """With a terminal the command gets a pty of the CLI's, never the caller's: TIOCSTI and
    TIOCSCTTY are refused, and nothing typed inside reaches the caller's terminal."""
    master, slave = pty.openpty()
    code = ("import fcntl, os, termios, errno\n"
            "print('tty', os.isatty(0))\n"
            "for name, req, arg in (('TIOCSTI', termios.TIOCSTI, b'x'), ('TIOCSCTTY', termios.TIOCSCTTY, 1),"
            " ('TIOCLINUX', 0x541C, b'\\x06')):\n"
            "    try:\n"
            "        fcntl.ioctl(0, req, arg); print(name, 'ok')\n"
            "    except OSError as e:\n"
            "        print(name, errno.errorcode[e.errno])\n"
            "try:\n"
            "    os.setsid()  # already a session leader: the exec's own session\n"
            "except OSError:\n"
            "    pass\n"
            "try:\n"
            "    fcntl.ioctl(0, termios.TIOCSCTTY, 1); print('takeover ok')\n"
            "except OSError as e:\n"
            "    print('takeover', errno.errorcode[e.errno])\n")
    proc = subprocess.Popen(runner.argv("exec", sandbox, "--", "python3", "-c", code), stdin=slave, stdout=slave,
                            stderr=slave, env={**runner.env, "TERM": "xterm"}, start_new_session=True)
    os.close(slave)
    output = b""
    deadline = time.time() + 60
    while time.time() < deadline:
        ready, _, _ = select.select([master], [], [], 1)
        if ready:
            try:
                chunk = os.read(master, 4096)
            except OSError:
                break
            if not chunk:
                break
            output += chunk
        if proc.poll() is not None and not ready:
            break
    proc.wait(timeout=30)
    os.close(master)
    text = output.decode(errors="replace").replace("\r", "")
    assert "tty True" in text, text
    for name in ("TIOCSTI", "TIOCSCTTY", "TIOCLINUX"):
        assert f"{name} EPERM" in text, text
    assert "takeover EPERM" in text, text


# ---- 5. Limits that hold on this host's cgroups --------------------------------------


def cgroup_version():
    with open("/proc/self/cgroup") as f:
        lines = f.read().splitlines()
    return 2 if lines == ["0::" + lines[0][3:]] else 1


def test_memory_limit_holds(runner):
    sandbox_id = create_unless_refused(runner, {"template": "host", "memory": "96Mi"}, "mem.json", "memory")
    if sandbox_id is None:
        return
    res = runner.python(sandbox_id, "b = bytearray(400 * 1024 * 1024)\n"
                                    "for i in range(0, len(b), 4096): b[i] = 1\n"
                                    "print('allocated')", timeout=120)
    assert "allocated" not in res.stdout, (res.returncode, res.stdout, res.stderr)
    # tmpfs pages count against the same limit
    res = runner.sh(sandbox_id, "head -c 300M /dev/zero > /tmp/big; echo rc=$?; ls -l /tmp/big", timeout=120)
    size = int(re.search(r" (\d+) ", res.stdout.split("\n", 1)[-1] or " 0 ").group(1)) if "big" in res.stdout else 0
    assert size < 200 * 1024 * 1024, res.stdout
    assert runner.run("destroy", sandbox_id).returncode == 0


def test_process_limit_holds(runner):
    sandbox_id = runner.create({"template": "host"}, name="pids.json")
    code = ("import os, time\n"
            "pids = []\n"
            "try:\n"
            "    for i in range(6000):\n"
            "        pid = os.fork()\n"
            "        if pid == 0:\n"
            "            os.execv('/bin/sleep', ['sleep', '60'])\n"
            "        pids.append(pid)\n"
            "except OSError as e:\n"
            "    print('refused after', len(pids), e.errno)\n"
            "else:\n"
            "    print('started', len(pids))\n"
            "for p in pids: os.kill(p, 9)\n"
            "for p in pids: os.waitpid(p, 0)\n")
    res = runner.python(sandbox_id, code, timeout=300)
    assert res.stdout.startswith("refused after"), (res.stdout, res.stderr)
    assert int(res.stdout.split()[2]) <= 4096, res.stdout
    assert runner.sh(sandbox_id, "echo still-serving").stdout == "still-serving\n"
    assert runner.run("destroy", sandbox_id).returncode == 0


def test_cpu_limit_is_applied_to_the_sandbox(runner):
    sandbox_id = create_unless_refused(runner, {"template": "host", "cpu": "1"}, "cpu.json", "cpu")
    if sandbox_id is None:
        return
    bwrap = sandbox_processes(runner, sandbox_id)[0]
    with open(f"/proc/{bwrap}/cgroup") as f:
        lines = f.read().splitlines()
    if cgroup_version() == 1:
        path = next(l.split(":", 2)[2] for l in lines if re.search(r":(cpu|cpu,cpuacct|cpuacct,cpu):", l))
        base = next(p for p in ("/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct") if os.path.isdir(p))
        with open(f"{base}{path}/cpu.cfs_quota_us") as f:
            quota = int(f.read())
        with open(f"{base}{path}/cpu.cfs_period_us") as f:
            period = int(f.read())
    else:
        path = lines[0][3:]
        with open(f"/sys/fs/cgroup{path}/cpu.max") as f:
            quota, period = (int(x) for x in f.read().split())
    assert quota == period, (quota, period)  # cpu: "1"
    assert runner.run("destroy", sandbox_id).returncode == 0


def test_tmpfs_sizes_are_bounded(runner, sandbox):
    res = runner.sh(sandbox, "df -B1 --output=target,size /tmp /dev/shm")
    assert res.returncode == 0, res.stderr
    sizes = {line.split()[0]: int(line.split()[1]) for line in res.stdout.splitlines()[1:]}
    limited = runner.limited
    # as large as the memory limit (the pages count against it), 1 GiB without one; /dev/shm 64 MiB
    assert sizes == {"/tmp": (256 if limited else 1024) * 1024 * 1024, "/dev/shm": 64 * 1024 * 1024}, sizes
    res = runner.sh(sandbox, "head -c 80M /dev/zero > /dev/shm/big; echo rc=$?; rm -f /dev/shm/big")
    assert "rc=0" not in res.stdout, res.stdout


def test_storage_bounds_the_workspace_or_is_refused(runner):
    sandbox_id = create_unless_refused(runner, {"template": "host", "storage": "64Mi"}, "storage.json",
                                       "storage")
    if sandbox_id is None:
        return
    res = runner.sh(sandbox_id, "head -c 200M /dev/zero > /workspace/big; echo rc=$?; df -B1 --output=size /workspace | tail -1",
                    timeout=120)
    assert "rc=0" not in res.stdout, res.stdout
    assert int(res.stdout.split()[-1]) <= 64 * 1024 * 1024, res.stdout
    assert runner.run("destroy", sandbox_id).returncode == 0


def test_many_connections_do_not_grow_the_supervisor(runner, sandbox):
    code = ("import socket, time\n"
            "held = []\n"
            "for i in range(1500):\n"
            "    try:\n"
            "        held.append(socket.create_connection(('127.0.0.1', 8080), timeout=5))\n"
            "    except OSError:\n"
            "        break\n"
            "print(len(held), flush=True)\n"
            "time.sleep(4)\n")
    proc = runner.popen("exec", sandbox, "--", "python3", "-c", code, stdout=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        assert line.strip().isdigit(), line
        time.sleep(1)
        supervisor = runner.supervisor_pid(sandbox)
        with open(f"/proc/{supervisor}/status") as f:
            threads = int(re.search(r"Threads:\s+(\d+)", f.read()).group(1))
        descriptors = len(os.listdir(f"/proc/{supervisor}/fd"))
        assert threads <= 4, threads
        assert descriptors <= 2 * 1024 + 64, descriptors
    finally:
        proc.wait(timeout=60)
    assert runner.sh(sandbox, "echo still-serving").stdout == "still-serving\n"


# ---- 6. What the documents promise ---------------------------------------------------


def test_the_root_file_system_is_read_only(runner, sandbox):
    res = runner.sh(sandbox, "for p in /x /etc/x /etc/osf/x /run/x /run/osf/x /dev/x /usr/x; do "
                             "touch $p 2>/dev/null && echo WROTE $p; done; "
                             "touch /workspace/w /tmp/t \"$HOME/h\" && echo writable-ok")
    assert "WROTE" not in res.stdout, res.stdout
    assert "writable-ok" in res.stdout, (res.stdout, res.stderr)


ESCAPEE = r"""
import ctypes, os, signal, sys, time
# Leaves the exec's session and process group, drops its environment (the marker),
# ignores TERM and becomes non-dumpable, then stays.
if os.fork():
    os._exit(0)
os.setsid()
signal.signal(signal.SIGTERM, signal.SIG_IGN)
signal.signal(signal.SIGHUP, signal.SIG_IGN)
ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0
with open(sys.argv[1], "w") as f:
    f.write(str(os.getpid()))
time.sleep(120)
"""


def escapee_alive(runner, sandbox_id, pidfile):
    res = runner.sh(sandbox_id, f"p=$(cat {pidfile} 2>/dev/null) && kill -0 \"$p\" 2>/dev/null && echo alive || echo gone")
    return res.stdout.strip()


def prepare_escapee(runner, sandbox_id):
    assert runner.run("exec", sandbox_id, "--", "sh", "-c", "cat > /workspace/escapee.py",
                      input=ESCAPEE).returncode == 0


@pytest.mark.parametrize("ending", ["timeout", "interrupt", "client-killed"])
def test_no_process_outlives_an_exec_that_was_stopped(runner, sandbox, ending):
    prepare_escapee(runner, sandbox)
    pidfile = f"/workspace/escapee-{ending}.pid"
    command = f"env -i /usr/bin/setsid /usr/bin/python3 /workspace/escapee.py {pidfile} & sleep 60"
    args = ["exec", sandbox] + (["--timeout", "3s"] if ending == "timeout" else []) + ["--", "sh", "-c", command]
    proc = runner.popen(*args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_until(lambda: escapee_alive(runner, sandbox, pidfile) == "alive", 60, "the escapee to start")
    if ending == "interrupt":
        proc.send_signal(signal.SIGINT)
    elif ending == "client-killed":
        proc.kill()
    proc.wait(timeout=60)
    wait_until(lambda: escapee_alive(runner, sandbox, pidfile) != "alive", 60, "the escapee to be stopped")
    assert escapee_alive(runner, sandbox, pidfile) == "gone"


def test_background_processes_of_a_finished_exec_keep_running(runner, sandbox):
    """As on Kubernetes: exec returns when its command exits; what it started in the
    background goes on (a dev server), until the sandbox ends."""
    # The jobs outlive any deadline of the calls: exec returned while they ran, or it hangs.
    res = runner.sh(sandbox, "sleep 7331 >/dev/null 2>&1 & echo $! > /workspace/bg.pid; echo started")
    assert res.returncode == 0 and res.stdout == "started\n", res.stderr
    assert runner.sh(sandbox, "kill -0 $(cat /workspace/bg.pid) && echo running").stdout == "running\n"
    # the same with the background job still holding the exec's output
    res = runner.sh(sandbox, "sleep 7332 & echo $! > /workspace/bg2.pid; echo started")
    assert res.returncode == 0 and res.stdout == "started\n", res.stderr
    assert runner.sh(sandbox, "kill -0 $(cat /workspace/bg2.pid) && echo running").stdout == "running\n"
    runner.sh(sandbox, "kill $(cat /workspace/bg.pid) $(cat /workspace/bg2.pid)")


def test_cache_is_a_shared_directory_with_the_cache_variables(runner):
    spec = {"template": "host", "cache": {"claimName": "pkg-cache"}}
    first = runner.create(spec, name="cache.json")
    second = runner.create(spec, name="cache2.json")
    res = runner.sh(first, "echo from-first > /cache/shared && mkdir -p /cache/npm/x && echo $npm_config_cache $PIP_CACHE_DIR")
    assert res.returncode == 0, res.stderr
    assert res.stdout.split()[0].startswith("/cache/"), res.stdout
    res = runner.sh(second, "cat /cache/shared && echo from-second > /cache/npm/x/f && echo ok")
    assert res.stdout == "from-first\nok\n", (res.stdout, res.stderr)
    for sandbox_id in (first, second):
        assert runner.run("destroy", sandbox_id).returncode == 0


def test_persistence_keeps_the_workspace_and_refuses_what_has_no_meaning_here(runner):
    spec = {"template": "host", "persistence": {"size": "64Mi"}}
    res = runner.run("create", runner.spec_file(spec, "persist.json"))
    if res.returncode == 2:
        assert "persistence" in res.stderr and runner.mode == "user", res.stderr
    else:
        assert res.returncode == 0, res.stderr
        sandbox_id = res.stdout.strip()
        assert runner.sh(sandbox_id, "echo kept > /workspace/f").returncode == 0
        assert runner.run("suspend", sandbox_id).returncode == 0
        assert runner.run("resume", sandbox_id).returncode == 0
        assert runner.sh(sandbox_id, "cat /workspace/f").stdout == "kept\n"
        assert runner.run("destroy", sandbox_id).returncode == 0
    sandboxes = os.path.join(runner.state, "sandboxes")
    before = sorted(os.listdir(sandboxes)) if os.path.isdir(sandboxes) else []
    spec = {"template": "host", "persistence": {"size": "64Mi", "storageClassName": "fast"}}
    res = runner.run("create", runner.spec_file(spec, "persist2.json"))
    assert res.returncode == 2 and "storageClassName" in res.stderr, res.stderr
    assert (sorted(os.listdir(sandboxes)) if os.path.isdir(sandboxes) else []) == before


def test_gc_after_a_killed_supervisor_leaves_no_cgroup_or_mount(runner):
    if runner.mode != "root":
        pytest.skip("cgroups and a bounded /workspace are root's here")
    sandbox_id = runner.create({"template": "host", "memory": "128Mi", "storage": "32Mi"}, name="killed.json")
    with open(os.path.join(runner.dir(sandbox_id), "cgroups")) as f:
        cgroups = f.read().split()
    assert cgroups and all(os.path.isdir(c) for c in cgroups), cgroups
    workspace = os.path.join(runner.dir(sandbox_id), "workspace")
    assert os.path.ismount(workspace)
    os.kill(runner.supervisor_pid(sandbox_id), signal.SIGKILL)
    wait_until(lambda: "Stopped" in runner.run("list", "-o", "wide").stdout, 60, "list to show the sandbox stopped")
    res = runner.run("gc")
    assert res.returncode == 0 and f"{sandbox_id} supervisor gone" in res.stdout, res.stdout + res.stderr
    assert not any(os.path.exists(c) for c in cgroups), cgroups
    with open("/proc/self/mountinfo") as f:
        assert workspace not in f.read()
    assert not os.path.exists(runner.dir(sandbox_id))
