"""sandbox-local's time and state, with the real CLI, egress-proxy and bubblewrap:
exec --timeout and Ctrl-C (the command and everything it started stopped, 137/130/143
as sandbox-kubernetes), the spec's lifetime (the sandbox ends at its expiry, nothing
keeps running), extend, suspend and resume (no process while suspended, files kept,
a new proxy CA and log key), list's formats, and an image template built with
buildah in storage private to the test (CONTAINERS_STORAGE_CONF)."""
import base64
import json
import os
import queue
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from datetime import datetime, timedelta, timezone

import pytest
import yaml

from osftest import TestCA as UpstreamCA  # aliased: pytest would collect a Test* class
from osftest import Upstream, proxy_bin
from osftest.egress_log import expected_summary, summary_as_expected
from osftest.waiting import wait_until
from test_local_sandbox import SECRET, Local, alive, local_state, descendants, local_bin, spec_for, supervisor_pid

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")


@pytest.fixture(scope="module")
def ca():
    with tempfile.TemporaryDirectory(prefix="osll-ca-") as d:
        yield UpstreamCA(d)


@pytest.fixture(scope="module")
def upstream(ca):
    with Upstream(ca, ["allowed.test", "tools.test", "refused.test"]) as u:
        yield u


@pytest.fixture(scope="module")
def local(ca):
    with local_state(ca, "osll-") as local:
        yield local


@pytest.fixture(scope="module")
def sandbox(local, upstream):
    return local.create(spec_for(upstream))


def marked(local, sandbox_id, marker):
    """PIDs below the sandbox's supervisor whose command line holds `marker`."""
    found = []
    for pid in descendants(supervisor_pid(local, sandbox_id)):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if marker.encode() in f.read().replace(b"\0", b" ") and alive(pid):
                    found.append(pid)
        except OSError:
            pass
    return found


def wide_row(local, sandbox_id):
    res = local.run("list", "-o", "wide")
    assert res.returncode == 0, res.stderr
    return next((line for line in res.stdout.splitlines() if line.startswith(sandbox_id)), None)


def listed(local, sandbox_id):
    return next((r for r in json.loads(local.run("list", "-o", "json").stdout) if r["id"] == sandbox_id), None)


def rfc3339(text):
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)


# --- list ----------------------------------------------------------------------------------------

def test_list_prints_ids_a_wide_table_and_json_as_sandbox_kubernetes(local, sandbox):
    res = local.run("list")
    assert res.returncode == 0, res.stderr
    assert sandbox in res.stdout.split("\n")  # IDs only, one per line: `for id in $(list)`
    wide = local.run("list", "-o", "wide").stdout.splitlines()
    assert wide[0].split() == ["ID", "STATUS", "AGE", "EXPIRES", "IMAGE"]
    row = wide_row(local, sandbox)
    assert row.split()[1] == "Ready" and row.split()[-1] == "host"
    assert re.search(r"\bin (7h5\dm|8h)\b", row), row  # the default lifetime, 8h, as kubectl prints ages
    entry = listed(local, sandbox)
    assert entry["status"] == "Ready" and entry["image"] == "host"
    assert rfc3339(entry["expires"]) - rfc3339(entry["created"]) == timedelta(hours=8)
    # Two calls may fall in different seconds: ageSeconds is compared apart.
    def aged(rows):
        return [{k: v for k, v in row.items() if k != "ageSeconds"} for row in rows], [row["ageSeconds"] for row in rows]

    def same_rows(a, b):
        (rows_a, ages_a), (rows_b, ages_b) = aged(a), aged(b)
        return rows_a == rows_b and all(abs(x - y) <= 5 for x, y in zip(ages_a, ages_b))

    assert same_rows(json.loads(local.run("list", "--json").stdout), json.loads(local.run("list", "-o", "json").stdout))
    # -o yaml: the same rows; -o name: sandbox/<ID>, as kubectl prints names
    assert same_rows(yaml.safe_load(local.run("list", "-o", "yaml").stdout),
                     json.loads(local.run("list", "-o", "json").stdout))
    assert f"sandbox/{sandbox}" in local.run("list", "-o", "name").stdout.split()
    res = local.run("list", "-o", "table")
    assert res.returncode == 2 and res.stderr.startswith("sandbox-local: ")


def test_a_spec_without_template_runs_on_the_host_root(local, upstream):
    spec = {k: v for k, v in spec_for(upstream).items() if k != "template"}
    sandbox_id = local.create(spec, name="no-template.json")
    try:
        assert listed(local, sandbox_id)["image"] == "host"
        assert local.run("exec", sandbox_id, "--", "true").returncode == 0
    finally:
        local.run("destroy", sandbox_id)


# --- exec --timeout and interruptions -----------------------------------------------------------

def test_exec_timeout_stops_the_command_and_everything_it_started(local, sandbox):
    marker = "sleep 7301"
    started = time.monotonic()
    # A child in the command's group, one in a session of its own, and a TERM
    # trap that gets the grace to run.
    res = local.run("exec", "--timeout", "2s", sandbox, "--", "sh", "-c",
                    f"trap 'echo got-term > /workspace/term; exit 3' TERM; "
                    f"setsid {marker} & {marker} & echo started; wait")
    assert res.returncode == 137, res.stderr
    assert res.stdout == "started\n"
    assert res.stderr == "sandbox-local: exec: timed out after 2s; the command was stopped\n"
    assert time.monotonic() - started >= 2
    wait_until(lambda: not marked(local, sandbox, marker), 15, "every process of the exec to stop")
    assert local.sh(sandbox, "cat /workspace/term").stdout == "got-term\n"


def test_exec_timeout_default_from_the_variable_and_bad_durations(local, sandbox):
    res = local.run("exec", sandbox, "--", "sleep", "60", env={"OSF_SANDBOX_EXEC_TIMEOUT": "1s"})
    assert res.returncode == 137 and "timed out after 1s" in res.stderr, res.stderr
    res = local.run("exec", "--timeout", "5x", sandbox, "--", "true")
    assert res.returncode == 2 and res.stderr.startswith("sandbox-local: exec: --timeout '5x' "), res.stderr
    res = local.run("exec", sandbox, "--", "true", env={"OSF_SANDBOX_EXEC_TIMEOUT": "soon"})
    assert res.returncode == 2 and "OSF_SANDBOX_EXEC_TIMEOUT" in res.stderr, res.stderr
    # A command that ends in time is not touched.
    assert local.run("exec", "--timeout", "1m", sandbox, "--", "sh", "-c", "exit 4").returncode == 4


@pytest.mark.parametrize("sig,code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_interrupted_exec_stops_the_command_and_exits_128_plus_the_signal(local, sandbox, sig, code):
    marker = f"sleep 73{code}"
    proc = subprocess.Popen([local_bin(), "exec", sandbox, "--", "sh", "-c",
                             f"s=73{code}; setsid sleep $s & echo started; sleep $s"],
                            env=local.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        assert proc.stdout.readline() == "started\n"
        wait_until(lambda: len(marked(local, sandbox, marker)) == 2, 15, "both sleeps to start")
        # Ctrl-C in a terminal: SIGINT to the whole foreground process group.
        os.killpg(proc.pid, sig)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == code, err
    assert err.endswith("sandbox-local: interrupted\n"), err
    wait_until(lambda: not marked(local, sandbox, marker), 15, "the command to stop")


def test_a_killed_exec_client_kills_its_command(local, sandbox):
    marker = "sleep 7309"
    proc = subprocess.Popen([local_bin(), "exec", sandbox, "--", "sh", "-c", f"echo started; {marker}"],
                            env=local.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline() == "started\n"
    proc.kill()
    proc.wait(timeout=30)
    wait_until(lambda: not marked(local, sandbox, marker), 15, "the command to be killed")


# --- lifetime and extend -------------------------------------------------------------------------

def test_a_sandbox_ends_at_its_expiry_and_extend_moves_the_expiry(local, upstream):
    kept = local.create({**spec_for(upstream), "lifetime": "20s"}, name="kept.json")
    first_expiry = rfc3339(listed(local, kept)["expires"])
    res = local.run("extend", kept, "1h")
    assert res.returncode == 0, res.stderr
    assert rfc3339(res.stdout.strip()) == first_expiry + timedelta(hours=1)
    assert listed(local, kept)["expires"] == res.stdout.strip()

    short = local.create({**spec_for(upstream), "lifetime": "3s"}, name="short.json")
    supervisor = supervisor_pid(local, short)
    started = [supervisor, *descendants(supervisor)]
    wait_until(lambda: not os.path.exists(local.dir(short)), 60, "the expired sandbox to be removed")
    wait_until(lambda: not any(alive(p) for p in started), 15, "the expired sandbox's processes to end")
    assert listed(local, short) is None
    res = local.run("exec", short, "--", "true")
    assert res.returncode == 1 and res.stderr.strip() == f"sandbox-local: no sandbox {short}"

    # Past the first expiry, the extended sandbox still runs: its supervisor read the new one.
    wait_until(lambda: datetime.now(timezone.utc) > first_expiry + timedelta(seconds=3), 40, "the first expiry")
    assert wide_row(local, kept).split()[1] == "Ready"
    assert local.sh(kept, "echo alive").stdout == "alive\n"

    res = local.run("extend", kept, "8d")
    assert res.returncode == 2 and "a sandbox lives at most 7d (OSF_SANDBOX_MAX_LIFETIME)" in res.stderr, res.stderr
    res = local.run("extend", kept, "soon")
    assert res.returncode == 2 and res.stderr.startswith("sandbox-local: extend: 'soon' "), res.stderr
    res = local.run("extend", "0123456789ab", "1h")
    assert res.returncode == 1 and res.stderr.strip() == "sandbox-local: no sandbox 0123456789ab"
    assert local.run("destroy", kept).returncode == 0


def test_a_lifetime_over_the_maximum_starts_nothing(local, upstream):
    before = set(local.sandbox_dirs())
    path = os.path.join(local.state, "long.json")
    with open(path, "w") as f:
        json.dump({**spec_for(upstream), "lifetime": "8d"}, f)
    res = local.run("create", path)
    assert res.returncode == 2 and "$.lifetime" in res.stderr, res.stderr
    assert set(local.sandbox_dirs()) == before


# --- suspend and resume --------------------------------------------------------------------------

def egress_starts(local, sandbox_id):
    lines = [json.loads(l) for l in local.run("egress-log", sandbox_id, "--raw").stdout.splitlines() if l.strip()]
    default = [json.loads(l) for l in local.run("egress-log", sandbox_id).stdout.splitlines() if l.strip()]
    # By default one line per request, the chain's own lines left out; --raw is the file as written.
    assert default == [l for l in lines if "kind" not in l]
    return [l for l in lines if l.get("kind") == "start"], [l for l in lines if "host" in l]


def stored_log_key(local, sandbox_id):
    """The raw Ed25519 key in the sandbox's egress-log-key.pub (the end of the DER)."""
    with open(os.path.join(local.dir(sandbox_id), "egress-log-key.pub")) as f:
        body = "".join(l for l in f.read().splitlines() if not l.startswith("-----"))
    return base64.b64decode(body)[-32:]


def test_suspend_stops_every_process_keeps_files_and_resume_starts_a_new_proxy(local, upstream):
    sandbox_id = local.create(spec_for(upstream), name="suspend.json")
    res = local.sh(sandbox_id, "echo kept > /workspace/f; s=7310; (setsid sleep $s >/dev/null 2>&1 &); "
                               "cat /etc/osf/egress-ca.crt; "
                               f"curl -sS -o /dev/null --max-time 120 https://allowed.test:{upstream.port}/before")
    assert res.returncode == 0, res.stderr
    ca_before = res.stdout
    supervisor = supervisor_pid(local, sandbox_id)
    started = [supervisor, *descendants(supervisor)]
    assert len(started) >= 4  # supervisor, proxy, bwrap, the agent, the sleep

    res = local.run("suspend", sandbox_id)
    assert res.returncode == 0 and res.stderr == f"suspended sandbox {sandbox_id}\n", res.stderr
    wait_until(lambda: not any(alive(p) for p in started), 15, "every process of the sandbox to end")
    assert wide_row(local, sandbox_id).split()[1] == "Suspended"
    res = local.run("exec", sandbox_id, "--", "true")
    assert res.returncode == 1 and res.stderr.strip() == \
        f"sandbox-local: sandbox {sandbox_id} is suspended (resume starts it again)"
    res = local.run("suspend", sandbox_id)
    assert res.returncode == 0 and res.stderr == f"sandbox {sandbox_id} is already suspended\n"
    assert sandbox_id not in local.run("gc", "--dry-run").stdout  # suspended is not dead
    # Nothing runs to sign the log: the stopped proxy's final checkpoint already did.
    res = local.run("egress-log", sandbox_id, "--verify")
    assert res.returncode == 0 and res.stderr == "", res.stderr
    assert "complete: the log ends with the proxy's final checkpoint" in res.stdout
    key_before = stored_log_key(local, sandbox_id)

    res = local.run("resume", sandbox_id)
    assert res.returncode == 0 and res.stderr.endswith(f"resumed sandbox {sandbox_id}\n"), res.stderr
    assert wide_row(local, sandbox_id).split()[1] == "Ready"
    res = local.sh(sandbox_id, "cat /workspace/f; pgrep -c -f 'sleep 731[0]' || true; cat /etc/osf/egress-ca.crt; "
                               f"curl -sS -o /dev/null -w '%{{http_code}}' -H \"X-Token: $API_TOKEN\" --max-time 120 "
                               f"https://allowed.test:{upstream.port}/after")
    assert res.returncode == 0, res.stderr
    lines = res.stdout.split("\n")
    assert lines[0] == "kept" and lines[1] == "0"  # files kept, processes not
    ca_after = "\n".join(lines[2:-1]) + "\n"
    assert "BEGIN CERTIFICATE" in ca_after and ca_after != ca_before  # a new proxy, a new CA
    assert lines[-1] == "200"
    # Field names compare without case: curl speaks HTTP/2 through the proxy, whose names are lower case.
    assert any(r["path"] == "/after" and ("x-token", SECRET) in [(k.lower(), v) for k, v in r["headers"]]
               for r in upstream.requests)
    starts, requests = egress_starts(local, sandbox_id)
    # One log across both runs; each run signs with its own key.
    assert len(starts) == 2 and starts[0]["publicKey"] != starts[1]["publicKey"]
    assert [r["path"] for r in requests if r.get("path") in ("/before", "/after")] == ["/before", "/after"]
    # The stored key is the new proxy's, as the CA ConfigMap's is after a resume on Kubernetes; its
    # checkpoint covers both runs through the chain.
    key_after = stored_log_key(local, sandbox_id)
    assert key_before == base64.b64decode(starts[0]["publicKey"])
    assert key_after == base64.b64decode(starts[1]["publicKey"])
    res = local.run("egress-log", sandbox_id, "--verify")
    assert res.returncode == 0, res.stderr
    assert "(2 runs of the proxy)" in res.stdout and "by the given key" in res.stdout
    summary = json.loads(local.run("egress-log", sandbox_id, "--summary", "--json").stdout)
    assert summary_as_expected(summary) == expected_summary(read_log(local, sandbox_id))

    res = local.run("resume", sandbox_id)
    assert res.returncode == 0 and res.stderr == f"sandbox {sandbox_id} is not suspended\n"
    assert local.run("destroy", sandbox_id).returncode == 0


def test_a_suspended_sandbox_past_its_expiry_is_removed_not_resumed(local, upstream):
    sandbox_id = local.create({**spec_for(upstream), "lifetime": "4s"}, name="suspend-short.json")
    res = local.run("suspend", sandbox_id)
    if res.returncode == 1 and "no sandbox" in res.stderr:
        pytest.skip("the machine is so slow that the sandbox expired before suspend")
    assert res.returncode == 0, res.stderr
    expires = rfc3339(listed(local, sandbox_id)["expires"])
    wait_until(lambda: datetime.now(timezone.utc) > expires + timedelta(seconds=1), 30, "the expiry")
    assert os.path.isdir(local.dir(sandbox_id))  # no process runs to remove it
    res = local.run("gc", "--dry-run")
    assert f"{sandbox_id} expired at " in res.stdout and os.path.isdir(local.dir(sandbox_id))
    res = local.run("resume", sandbox_id)
    assert res.returncode == 1 and "expired at" in res.stderr and res.stderr.strip().endswith("removed")
    assert not os.path.exists(local.dir(sandbox_id))


def test_suspend_and_resume_of_unknown_or_stopped_sandboxes(local, upstream):
    for command in ("suspend", "resume"):
        res = local.run(command, "0123456789ab")
        assert res.returncode == 1 and res.stderr.strip() == "sandbox-local: no sandbox 0123456789ab"
        res = local.run(command, "nope")
        assert res.returncode == 2 and "invalid sandbox ID 'nope'" in res.stderr


# --- an image from buildah's storage ---------------------------------------------------------------

IMAGE = "localhost/osf-test-tiny:1"


@pytest.fixture(scope="module")
def image_storage():
    """A tiny image (dash, cat and their libraries, an /etc marker) in buildah
    storage private to this test: vfs driver, temporary root and runroot, named
    by CONTAINERS_STORAGE_CONF as buildah itself reads it."""
    if shutil.which("buildah") is None:
        pytest.skip("buildah is not installed")
    home = tempfile.mkdtemp(prefix="osl-img-", dir="/tmp")
    conf = os.path.join(home, "storage.conf")
    with open(conf, "w") as f:
        f.write(f'[storage]\ndriver = "vfs"\nrunroot = "{home}/run"\ngraphroot = "{home}/root"\n')
    env = {**os.environ, "CONTAINERS_STORAGE_CONF": conf}

    def buildah(*args):
        return subprocess.run(["buildah", *args], capture_output=True, text=True, env=env, timeout=120)
    try:
        res = buildah("from", "--quiet", "scratch")
        if res.returncode != 0:
            pytest.skip(f"buildah cannot make a container here: {res.stderr.strip()}")
        container = res.stdout.strip()
        res = buildah("mount", container)
        if res.returncode != 0:
            pytest.skip(f"buildah cannot mount a container here: {res.stderr.strip()}")
        root = res.stdout.strip()
        for program, target in (("/bin/sh", "bin/sh"), ("/bin/cat", "bin/cat")):
            real = os.path.realpath(program)
            os.makedirs(os.path.join(root, os.path.dirname(target)), exist_ok=True)
            shutil.copy2(real, os.path.join(root, target))
            for line in subprocess.run(["ldd", real], capture_output=True, text=True).stdout.splitlines():
                match = re.search(r"(/\S+) \(0x", line)
                if match:
                    library = match.group(1).lstrip("/")
                    os.makedirs(os.path.join(root, os.path.dirname(library)), exist_ok=True)
                    shutil.copy2(os.path.realpath(match.group(1)), os.path.join(root, library))
        os.makedirs(os.path.join(root, "etc"), exist_ok=True)
        with open(os.path.join(root, "etc", "marker"), "w") as f:
            f.write("tiny image\n")
        assert buildah("umount", container).returncode == 0
        res = buildah("commit", "--quiet", container, IMAGE)
        assert res.returncode == 0, res.stderr
        assert buildah("rm", container).returncode == 0
        yield {"CONTAINERS_STORAGE_CONF": conf}, buildah
    finally:
        buildah("rm", "--all")
        buildah("rmi", "--all", "--force")
        shutil.rmtree(home, ignore_errors=True)


def test_an_image_from_buildahs_storage_as_template(local, image_storage):
    storage_env, buildah = image_storage
    path = os.path.join(local.state, "image.json")
    with open(path, "w") as f:
        json.dump({"template": IMAGE}, f)
    # Without the variable buildah looks in its default storage, where the image is not.
    res = local.run("create", path)
    assert res.returncode == 2 and "is not in buildah's local storage" in res.stderr, res.stderr
    res = local.run("create", path, env=storage_env)
    assert res.returncode == 0, res.stderr
    sandbox_id = res.stdout.strip()
    containers = buildah("containers", "--format", "{{.ContainerName}}").stdout.split()
    assert f"osf-sandbox-{sandbox_id}" in containers
    res = local.run("exec", sandbox_id, "--", "sh", "-c",
                    "cat /etc/marker; [ -e /usr/bin/python3 ] || echo no-host-python; "
                    "echo written > /workspace/f; cat /workspace/f", env=storage_env)
    assert res.returncode == 0, res.stderr
    assert res.stdout == "tiny image\nno-host-python\nwritten\n"
    assert wide_row(local, sandbox_id).split()[-1] == IMAGE
    # Suspended and resumed, it runs on the same container's mount again.
    assert local.run("suspend", sandbox_id, env=storage_env).returncode == 0
    res = local.run("resume", sandbox_id, env=storage_env)
    assert res.returncode == 0, res.stderr
    assert local.run("exec", sandbox_id, "--", "cat", "/etc/marker", "/workspace/f").stdout == "tiny image\nwritten\n"
    res = local.run("destroy", sandbox_id, env=storage_env)
    assert res.returncode == 0, res.stderr
    assert f"osf-sandbox-{sandbox_id}" not in buildah("containers", "--format", "{{.ContainerName}}").stdout.split()
    # The image itself stays in its storage.
    assert buildah("inspect", "--type", "image", IMAGE).returncode == 0


# --- cgroup limits: v2 where it gives the controllers, v1's controllers otherwise ----------------

def own_cgroup_v2():
    """(directory, its cgroup.subtree_control) when /sys/fs/cgroup is cgroup v2, else None."""
    with open("/proc/self/mountinfo") as f:
        if not any(l.split(" - ")[1].startswith("cgroup2 ") and l.split()[4] == "/sys/fs/cgroup" for l in f):
            return None
    with open("/proc/self/cgroup") as f:
        own = next(l[3:].strip() for l in f if l.startswith("0::"))
    directory = "/sys/fs/cgroup" + ("" if own == "/" else own)
    with open(os.path.join(directory, "cgroup.subtree_control")) as f:
        return directory, f.read().split()


def own_cgroup_v1(controller):
    """The directory of this process's cgroup in the v1 hierarchy holding `controller`, or None."""
    mounts = {}
    with open("/proc/self/mountinfo") as f:
        for line in f:
            before, after = line.split(" - ", 1)
            fields = after.split()
            if fields[0] == "cgroup":
                for option in fields[2].split(","):
                    mounts[option] = before.split()[4]
    with open("/proc/self/cgroup") as f:
        for line in f:
            number, controllers, path = line.rstrip("\n").split(":", 2)
            if controller in controllers.split(",") and controller in mounts:
                return mounts[controller] + ("" if path == "/" else path)
    return None


def bound_spec_for(upstream):
    """spec_for with its secret bound to its host: create then prints no advice
    about it, so what these tests read on stderr is about cgroups alone."""
    return {**spec_for(upstream), "secrets": {"API_TOKEN": {"ref": "ref:env/API_TOKEN", "hosts": ["allowed.test"]}}}


def test_cgroup_limits_hold_on_v2_or_on_v1(local, upstream):
    path = os.path.join(local.state, "limits.json")
    with open(path, "w") as f:
        json.dump({**bound_spec_for(upstream), "cpu": "500m", "memory": "256Mi"}, f)
    listed_before = local.run("list").stdout.split()
    res = local.run("create", path)
    with open("/proc/self/mountinfo") as f:
        if not any(l.split(" - ")[1].split()[0] in ("cgroup", "cgroup2") for l in f):
            # No hierarchy mounted at all: the limits are refused, never dropped.
            assert res.returncode == 2 and "no cgroup hierarchy is mounted" in res.stderr, res.stderr
            return
    if os.geteuid() != 0 and "gives sandbox-local no cpu cgroup" in res.stderr:
        # An ordinary user where nothing delegates a cgroup: refused with the fix, never dropped.
        assert res.returncode == 2, res.stderr
        assert "leave cpu out, or run as root or where cgroup v2 delegates it" in res.stderr
        assert "no memory cgroup to enforce the limit" in res.stderr
        assert local.run("list").stdout.split() == listed_before  # nothing left behind
        return
    assert res.returncode == 0, res.stderr
    sandbox_id = res.stdout.strip()
    place = own_cgroup_v2()
    made = []
    try:
        assert "warning" not in res.stderr, res.stderr
        if place:
            cgroup = os.path.join(place[0], f"osf-sandbox-{sandbox_id}")
            made.append(cgroup)
            values = {name: open(os.path.join(cgroup, name)).read().strip()
                      for name in ("cpu.max", "memory.max", "pids.max")}
            assert values == {"cpu.max": "50000 100000", "memory.max": str(256 << 20), "pids.max": "4096"}
            assert open(os.path.join(cgroup, "cgroup.procs")).read().split()  # bwrap and everything inside
        else:
            # cgroup v1 (this machine's case): one cgroup per controller
            expected = {"cpu": {"cpu.cfs_quota_us": "50000", "cpu.cfs_period_us": "100000"},
                        "memory": {"memory.limit_in_bytes": str(256 << 20)},
                        "pids": {"pids.max": "4096"}}
            for controller, files in expected.items():
                parent = own_cgroup_v1(controller)
                assert parent, controller
                cgroup = os.path.join(parent, f"osf-sandbox-{sandbox_id}")
                made.append(cgroup)
                for name, value in files.items():
                    assert open(os.path.join(cgroup, name)).read().strip() == value, (cgroup, name)
                assert open(os.path.join(cgroup, "cgroup.procs")).read().split(), cgroup
    finally:
        assert local.run("destroy", sandbox_id).returncode == 0
    for cgroup in made:
        assert not os.path.exists(cgroup), cgroup


def test_cgroup_v2_without_the_controllers_refuses_the_limit(local, upstream):
    """The v2 path on a hybrid host: /sys/fs/cgroup replaced, in a mount namespace of this
    test, by the unified hierarchy, which has no cpu, memory or pids controller here (v1
    holds them). A limit the spec asks for and this place cannot enforce is refused before
    anything starts (exit 2, naming the field), never dropped."""
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        pytest.skip("needs root and unshare for a private mount namespace")
    if own_cgroup_v2():
        pytest.skip("/sys/fs/cgroup is cgroup v2 already: the test above covers it")
    path = os.path.join(local.state, "limits-v2.json")
    with open(path, "w") as f:
        json.dump({**bound_spec_for(upstream), "memory": "256Mi"}, f)
    before = local.sandbox_dirs()
    res = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c",
                          'mount -t cgroup2 none /sys/fs/cgroup || exit 99; exec "$@"', "sh",
                          local_bin(), "create", path],
                         capture_output=True, text=True, env=local.env, timeout=120)
    if res.returncode == 99:
        pytest.skip(f"cannot mount cgroup2 here: {res.stderr.strip()}")
    assert res.returncode == 2, res.stderr
    assert res.stderr.startswith("sandbox-local: memory: this machine gives sandbox-local no memory "
                                 "cgroup to enforce the limit (cgroup v2 at /sys/fs/cgroup does not "
                                 "give its children memory"), res.stderr
    assert local.sandbox_dirs() == before
    # Without limits in the spec the same place runs it, processes bounded by RLIMIT_NPROC.
    with open(path, "w") as f:
        json.dump(spec_for(upstream), f)
    res = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c",
                          'mount -t cgroup2 none /sys/fs/cgroup && exec "$@"', "sh",
                          local_bin(), "create", path],
                         capture_output=True, text=True, env=local.env, timeout=120)
    assert res.returncode == 0, res.stderr
    sandbox_id = res.stdout.strip()
    try:
        assert "RLIMIT_NPROC" in res.stderr, res.stderr
        limits = local.sh(sandbox_id, "grep '^Max processes' /proc/self/limits").stdout.split()
        assert limits[2:4] == ["4096", "4096"], limits
    finally:
        assert local.run("destroy", sandbox_id).returncode == 0


# --- the egress log as evidence: verify, summary, follow, save-log, gc --save-logs ---------------

def log_path(local, sandbox_id):
    return os.path.join(local.dir(sandbox_id), "proxy", "egress.jsonl")


def read_log(local, sandbox_id):
    with open(log_path(local, sandbox_id), encoding="utf-8") as f:
        return f.read()


def request_through(local, sandbox_id, upstream, host, path):
    """The status: the origin's, or the proxy's answer to CONNECT when it refuses the host."""
    out = local.sh(sandbox_id, f"curl -sS -o /dev/null -w '%{{http_code}} %{{http_connect}}' "
                               f"-H \"X-Token: $API_TOKEN\" --max-time 120 https://{host}:{upstream.port}{path}").stdout
    code, connect = out.split()
    return code if code != "000" else connect


def rewrite_in_place(path, old, new):
    """Changes bytes of the log where they are (same length, same file: the proxy keeps appending)."""
    assert len(old) == len(new)
    with open(path, "r+b") as f:
        data = f.read()
        at = data.index(old)
        f.seek(at)
        f.write(new)
    return data[:at].count(b"\n") + 1  # the line that now differs


def verify_with_proxy(log, key):
    return subprocess.run([proxy_bin(), "log", "verify", "--pubkey", str(key), str(log)],
                          capture_output=True, text=True, timeout=60)


def test_egress_log_verify_summary_and_a_tampered_line(local, upstream):
    sandbox_id = local.create(spec_for(upstream), name="evidence.json")
    try:
        assert request_through(local, sandbox_id, upstream, "allowed.test", "/evidence-a") == "200"
        assert request_through(local, sandbox_id, upstream, "refused.test", "/evidence-b") == "403"
        res = local.run("egress-log", sandbox_id, "--verify")
        assert res.returncode == 0, res.stderr
        assert res.stdout.startswith(f"egress log of {sandbox_id}: verified: ")
        assert "by the given key" in res.stdout and "unsigned tail" not in res.stdout  # a checkpoint was asked for
        assert res.stderr == ""

        summary = json.loads(local.run("egress-log", sandbox_id, "--summary", "--json").stdout)
        assert summary_as_expected(summary) == expected_summary(read_log(local, sandbox_id))
        assert summary["requests"]["allowed"] >= 1 and summary["requests"]["refused"] >= 1
        assert {"secret": "API_TOKEN", "host": "allowed.test", "count": 1} in summary["secrets"]
        res = local.run("egress-log", sandbox_id, "--summary")
        assert res.returncode == 0 and res.stdout.startswith("chain: verified, "), res.stdout
        # The options combine as in sandbox-kubernetes.
        for args in (["--verify", "--follow"], ["--json"], ["--verify", "--summary"]):
            res = local.run("egress-log", sandbox_id, *args)
            assert res.returncode == 2 and res.stderr.startswith("sandbox-local: "), (args, res.stderr)
        res = local.run("egress-log", "0123456789ab", "--verify")
        assert res.returncode == 1 and res.stderr == "sandbox-local: no sandbox 0123456789ab\n"

        # Someone edits a request line of the file: the next line no longer follows it.
        line = rewrite_in_place(log_path(local, sandbox_id), b"/evidence-a", b"/innocent-a")
        res = local.run("egress-log", sandbox_id, "--verify")
        assert res.returncode == 1, res.stdout
        assert res.stderr.startswith(f"egress log of {sandbox_id}:{line + 1}: line {line + 1} does not follow "
                                     f"line {line}"), res.stderr
        assert res.stdout == ""
        res = local.run("egress-log", sandbox_id, "--summary")
        assert res.returncode == 1 and res.stdout.startswith(f"chain: NOT VERIFIED: line {line + 1}:"), res.stdout
        rewrite_in_place(log_path(local, sandbox_id), b"/innocent-a", b"/evidence-a")
        assert local.run("egress-log", sandbox_id, "--verify").returncode == 0

        # Against a key other than the one stored for this sandbox.
        key = os.path.join(local.dir(sandbox_id), "egress-log-key.pub")
        with open(key) as f:
            own = f.read()
        other = local.create(spec_for(upstream), name="evidence-other.json")
        shutil.copy(os.path.join(local.dir(other), "egress-log-key.pub"), key)
        res = local.run("egress-log", sandbox_id, "--verify")
        assert res.returncode == 1 and "signed by a key other than the given one" in res.stderr, res.stderr
        with open(key, "w") as f:
            f.write(own)
        assert local.run("destroy", other).returncode == 0
    finally:
        local.run("destroy", sandbox_id)


class Follower:
    """`egress-log -f` running, its stdout lines read by a thread so that every wait is bounded."""

    def __init__(self, local, *args):
        self.process = subprocess.Popen([local_bin(), "egress-log", *args], stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True, env=local.env)
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def next_record(self, timeout=30):
        line = self.lines.get(timeout=timeout)
        assert line is not None, "the follower ended"
        return json.loads(line)

    def wait(self, timeout=30):
        self.process.wait(timeout=timeout)
        rest = []
        while (line := self.lines.get(timeout=timeout)) is not None:
            rest.append(json.loads(line))
        return rest, self.process.stderr.read()

    def kill(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def test_egress_log_follow_prints_new_lines_until_the_sandbox_stops(local, upstream):
    sandbox_id = local.create(spec_for(upstream), name="follow.json")
    follower = Follower(local, "-f", "--raw", sandbox_id)
    requests_only = Follower(local, "-f", sandbox_id)
    try:
        assert follower.next_record()["kind"] == "start"  # the log so far, then new lines
        assert request_through(local, sandbox_id, upstream, "allowed.test", "/followed") == "200"
        while (record := follower.next_record()).get("path") != "/followed":
            pass
        # Without --raw: one line per request, the chain's lines left out.
        first = requests_only.next_record()
        assert "kind" not in first and first["path"] == "/followed"
        # destroy stops the proxy (its final checkpoint is the last line) and the follower ends.
        assert local.run("destroy", sandbox_id).returncode == 0
        rest, err = follower.wait()
        assert follower.process.returncode == 0, err
        assert rest[-1]["kind"] == "checkpoint" and rest[-1].get("final") is True
        rest, _ = requests_only.wait()
        assert all("kind" not in record for record in rest)
    finally:
        follower.kill()
        requests_only.kill()
        local.run("destroy", sandbox_id)


def test_egress_log_follow_ends_at_ctrl_c_with_130(local, sandbox):
    follower = Follower(local, "--follow", "--raw", sandbox)
    try:
        assert follower.next_record()["kind"] == "start"
        follower.process.send_signal(signal.SIGINT)
        _, err = follower.wait()
        assert follower.process.returncode == 130 and err == "sandbox-local: interrupted\n"
    finally:
        follower.kill()


def test_destroy_save_log_keeps_a_verified_log_first(local, upstream, tmp_path):
    sandbox_id = local.create(spec_for(upstream), name="save-log.json")
    try:
        assert request_through(local, sandbox_id, upstream, "allowed.test", "/saved-a") == "200"
        saved = tmp_path / "saved.jsonl"
        saved.write_text("already here")
        res = local.run("destroy", sandbox_id, "--save-log", str(saved))
        assert res.returncode == 2 and res.stderr == f"sandbox-local: --save-log: {saved} already exists\n"
        assert saved.read_text() == "already here" and os.path.isdir(local.dir(sandbox_id))
        saved.unlink()

        # A log that does not verify is saved, but nothing is removed.
        line = rewrite_in_place(log_path(local, sandbox_id), b"/saved-a", b"/moved-a")
        res = local.run("destroy", sandbox_id, "--save-log", str(saved))
        assert res.returncode == 1
        assert f"does not verify (line {line + 1}: line {line + 1} does not follow line {line}" in res.stderr
        assert res.stderr.strip().endswith(f"sandbox {sandbox_id} not removed: destroy it without --save-log "
                                           "to remove it anyway"), res.stderr
        assert wide_row(local, sandbox_id).split()[1] == "Ready"
        saved.unlink()
        (tmp_path / "saved.jsonl.pub").unlink()
        rewrite_in_place(log_path(local, sandbox_id), b"/moved-a", b"/saved-a")

        with open(os.path.join(local.dir(sandbox_id), "egress-log-key.pub")) as f:
            key = f.read()
        res = local.run("destroy", sandbox_id, "--save-log", str(saved))
        assert res.returncode == 0, res.stderr
        assert f"{saved}: verified: " in res.stderr and "by the given key" in res.stderr
        assert res.stderr.endswith(f"removed sandbox {sandbox_id}\n")
        assert not os.path.exists(local.dir(sandbox_id))
        assert (tmp_path / "saved.jsonl.pub").read_text() == key
        assert any(json.loads(l).get("path") == "/saved-a" for l in saved.read_text().splitlines())
        run = verify_with_proxy(saved, tmp_path / "saved.jsonl.pub")  # later, with the proxy's own verifier
        assert run.returncode == 0, run.stderr
        res = local.run("destroy", sandbox_id, "--save-log", str(tmp_path / "again.jsonl"))
        assert res.returncode == 1 and res.stderr == f"sandbox-local: no sandbox {sandbox_id}\n"
        assert not (tmp_path / "again.jsonl").exists()
    finally:
        local.run("destroy", sandbox_id)


GONE = "supervisor gone (killed, or the machine restarted)"


def test_an_idle_sandboxs_log_verifies_and_is_saved(local, upstream, tmp_path):
    """No request yet: the log is the proxy's start line, which the checkpoint asked for signs."""
    sandbox_id = local.create(spec_for(upstream), name="idle.json")
    try:
        res = local.run("egress-log", sandbox_id, "--verify")
        assert res.returncode == 0 and res.stdout.startswith(f"egress log of {sandbox_id}: verified: 2 lines"), \
            res.stdout + res.stderr
        saved = tmp_path / "idle.jsonl"
        res = local.run("destroy", sandbox_id, "--save-log", str(saved))
        assert res.returncode == 0, res.stderr
        assert f"{saved}: verified: " in res.stderr and res.stderr.endswith(f"removed sandbox {sandbox_id}\n")
        assert verify_with_proxy(saved, tmp_path / "idle.jsonl.pub").returncode == 0
    finally:
        local.run("destroy", sandbox_id)


def test_gc_save_logs_keeps_each_verified_log_before_removing(local, upstream, tmp_path):
    # Its own state directory: gc looks at every sandbox in it.
    state = tempfile.mkdtemp(prefix="osll-gc-", dir="/tmp")
    own = Local(state, {**local.env, "OSF_SANDBOX_LOCAL_STATE_DIR": state})
    try:
        saved, kept = (own.create(spec_for(upstream), name=f"gc-{n}.json") for n in range(2))
        for sandbox_id in (saved, kept):
            assert request_through(own, sandbox_id, upstream, "allowed.test", f"/gc-{sandbox_id}") == "200"
            assert own.run("egress-log", sandbox_id, "--verify").returncode == 0  # signed up to here
            supervisor = supervisor_pid(own, sandbox_id)
            os.kill(supervisor, signal.SIGKILL)  # nothing left to stop it cleanly: gc's case
            wait_until(lambda: not alive(supervisor), 10, "the supervisor to die")
        wait_until(lambda: all(wide_row(own, i).split()[1] == "Stopped" for i in (saved, kept)), 15, "Stopped")
        logs = tmp_path / "logs"
        res = own.run("gc", "--save-logs", str(logs))
        assert res.returncode == 2 and res.stderr == f"sandbox-local: --save-logs: {logs} is not a directory\n"
        logs.mkdir()
        res = own.run("gc", "--dry-run", "--save-logs", str(logs))
        assert res.returncode == 0 and list(logs.iterdir()) == []
        # A log already saved for `kept` is never overwritten: that sandbox stays.
        (logs / f"{kept}.jsonl").write_text("saved before")
        res = own.run("gc", "--save-logs", str(logs))
        assert res.returncode == 1, res.stderr
        assert res.stdout == f"{saved} {GONE}\n"
        assert f"{logs}/{saved}.jsonl: verified: " in res.stderr
        # No proxy to ask: the warning says the tail after the last checkpoint is unsigned.
        assert (f"sandbox-local: the proxy wrote no checkpoint (sandbox {saved} is not running); "
                "lines after its last one are unsigned") in res.stderr
        assert (f"sandbox-local: {kept} not removed: {logs}/{kept}.jsonl already exists "
                "(a saved log is never overwritten)") in res.stderr
        assert (logs / f"{kept}.jsonl").read_text() == "saved before"
        assert not (logs / f"{kept}.jsonl.pub").exists()
        assert not os.path.exists(own.dir(saved)) and os.path.isdir(own.dir(kept))
        run = verify_with_proxy(logs / f"{saved}.jsonl", logs / f"{saved}.jsonl.pub")
        assert run.returncode == 0, run.stderr
        assert any(json.loads(l).get("path") == f"/gc-{saved}" for l in (logs / f"{saved}.jsonl").read_text().splitlines())
        (logs / f"{kept}.jsonl").unlink()
        res = own.run("gc", "--save-logs", str(logs))
        assert res.returncode == 0 and res.stdout == f"{kept} {GONE}\n", res.stderr
        assert verify_with_proxy(logs / f"{kept}.jsonl", logs / f"{kept}.jsonl.pub").returncode == 0
    finally:
        for sandbox_id in os.listdir(os.path.join(state, "sandboxes")) if os.path.isdir(os.path.join(state, "sandboxes")) else []:
            own.run("destroy", sandbox_id)
        shutil.rmtree(state, ignore_errors=True)
