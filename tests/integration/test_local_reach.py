"""sandbox-local, issue 42's second round, as root and as an ordinary user: who can reach
a sandbox's egress proxy (only its own supervisor: another local user and a sandbox of
another state directory find no port to use, and cannot connect to its sockets), a
workload that exhausts its memory or its process budget (it dies, not the sandbox; a
fork bomb stops no other sandbox of the same user), and what is writable under the
read-only root. docs/security-tests.md lists the classes."""
import contextlib
import json
import os
import subprocess
import time

import pytest

from osftest import Upstream
from osftest.waiting import scaled
from test_local_boundary import ca, may_refuse, runner_for  # noqa: F401 (ca: a fixture)

SECRET = "sk-live-reach-0123456789abcdef"
PLACEHOLDER = "osf-secret-placeholder-API_TOKEN"
# A uid of no one on this machine: the "second local user" attacking a sandbox of
# the runner's user (root's, or the ordinary test user's).
STRANGER = 54321


@pytest.fixture(scope="module", params=["root", "user"])
def runner(request, ca):  # noqa: F811
    with runner_for(request.param, ca) as r:
        yield r


@pytest.fixture(scope="module")
def upstream(ca):  # noqa: F811
    with Upstream(ca, ["allowed.test"]) as u:
        yield u


def secret_spec(upstream):
    return {"template": "host", "egress": ["allowed.test"],
            "secrets": {"API_TOKEN": "ref:env/API_TOKEN"}}


SECRET_ENV = {"OSF_SECRET_API_TOKEN": SECRET, "OSF_SANDBOX_HOST_ALIASES": "allowed.test=127.0.0.1"}


def children_of():
    children = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                with open(f"/proc/{entry}/stat") as f:
                    children.setdefault(int(f.read().rsplit(")", 1)[1].split()[1]), []).append(int(entry))
    return children


def tree(pid):
    children, found, frontier = children_of(), [], [pid]
    while frontier:
        p = frontier.pop()
        found.append(p)
        frontier.extend(children.get(p, []))
    return found


def socket_inodes(pids):
    inodes = set()
    for pid in pids:
        with contextlib.suppress(OSError):
            for fd in os.listdir(f"/proc/{pid}/fd"):
                with contextlib.suppress(OSError):
                    target = os.readlink(f"/proc/{pid}/fd/{fd}")
                    if target.startswith("socket:["):
                        inodes.add(int(target[8:-1]))
    return inodes


def listening_ports(inodes):
    """The host's TCP ports (IPv4 and IPv6, in this network namespace) listening on sockets of `inodes`."""
    ports = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as f:
            for line in f.readlines()[1:]:
                fields = line.split()
                if fields[3] == "0A" and int(fields[9]) in inodes:
                    ports.append(int(fields[1].rsplit(":", 1)[1], 16))
    return ports


def sandbox_ports(runner, sandbox_id):
    """What a local attacker finds in /proc/net/tcp: every listening TCP port of the
    sandbox's supervisor and its children (the egress proxy among them)."""
    return listening_ports(socket_inodes(tree(runner.supervisor_pid(sandbox_id))))


def as_stranger(argv, timeout=60):
    return subprocess.run(["setpriv", f"--reuid={STRANGER}", f"--regid={STRANGER}", "--clear-groups", *argv],
                          capture_output=True, text=True, timeout=timeout)


def test_another_local_user_cannot_use_a_sandboxs_proxy_or_its_secrets(runner, upstream):
    """The attacker lists the listening ports, sends the placeholder through each as a
    proxy (curl -k: it needs no trust) and asks each for /metrics; then tries the
    proxy's sockets themselves. The secret never reaches the origin, nothing lands in
    the sandbox's egress log, no metrics answer."""
    sandbox_id = runner.create(secret_spec(upstream), name="reach-secret.json", env=SECRET_ENV)
    log = os.path.join(runner.dir(sandbox_id), "proxy", "egress.jsonl")
    lines_before = open(log).read().count("\n")
    received_before = len(upstream.received)
    ports = sandbox_ports(runner, sandbox_id)
    for port in ports:
        res = as_stranger(["curl", "-sk", "--max-time", "10", "-x", f"http://127.0.0.1:{port}",
                           "-H", f"Authorization: Bearer {PLACEHOLDER}",
                           f"https://allowed.test:{upstream.port}/attack"])
        assert SECRET not in res.stdout
        res = as_stranger(["curl", "-s", "--max-time", "10", f"http://127.0.0.1:{port}/metrics"])
        assert "egress_requests_total" not in res.stdout, (port, res.stdout[:200])
    assert not any(SECRET.encode() in r for r in upstream.received[received_before:])
    # The proxy listens on no host port at all; its sockets are its owner's alone.
    assert ports == [], f"the sandbox's supervisor or proxy listens on host TCP ports {ports}"
    with open(os.path.join(runner.dir(sandbox_id), "proxy", "listen.json")) as f:
        listen = json.load(f)
    for address in (listen["proxy"], listen["admin"]):
        assert address.startswith("unix:" + runner.dir(sandbox_id) + "/"), address
        path = address[len("unix:"):]
        assert os.stat(path).st_mode & 0o777 == 0o600
        res = as_stranger(["curl", "-s", "--max-time", "10", "--unix-socket", path, "http://localhost/metrics"])
        assert "egress_requests_total" not in res.stdout and res.returncode != 0, res
    assert open(log).read().count("\n") == lines_before
    # The sandbox itself still goes through its proxy, its secret substituted.
    out = runner.sh(sandbox_id, f"curl -s -o /dev/null -w '%{{http_code}}' --max-time {int(scaled(120))} "
                                f"-H 'Authorization: Bearer {PLACEHOLDER}' https://allowed.test:{upstream.port}/mine")
    assert out.stdout == "200", out
    assert any(SECRET.encode() in r for r in upstream.received[received_before:])
    # And allow and revoke still reach its admin socket: in force at once.
    for verb in ("allow", "revoke"):
        res = runner.run(verb, sandbox_id, "other.test")
        assert res.returncode == 0 and "in force now" in res.stdout, (res.stdout, res.stderr)
    assert runner.run("egress-log", sandbox_id).returncode == 0
    assert runner.run("destroy", sandbox_id).returncode == 0


def test_a_sandbox_of_another_state_directory_reaches_no_listener_of_this_one(runner, ca, upstream):  # noqa: F811
    """A second state directory of the same mode, its sandbox allowed any port of a name
    aliased to the host's loopback: through its own proxy it reaches nothing of the
    first sandbox's (each state directory used to refuse only its own peers)."""
    victim = runner.create(secret_spec(upstream), name="reach-victim.json", env=SECRET_ENV)
    with runner_for(runner.mode, ca) as other:
        alias = {"OSF_SANDBOX_HOST_ALIASES": "victim.test=127.0.0.1"}
        attacker = other.create({"template": "host", "egress": ["victim.test"]}, name="reach-attacker.json",
                                env=alias)
        ports = sandbox_ports(runner, victim)
        for port in ports:
            out = other.sh(attacker, f"curl -s --max-time 10 http://victim.test:{port}/metrics", env=alias).stdout
            assert "egress_requests_total" not in out, (port, out[:200])
        assert ports == [], f"the victim's proxy listens on host TCP ports {ports}"
        assert other.run("destroy", attacker).returncode == 0
    assert runner.run("destroy", victim).returncode == 0


FORK_AND_HOLD = r"""
import os, sys, time
made, error = 0, ""
deadline = time.monotonic() + 120
while made < 5000 and time.monotonic() < deadline:
    try:
        pid = os.fork()
    except OSError as e:
        error = e.strerror
        break
    if pid == 0:
        try:
            os.execv("/bin/sleep", ["sleep", "300"])
        finally:
            os._exit(1)
    made += 1
print("held", made, error, flush=True)
time.sleep(150)
"""


def test_a_fork_bomb_stops_no_other_sandbox_of_the_same_user(runner):
    """As an ordinary user the process budget was RLIMIT_NPROC, counted per uid: one
    sandbox holding it stopped every other sandbox of that user. Now each sandbox's
    budget is its own (a pids cgroup, or RLIMIT_NPROC inside its own user namespace)."""
    bomb = runner.create({"template": "host"}, name="reach-bomb.json")
    beside = runner.create({"template": "host"}, name="reach-beside.json")
    holder = runner.popen("exec", bomb, "--", "python3", "-c", FORK_AND_HOLD,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = holder.stdout.readline()
        assert line.startswith("held"), (line, holder.stderr.read() if holder.poll() is not None else "")
        made = int(line.split()[1])
        assert 1000 < made < 5000, line  # the budget stopped it, not the loop's bound
        res = runner.sh(beside, "for i in $(seq 50); do sleep 0 & done; wait; echo fine", timeout=120)
        assert res.returncode == 0 and res.stdout.strip() == "fine", (res.returncode, res.stderr[-500:])
    finally:
        holder.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            holder.wait(timeout=60)
        if holder.poll() is None:
            holder.kill()
            holder.wait()
    for sandbox_id in (bomb, beside):
        assert runner.run("destroy", sandbox_id, timeout=120).returncode == 0


MEMORY_STORM = r"""
import os, time
made, error = 0, ""
deadline = time.monotonic() + 120
while made < 5000 and time.monotonic() < deadline:
    try:
        pid = os.fork()
    except OSError as e:
        error = e.strerror
        break
    if pid == 0:
        try:
            held = bytearray(256 * 1024)  # touched: each child's own pages
            time.sleep(300)
        finally:
            os._exit(0)
    made += 1
print("forked", made, error, flush=True)
"""


def test_5000_processes_under_256mi_leave_the_sandbox_usable(runner):
    """The OOM killer picks the workload (commands run at oom_score_adj 1000), never
    the agent: the sandbox stays ready and later execs run."""
    res = runner.run("create", runner.spec_file({"template": "host", "memory": "256Mi"}, "reach-oom.json"))
    if res.returncode == 2 and may_refuse(runner, "memory"):
        pytest.skip("no memory limit for this user here: " + res.stderr.strip())
    assert res.returncode == 0, res.stderr
    sandbox_id = res.stdout.strip()
    res = runner.run("exec", sandbox_id, "--", "python3", "-c", MEMORY_STORM, timeout=300)
    # Its own processes may be killed by the OOM killer; the sandbox must not be.
    for attempt in range(3):
        after = runner.sh(sandbox_id, "cat /proc/self/oom_score_adj; echo alive", timeout=120)
        if after.returncode == 0:
            break
    assert after.returncode == 0 and after.stdout.split() == ["1000", "alive"], (res.stdout, res.stderr[-300:],
                                                                                   after.stderr[-500:])
    listed = runner.run("list", "-o", "json")
    assert listed.returncode == 0
    assert os.path.exists(os.path.join(runner.dir(sandbox_id), "ready"))
    # And a command cannot make itself the agent's equal from below: its floor is 0.
    low = runner.sh(sandbox_id, "echo -1 > /proc/self/oom_score_adj; echo rc=$?")
    assert "rc=0" not in low.stdout, low.stdout
    assert runner.run("destroy", sandbox_id, timeout=120).returncode == 0


def mounts_inside(runner, sandbox_id):
    res = runner.python(sandbox_id, "import sys; sys.stdout.write(open('/proc/self/mountinfo').read())")
    assert res.returncode == 0, res.stderr
    mounts = []
    for line in res.stdout.splitlines():
        left, right = line.split(" - ")
        fields, kind = left.split(), right.split()
        mounts.append({"target": fields[4], "options": fields[5].split(","), "type": kind[0],
                       "super": kind[2].split(",") if len(kind) > 2 else []})
    return mounts


# The documented writable places (adapter/README.md) and the kernel's own file
# systems and device nodes whose writes are their interfaces (ptys, /dev/null, ...).
WRITABLE = {"/tmp", "/dev/shm", "/workspace", "/cache", "/dev/pts", "/proc", "/dev/mqueue", "/dev/null",
            "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty"}
# bwrap's own empty root and /dev: read-only tmpfs holding only mount points and nodes.
BWRAP_OWN = {"/", "/dev"}


def test_every_mount_under_the_root_is_read_only_and_small_but_the_writable_places(runner):
    sandbox_id = runner.create({"template": "host"}, name="reach-mounts.json")
    mounts = mounts_inside(runner, sandbox_id)
    assert any(m["target"] == "/etc/ssl/private" for m in mounts) or not os.path.isdir("/etc/ssl/private")
    for m in mounts:
        if m["target"] in WRITABLE or m["target"].startswith("/proc/"):
            continue
        assert "ro" in m["options"], f"{m['target']} ({m['type']}) is writable: {m['options']}"
        if m["type"] == "tmpfs" and m["target"] not in BWRAP_OWN:
            size = [o for o in m["super"] if o.startswith("size=")]
            assert size, m
            value = size[0][5:]
            units = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}
            limit = int(value[:-1]) * units[value[-1].lower()] if value[-1].isalpha() else int(value)
            assert limit <= 16 << 20, f"{m['target']} is a tmpfs of {value}"
    res = runner.sh(sandbox_id, "touch /etc/ssl/private/x 2>&1; echo rc=$?")
    assert "rc=0" not in res.stdout, res.stdout
    assert runner.run("destroy", sandbox_id).returncode == 0


HOST_WIDE_PROC = ["/proc/cmdline", "/proc/key-users", "/proc/locks", "/proc/config.gz", "/proc/kallsyms",
                  "/proc/timer_list"]

FANOTIFY = r"""
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
fd = libc.syscall(300, 0x200, os.O_RDONLY)  # fanotify_init(FAN_CLASS_NOTIF|FAN_REPORT_FID): x86_64
print("fanotify", fd, ctypes.get_errno())
"""


def test_host_wide_proc_files_and_fanotify_are_out_of_reach(runner):
    sandbox_id = runner.create({"template": "host"}, name="reach-proc.json")
    present = [path for path in HOST_WIDE_PROC if os.path.exists(path)]
    assert "/proc/cmdline" in present
    for path in present:
        res = runner.run("exec", sandbox_id, "--", "cat", path)
        assert res.stdout == "", (path, res.stdout[:200])
    # What a workload does need stays: its own processes, the machine's load and memory.
    res = runner.sh(sandbox_id, "cat /proc/self/status /proc/meminfo /proc/loadavg >/dev/null && echo ok")
    assert res.stdout.strip() == "ok", res.stderr
    if os.uname().machine == "x86_64":
        res = runner.python(sandbox_id, FANOTIFY)
        assert res.stdout.split() == ["fanotify", "-1", "1"], res.stdout  # EPERM
    assert runner.run("destroy", sandbox_id).returncode == 0
