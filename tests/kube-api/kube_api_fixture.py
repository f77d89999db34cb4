"""Start and drive the test API server from Python tests (pytest or not).

    import sys; sys.path.insert(0, os.path.join(repo, "tests", "kube-api"))
    from kube_api_fixture import KubeApiServer

    with KubeApiServer(tmp_path) as kube:
        kube.kubectl("get", "pods")                      # KUBECONFIG and an isolated HOME set
        kube.configure(podRules=[{"image": "bad/*", "behavior": "ErrImagePull"}])
        kube.set_exec(handlers=[{"image": "*egress-proxy*", "command": ["egress-proxy", "ca"],
                                 "stdout": pem}])
        kube.env()                                       # environment for other programs that run kubectl
"""

from __future__ import annotations

import json
import os
import select
import signal
import ssl
import subprocess
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
SERVER = os.path.join(HERE, "kube_api_server.py")
PYTHON = "/usr/bin/python3"
KUBECTL = os.environ.get("KUBECTL", "kubectl")


class KubeApiServer:
    def __init__(self, state_dir, *, crds: str | None = None, config: dict | None = None,
                 no_sandbox: bool = False, namespace: str = "default", start_timeout: float = 60,
                 log_level: str = "INFO"):
        self.state_dir = os.path.abspath(str(state_dir))
        self.crds = crds
        self.config = config
        self.no_sandbox = no_sandbox
        self.namespace = namespace
        self.start_timeout = start_timeout
        self.log_level = log_level
        self.process: subprocess.Popen | None = None
        self.port = 0
        self.url = ""
        self.kubeconfig = os.path.join(self.state_dir, "kubeconfig")
        self.home = os.path.join(self.state_dir, "home")
        self._ssl: ssl.SSLContext | None = None
        self.token = ""

    # -- lifecycle --------------------------------------------------------------------------
    def start(self) -> "KubeApiServer":
        os.makedirs(self.state_dir, exist_ok=True)
        os.makedirs(self.home, exist_ok=True)
        args = [PYTHON, SERVER, "--state-dir", self.state_dir, "--kubeconfig", self.kubeconfig,
                "--namespace", self.namespace, "--log-level", self.log_level]
        if self.crds:
            args += ["--crds", self.crds]
        if self.config:
            args += ["--config", json.dumps(self.config)]
        if self.no_sandbox:
            args.append("--no-sandbox")
        self._stderr = open(os.path.join(self.state_dir, "server.log"), "ab")
        self.process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=self._stderr)
        deadline = time.monotonic() + self.start_timeout
        line = b""
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self.process.stdout], [], [], 0.5)
            if ready:
                line = self.process.stdout.readline()
                break
            if self.process.poll() is not None:
                break
        if not line.startswith(b"READY "):
            self.stop()
            raise RuntimeError(f"kube-api server did not start; see {self.state_dir}/server.log")
        fields = dict(item.split("=", 1) for item in line.decode().split()[1:])
        self.port = int(fields["port"])
        self.url = fields["url"]
        self._ssl = ssl.create_default_context(cafile=os.path.join(self.state_dir, "tls", "ca.crt"))
        with open(self.kubeconfig, encoding="utf-8") as f:
            for row in f:
                if row.strip().startswith("token:"):
                    self.token = row.split(":", 1)[1].strip()
        return self

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        if self.process is not None and self.process.stdout:
            self.process.stdout.close()
        if getattr(self, "_stderr", None):
            self._stderr.close()
            self._stderr = None

    def warnings(self, last: int = 20) -> str:
        """The server's last WARNING/ERROR lines: what a failed test shows of the simulation."""
        try:
            with open(os.path.join(self.state_dir, "server.log"), encoding="utf-8", errors="replace") as f:
                lines = [line for line in f if " WARNING " in line or " ERROR " in line]
        except OSError:
            return ""
        return "".join(lines[-last:])

    def __enter__(self) -> "KubeApiServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # -- kubectl ----------------------------------------------------------------------------
    def env(self, base: dict | None = None) -> dict:
        """An environment in which kubectl talks to this server (own HOME: no shared caches)."""
        env = dict(os.environ if base is None else base)
        env["KUBECONFIG"] = self.kubeconfig
        env["HOME"] = self.home
        return env

    def kubectl(self, *args: str, input: str | bytes | None = None, timeout: float = 120,
                check: bool = False) -> subprocess.CompletedProcess:
        text = not isinstance(input, bytes)
        result = subprocess.run([KUBECTL, *args], input=input, capture_output=True, text=text,
                                env=self.env(), timeout=timeout)
        if check and result.returncode != 0:
            raise AssertionError(f"kubectl {' '.join(args)} failed ({result.returncode}): {result.stderr}")
        return result

    def kubectl_json(self, *args: str) -> dict:
        return json.loads(self.kubectl(*args, "-o", "json", check=True).stdout)

    # -- raw API and test hooks -------------------------------------------------------------
    def request(self, method: str, path: str, body=None, *, content_type: str = "application/json",
                headers: dict | None = None, token: str | None = None, timeout: float = 30) -> tuple[int, dict | str]:
        data = None
        if body is not None:
            data = body if isinstance(body, bytes) else (body.encode() if isinstance(body, str) else json.dumps(body).encode())
        req = urllib.request.Request(self.url + path, data=data, method=method)
        req.add_header("Authorization", f"Bearer {self.token if token is None else token}")
        if data is not None:
            req.add_header("Content-Type", content_type)
        for k, v in (headers or {}).items():
            req.add_header(k, v)
        try:
            with urllib.request.urlopen(req, context=self._ssl, timeout=timeout) as resp:
                status, raw = resp.status, resp.read()
        except urllib.error.HTTPError as err:
            status, raw = err.code, err.read()
        try:
            return status, json.loads(raw)
        except ValueError:
            return status, raw.decode("utf-8", "replace")

    def hook(self, method: str, path: str, body=None):
        status, answer = self.request(method, "/_test/" + path.lstrip("/"), body)
        if status != 200:
            raise AssertionError(f"test hook {method} {path} failed: {status} {answer}")
        return answer

    def configure(self, **settings) -> dict:
        """Simulation settings: podRules, podDelaySeconds, sandboxController."""
        return self.hook("PUT", "config", settings)

    def set_exec(self, *, handlers: list | None = None, bin_dirs: list | None = None) -> dict:
        body = {}
        if handlers is not None:
            body["handlers"] = handlers
        if bin_dirs is not None:
            body["binDirs"] = bin_dirs
        return self.hook("PUT", "exec", body)

    def set_pod_state(self, name: str, behavior: str, namespace: str = "default", **fields) -> dict:
        return self.hook("POST", f"namespaces/{namespace}/pods/{name}/state", {"behavior": behavior, **fields})

    def pod_filesystem(self, name: str, namespace: str = "default") -> dict:
        return self.hook("GET", f"namespaces/{namespace}/pods/{name}/filesystem")

    def wait_for(self, predicate, timeout: float = 30, interval: float = 0.2, what: str = "condition"):
        deadline = time.monotonic() + timeout
        while True:
            value = predicate()
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}")
            time.sleep(interval)
