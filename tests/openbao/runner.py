"""Starts tests/openbao/server.py for a test and stops it again.

    with OpenBaoServer(directory, {"tokens": [...], "mounts": {...}},
                       cert=(cert, key)) as bao:
        bao.addr  # "https://127.0.0.1:<port>"
"""
import json
import os
import select
import subprocess
import time

SERVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "server.py")


class OpenBaoServer:
    """`cert=(cert_path, key_path)` serves TLS with that leaf; `self_signed=True`
    makes its own CA (`ca_path`); `plain_http=True` serves without TLS."""

    def __init__(self, directory, store, *, cert=None, self_signed=False, plain_http=False,
                 timeout=30):
        os.makedirs(directory, exist_ok=True)
        self.secrets_path = os.path.join(directory, "openbao-secrets.json")
        with open(self.secrets_path, "w") as f:
            json.dump(store, f)
        argv = ["/usr/bin/python3", SERVER, "--secrets", self.secrets_path]
        self.ca_path = None
        if plain_http:
            argv.append("--plain-http")
        elif cert:
            argv += ["--cert", cert[0], "--key", cert[1]]
        elif self_signed:
            tls_dir = os.path.join(directory, "openbao-tls")
            argv += ["--self-signed", tls_dir]
            self.ca_path = os.path.join(tls_dir, "ca.crt")
        self.stderr_path = os.path.join(directory, "openbao.stderr")
        self._stderr = open(self.stderr_path, "wb")
        self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=self._stderr,
                                     stdin=subprocess.DEVNULL)
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        line = self.proc.stdout.readline() if ready else b""
        if not line.strip().isdigit():
            self.stop()
            raise RuntimeError("the OpenBao test server did not start: " + self.stderr())
        self.port = int(line)
        scheme = "http" if plain_http else "https"
        self.addr = f"{scheme}://127.0.0.1:{self.port}"

    def url(self, path, host="127.0.0.1"):
        scheme = self.addr.split(":", 1)[0]
        return f"{scheme}://{host}:{self.port}{path}"

    def stderr(self) -> str:
        try:
            with open(self.stderr_path, errors="replace") as f:
                return f.read()
        except FileNotFoundError:
            return ""

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc.stdout.close()
        self._stderr.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()
