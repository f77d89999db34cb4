"""The built egress-proxy, started on 127.0.0.1 with kernel-chosen ports."""
import json
import os
import signal
import subprocess
import re
import time
import urllib.request

from .paths import proxy_bin
from .waiting import scaled, wait_until


class ProxyExited(Exception):
    def __init__(self, code, stderr):
        super().__init__(f"egress-proxy exited with {code}: {stderr.strip()}")
        self.code, self.stderr = code, stderr


class Proxy:
    """Starts `egress-proxy --spec <spec> --listen 127.0.0.1:0 --admin-listen
    127.0.0.1:0 --state-dir <dir>/state` and waits until it is ready.

    `spec` is a dict (written to <dir>/spec.json) or a path. `aliases` becomes
    OSF_SANDBOX_HOST_ALIASES; `upstream_ca` the extra trust bundle. The
    addresses come from <state-dir>/listen.json, which the proxy writes once
    it listens."""

    def __init__(self, spec, directory, *, aliases=None, upstream_ca=None, env=None, args=(),
                 start=True, timeout=30):
        self.dir = directory
        os.makedirs(directory, exist_ok=True)
        if isinstance(spec, dict):
            self.spec_path = os.path.join(directory, "spec.json")
            with open(self.spec_path, "w") as f:
                json.dump(spec, f)
        else:
            self.spec_path = spec
        self.state_dir = os.path.join(directory, "state")
        self.env = dict(os.environ)
        for k in list(self.env):
            if k.startswith("OSF_") or k.lower().endswith("_proxy"):
                del self.env[k]
        if aliases:
            self.env["OSF_SANDBOX_HOST_ALIASES"] = ",".join(f"{h}={a}" for h, a in aliases.items())
        self.env.update(env or {})
        self.argv = [proxy_bin(), "--spec", self.spec_path, "--listen", "127.0.0.1:0",
                     "--admin-listen", "127.0.0.1:0", "--state-dir", self.state_dir]
        if upstream_ca:
            self.argv += ["--upstream-ca", upstream_ca]
        self.argv += list(args)
        self.stdout_path = os.path.join(directory, "proxy.stdout")
        self.stderr_path = os.path.join(directory, "proxy.stderr")
        self.proc = None
        if start:
            self.start(timeout)

    def start(self, timeout=30):
        listen_file = os.path.join(self.state_dir, "listen.json")
        if os.path.exists(listen_file):
            os.remove(listen_file)
        self._out = open(self.stdout_path, "wb")
        self._err = open(self.stderr_path, "wb")
        self.proc = subprocess.Popen(self.argv, env=self.env, stdout=self._out, stderr=self._err,
                                     stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise ProxyExited(self.proc.returncode, self.stderr())
            try:
                with open(listen_file) as f:
                    info = json.load(f)
                break
            except (FileNotFoundError, json.JSONDecodeError):
                time.sleep(0.05)
        else:
            self.kill()
            raise TimeoutError("egress-proxy did not become ready: " + self.stderr())
        self.listen = info["proxy"]
        self.admin = info["admin"]
        self.url = "http://" + self.listen
        self.admin_url = "http://" + self.admin
        self.ca_path = os.path.join(self.state_dir, "ca.crt")
        self.log_path = os.path.join(self.state_dir, "egress.jsonl")
        return self

    @property
    def pid(self):
        return self.proc.pid

    def stderr(self) -> str:
        try:
            with open(self.stderr_path, errors="replace") as f:
                return f.read()
        except FileNotFoundError:
            return ""

    def stdout(self) -> str:
        with open(self.stdout_path, errors="replace") as f:
            return f.read()

    def log_lines(self, evidence=False):
        """Every request line of the egress log, parsed (raises on a line that is not
        JSON); with `evidence`, the start and checkpoint lines too."""
        try:
            with open(self.log_path) as f:
                lines = [json.loads(line) for line in f if line.strip()]
        except FileNotFoundError:
            return []
        return lines if evidence else [line for line in lines if "kind" not in line]

    def wait_for_log(self, predicate, timeout=30):
        deadline = time.monotonic() + scaled(timeout)
        while time.monotonic() < deadline:
            lines = [l for l in self.log_lines() if predicate(l)]
            if lines:
                return lines
            time.sleep(0.05)
        raise AssertionError("no matching egress log line; log: " + json.dumps(self.log_lines())[-2000:])

    def open_connections(self) -> int:
        """Client connections the proxy holds now (its admin endpoint's gauge)."""
        with urllib.request.urlopen(self.admin_url + "/metrics", timeout=scaled(30)) as answer:
            metrics = answer.read().decode()
        return int(re.search(r"^egress_open_connections (\d+)$", metrics, re.M).group(1))

    def wait_connections_closed(self, timeout=60):
        """Waits until the proxy holds no client connection. A connection's log
        lines are written before it stops being counted, so after this every
        line of a closed connection is in the log: a test that checks a line
        is absent checks after this, never after a sleep."""
        wait_until(lambda: self.open_connections() == 0, timeout,
                   "every client connection of the proxy to end")

    def terminate(self, timeout=30) -> int:
        """SIGTERM, then wait; returns the exit code."""
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode

    def kill(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def stop(self):
        code = self.terminate()
        for f in (self._out, self._err):
            f.close()
        return code

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


def run_proxy(argv, env=None, timeout=30):
    """Runs the proxy binary to completion (subcommands, bad configuration)."""
    return subprocess.run([proxy_bin(), *argv], capture_output=True, text=True, env=env, timeout=timeout)


def rss_checks_apply():
    """False under a sanitizer (scripts/asan-tests.sh sets OSF_SANITIZED): ASan's
    quarantine holds freed memory, so an RSS bound says nothing there."""
    return not os.environ.get("OSF_SANITIZED")


def cpu_seconds(pid):
    """A process's CPU time (utime + stime, all its threads), from /proc."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_bytes(pid):
    """A process's resident memory, from /proc."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")
