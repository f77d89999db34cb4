"""Debian's nginx as an HTTPS origin on loopback, for tests of the proxy's upstream leg:
HTTP/2 and HTTP/1.1 (ALPN h2, http/1.1), or HTTP/1.1 only, with a leaf from a TestCA.
Its access log records each request's protocol and nginx's connection serial number, so
a test sees which protocol the proxy spoke and how many connections it used. Extra
`location` blocks (text) give a test its own routes: trailers (`add_trailer`),
`proxy_pass` to another local server, `return`. Started and stopped by PID; everything
lives in the test's directory."""
import os
import shutil
import socket
import subprocess
import time

from .waiting import scaled


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Nginx:
    def __init__(self, ca, names, directory, *, http2=True, locations=""):
        """`directory` must be reachable by nginx's worker (nobody when the tests run as
        root): every parent searchable by others, as under tempfile.mkdtemp(), not under
        pytest's tmp_path (its base directory is 0700)."""
        self.dir = directory
        os.makedirs(directory, exist_ok=True)
        os.chmod(directory, 0o755)  # the worker runs as nobody
        if os.geteuid() == 0:
            parent = os.path.dirname(os.path.abspath(directory))
            while parent != os.path.dirname(parent):
                if not os.stat(parent).st_mode & 0o001:
                    raise AssertionError(f"nginx's worker (nobody) cannot reach {directory}: {parent} "
                                         "is not searchable by others; use tempfile.mkdtemp()")
                parent = os.path.dirname(parent)
        cert, key = ca.issue(list(names))
        self.cert, self.key = shutil.copy(cert, directory), shutil.copy(key, directory)
        os.chmod(self.key, 0o644)
        self.port = _free_port()
        self.access_log = os.path.join(directory, "access.log")
        with open(os.path.join(directory, "big"), "wb") as f:
            f.write(bytes(range(256)) * 4096)  # 1 MiB
        listen = f"127.0.0.1:{self.port} ssl" + (" http2" if http2 else "")
        conf = f"""
daemon off;
master_process on;
worker_processes 1;
pid {directory}/nginx.pid;
error_log {directory}/error.log warn;
events {{ worker_connections 1024; }}
http {{
    log_format proto '$server_protocol $request_method $request_uri $status $connection';
    access_log {self.access_log} proto;
    client_max_body_size 64m;
    client_body_temp_path {directory}/body;
    proxy_temp_path {directory}/proxy;
    fastcgi_temp_path {directory}/fastcgi;
    uwsgi_temp_path {directory}/uwsgi;
    scgi_temp_path {directory}/scgi;
    server {{
        listen {listen};
        ssl_certificate {self.cert};
        ssl_certificate_key {self.key};
        root {directory};
        location = /hello {{ default_type text/plain; return 200 "hello over $server_protocol\\n"; }}
        location = /big {{ default_type application/octet-stream; }}
        {locations}
    }}
}}
"""
        self.conf = os.path.join(directory, "nginx.conf")
        with open(self.conf, "w") as f:
            f.write(conf)
        self.proc = None

    def start(self, timeout=15):
        self._err = open(os.path.join(self.dir, "nginx.stderr"), "wb")
        self.proc = subprocess.Popen(["/usr/sbin/nginx", "-c", self.conf, "-p", self.dir],
                                     stdout=self._err, stderr=self._err)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return self
            except OSError:
                if self.proc.poll() is not None:
                    break
                time.sleep(0.05)
        self.stop()
        raise AssertionError("nginx did not start: " + open(os.path.join(self.dir, "nginx.stderr")).read())

    def requests(self):
        """Each request nginx served so far (in the order it logged them), as a dict:
        protocol ("HTTP/2.0", "HTTP/1.1"...), method, uri (with the query), status (text)
        and connection (nginx's serial number of the connection it came on)."""
        if not os.path.exists(self.access_log):
            return []
        with open(self.access_log) as f:
            fields = [line.split() for line in f if line.strip()]
        return [dict(zip(("protocol", "method", "uri", "status", "connection"), f)) for f in fields]

    def requests_for(self, match, count=1, timeout=30.0):
        """The requests for which `match(request)` is true, once there are `count` of them
        (or after `timeout` seconds, with what there is: an absence check passes its own
        short timeout). nginx writes a request's line when
        it finalises the request, which may come after the client has read the whole answer."""
        deadline = time.monotonic() + scaled(timeout)
        while True:
            seen = [r for r in self.requests() if match(r)]
            if len(seen) >= count or time.monotonic() >= deadline:
                return seen
            time.sleep(0.05)

    def protocols(self):
        """Each request nginx served so far, as (protocol, method, uri, status)."""
        return [(r["protocol"], r["method"], r["uri"], r["status"]) for r in self.requests()]

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()  # nginx's master stops its worker
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
