"""Raw TCP egress (the spec's `tcp`): HTTP CONNECT and SOCKS5 tunnels to listed
host:port destinations relayed byte for byte, with real clients (curl
--socks5-hostname, ssh and git over an sshd on loopback, psql through SOCKS5)
and SOCKS5 by hand for the edge cases; every tunnel one line in the signed log."""
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading

import pytest

from osftest import Proxy, TestCA, Upstream, proxy_bin
from osftest.proxy import rss_bytes, rss_checks_apply, run_proxy
from osftest.upstream import RawServer
from osftest.tcp_clients import EchoServer, http_connect, recv_all, recv_exactly, socks5_request
from osftest.waiting import scaled, wait_until

ALIASES = {"echo.test": "127.0.0.1", "web.test": "127.0.0.1", "git.test": "127.0.0.1",
           "other.test": "127.0.0.1", "upstream.test": "127.0.0.1", "db.test": "127.0.0.1"}
HERE = os.path.dirname(os.path.abspath(__file__))


def verify_log(proxy):
    """Stops the proxy (its last checkpoint signs every line) and verifies the log."""
    assert proxy.stop() == 0
    run = run_proxy(["log", "verify", "--pubkey", os.path.join(proxy.state_dir, "log-key.pub"),
                     proxy.log_path], timeout=60)
    assert run.returncode == 0, run.stdout + run.stderr


@pytest.fixture
def echo():
    with EchoServer() as server:
        yield server


@pytest.fixture
def web():
    with Upstream(None, ["web.test"]) as server:  # plain HTTP
        yield server


def start_proxy(tmp_path, tcp, egress=(), name="proxy", args=(), **kwargs):
    spec = {"template": "debian:12", "egress": list(egress), "tcp": list(tcp)}
    return Proxy(spec, str(tmp_path / name), aliases=ALIASES, args=args, **kwargs)


def tunnel_line(proxy, via, host):
    return proxy.wait_for_log(
        lambda l: l.get("via") == via and l["host"] == host and l["scheme"] == "tcp")[0]


def test_connect_to_a_tcp_destination_is_relayed_raw(tmp_path, echo):
    with start_proxy(tmp_path, [f"echo.test:{echo.port}"]) as proxy:
        status, sock = http_connect(proxy.listen, f"echo.test:{echo.port}")
        with sock:
            assert status == 200
            # Not TLS, not HTTP: bytes no interception would let through untouched.
            payload = b"\x16\x03\x01 not a ClientHello\r\n\r\nSSH-2.0-x\x00\xff" * 100
            sock.sendall(payload)
            sock.shutdown(socket.SHUT_WR)  # the half close reaches the server...
            assert recv_all(sock) == payload  # ...which answers, then closes
        line = tunnel_line(proxy, "connect", "echo.test")
        assert line["outcome"] == "allowed" and line["status"] == 200
        assert line["method"] == "CONNECT" and line["port"] == echo.port
        assert line["bytesUp"] == len(payload) and line["bytesDown"] == len(payload)
        assert line["durationMs"] >= 0 and "secrets" not in line
        verify_log(proxy)


def test_curl_socks5_hostname_reaches_a_tcp_destination(tmp_path, web):
    with start_proxy(tmp_path, [f"web.test:{web.port}"]) as proxy:
        # --socks5-hostname: the proxy resolves web.test (an alias), never the client.
        res = subprocess.run(
            ["curl", "-sS", "--max-time", "30", "--socks5-hostname", proxy.listen,
             f"http://web.test:{web.port}/over-socks?q=1"],
            capture_output=True, text=True, timeout=60)
        assert res.returncode == 0, res.stderr
        assert json.loads(res.stdout)["path"] == "/over-socks"
        line = tunnel_line(proxy, "socks5", "web.test")
        assert line["outcome"] == "allowed" and line["status"] == 0
        assert line["method"] == "CONNECT" and line["port"] == web.port
        assert line["bytesUp"] > 0 and line["bytesDown"] > 0
        verify_log(proxy)


def test_socks5_to_an_egress_host_is_intercepted_like_connect(tmp_path):
    ca = TestCA(str(tmp_path / "upstream-ca"))
    with Upstream(ca, ["upstream.test"]) as upstream, \
            start_proxy(tmp_path, [], egress=["upstream.test"], upstream_ca=ca.cert_path) as proxy:
        res = subprocess.run(
            ["curl", "-sS", "--max-time", "30", "--socks5-hostname", proxy.listen,
             "--cacert", proxy.ca_path, upstream.url(path="/inside")],
            capture_output=True, text=True, timeout=60)
        assert res.returncode == 0, res.stderr
        line = proxy.wait_for_log(lambda l: l["path"] == "/inside")[0]
        # A request line, as inside a CONNECT tunnel, saying how the tunnel came in.
        assert line["scheme"] == "https" and line["method"] == "GET" and line["via"] == "socks5"
        assert json.loads(res.stdout)["sni"] == "upstream.test"
        verify_log(proxy)


@pytest.mark.parametrize("command,name", [(2, "BIND"), (3, "UDP-ASSOCIATE")])
def test_socks5_bind_and_udp_associate_are_refused(tmp_path, echo, command, name):
    with start_proxy(tmp_path, [f"echo.test:{echo.port}"]) as proxy:
        method, reply, sock = socks5_request(proxy.listen, "echo.test", echo.port, command=command)
        with sock:
            assert (method, reply) == (0, 7)  # command not supported
            assert recv_all(sock) == b""
        line = proxy.wait_for_log(lambda l: l["method"] == name)[0]
        assert line["outcome"] == "refused" and line["refusedBy"] == "socks-command-not-supported"
        assert line["via"] == "socks5" and line["scheme"] == "tcp"
        assert echo.connections == 0
        verify_log(proxy)


def test_socks5_refusals_name_and_address(tmp_path, echo):
    tcp = [f"echo.test:{echo.port}", f"localhost:{echo.port}", f"127.0.0.1:{echo.port}"]
    with start_proxy(tmp_path, tcp) as proxy:
        cases = [
            # A name in no list.
            ("evil.test", 22, "tcp-destination-not-allowed"),
            # A listed name on another port.
            ("echo.test", echo.port + 1 if echo.port < 65535 else 1, "tcp-destination-not-allowed"),
            # A private address, literally (ATYP IPv4), in no list.
            ("10.1.2.3", 5432, "tcp-destination-not-allowed"),
            # Listed, but it resolves to loopback (no alias names that address for it).
            ("localhost", echo.port, "destination-address"),
            # Listed as an IPv4 literal (ATYP IPv4): loopback is refused all the same.
            ("127.0.0.1", echo.port, "destination-address"),
            ("::1", echo.port, "tcp-destination-not-allowed"),  # ATYP IPv6
        ]
        for host, port, reason in cases:
            method, reply, sock = socks5_request(proxy.listen, host, port)
            sock.close()
            assert (method, reply) == (0, 2), host  # not allowed by ruleset
            line = proxy.wait_for_log(lambda l: l["host"] == host and l["port"] == port)[0]
            assert line["outcome"] == "refused" and line["refusedBy"] == reason, line
            assert line["via"] == "socks5" and line["status"] == 0
        assert echo.connections == 0
        # No acceptable method (username/password only): 0xFF, and a line.
        method, reply, sock = socks5_request(proxy.listen, "echo.test", echo.port, methods=(2,))
        sock.close()
        assert method == 0xFF and reply is None
        proxy.wait_for_log(lambda l: l.get("refusedBy") == "bad-request" and l.get("via") == "socks5")
        verify_log(proxy)


def test_a_flood_of_socks5_refusals_folds_and_summary_counts_it(tmp_path, echo):
    with start_proxy(tmp_path, [f"echo.test:{echo.port}"]) as proxy:
        for _ in range(300):
            _, reply, sock = socks5_request(proxy.listen, "evil.test", 22)
            sock.close()
            assert reply == 2
        proxy.wait_connections_closed()
        assert proxy.stop() == 0
        lines = [l for l in proxy.log_lines() if l["host"] == "evil.test"]
        # 20 whole lines of a kind in a window, the rest counted in folded lines.
        assert len(lines) < 40
        assert sum(l.get("count", 1) for l in lines) == 300
        assert all(l["via"] == "socks5" and l["refusedBy"] == "tcp-destination-not-allowed"
                   for l in lines)
        run = run_proxy(["log", "summary", "--json", "--pubkey",
                         os.path.join(proxy.state_dir, "log-key.pub"), proxy.log_path], timeout=60)
        assert run.returncode == 0, run.stderr
        tunnels = json.loads(run.stdout)["tcpTunnels"]
        assert tunnels == [{"destination": "evil.test:22", "tunnels": 300, "allowed": 0,
                            "refused": 300, "errors": 0, "bytesUp": 0, "bytesDown": 0,
                            "via": {"socks5": 300}}]
        suggest = run_proxy(["log", "suggest", proxy.log_path], timeout=60)
        assert suggest.returncode == 0, suggest.stderr
        assert json.loads(suggest.stdout)["tcp"] == ["evil.test:22"]


def test_connect_to_a_port_in_neither_list_is_refused(tmp_path, echo):
    with start_proxy(tmp_path, [f"echo.test:{echo.port}"], egress=["other.test:443"]) as proxy:
        for authority in [f"other.test:{echo.port}", f"evil.test:{echo.port}"]:
            status, sock = http_connect(proxy.listen, authority)
            sock.close()
            assert status == 403, authority
        assert echo.connections == 0


def test_a_tunnel_idle_past_the_idle_timeout_ends(tmp_path, echo):
    with start_proxy(tmp_path, [f"echo.test:{echo.port}"], args=["--idle-timeout", "1"]) as proxy:
        method, reply, sock = socks5_request(proxy.listen, "echo.test", echo.port)
        with sock:
            assert reply == 0
            sock.sendall(b"ping")
            assert recv_exactly(sock, 4) == b"ping"
            assert recv_all(sock) == b""  # the proxy ends it
        line = tunnel_line(proxy, "socks5", "echo.test")
        assert line["outcome"] == "error" and line["error"] == "idle-timeout"
        assert line["bytesUp"] == 4 and line["bytesDown"] == 4


def test_a_revoke_ends_open_tunnels_to_that_destination(tmp_path, echo):
    with start_proxy(tmp_path, [f"echo.test:{echo.port}"]) as proxy:
        method, reply, sock = socks5_request(proxy.listen, "echo.test", echo.port)
        with sock:
            assert reply == 0
            sock.sendall(b"before")
            assert recv_exactly(sock, 6) == b"before"
            # The new spec without the entry, as `sandbox-local revoke tcp:echo.test:PORT` makes it.
            spec = {"template": "debian:12", "egress": [], "tcp": []}
            run = subprocess.run([proxy_bin(), "policy", "--state-dir", proxy.state_dir, "--by", "test"],
                                 input=json.dumps(spec), capture_output=True, text=True,
                                 timeout=scaled(60))
            assert run.returncode == 0, run.stdout + run.stderr
            assert recv_all(sock) == b""
        line = tunnel_line(proxy, "socks5", "echo.test")
        assert line["outcome"] == "error" and line["error"] == "policy-revoked"
        change = [l for l in proxy.log_lines(evidence=True) if l.get("kind") == "policy"]
        assert change[-1]["change"] == "revoke" and change[-1]["ended"] == 1
        assert change[-1]["entries"] == [f"tcp:echo.test:{echo.port}"]
        # From now on the destination is refused.
        method, reply, sock = socks5_request(proxy.listen, "echo.test", echo.port)
        sock.close()
        assert reply == 2
        verify_log(proxy)


def test_a_destination_that_does_not_read_holds_the_client_back(tmp_path):
    """Backpressure: the relay reads from the client only as fast as the destination
    takes the bytes, so a sender cannot fill the proxy's memory."""
    stalled = socket.socket()
    stalled.bind(("127.0.0.1", 0))
    stalled.listen(4)
    port = stalled.getsockname()[1]
    accepted = []
    threading.Thread(target=lambda: accepted.append(stalled.accept()[0]), daemon=True).start()
    try:
        with start_proxy(tmp_path, [f"echo.test:{port}"]) as proxy:
            before = rss_bytes(proxy.pid)
            method, reply, sock = socks5_request(proxy.listen, "echo.test", port)
            assert reply == 0
            sock.settimeout(scaled(2))
            sent, chunk = 0, b"z" * 65536
            with sock:
                try:
                    while sent < 512 * 1024 * 1024:  # bounded; the proxy stops it far sooner
                        sent += sock.send(chunk)
                except socket.timeout:
                    pass
                grown = rss_bytes(proxy.pid) - before
            # Socket buffers on both legs (a few MiB each way on loopback) and the relay's
            # two 64 KiB buffers: nothing proportional to what the client tried to send.
            assert sent < 64 * 1024 * 1024, sent
            if rss_checks_apply():
                assert grown < 16 * 1024 * 1024, grown
            wait_until(lambda: accepted, 30, "the destination to accept")
            # Closed with bytes unread: the destination resets the connection.
            accepted[0].close()
            line = tunnel_line(proxy, "socks5", "echo.test")
            assert line["outcome"] == "error" and line["error"] == "upstream-reset"
            assert line["bytesUp"] <= sent
    finally:
        stalled.close()
        for conn in accepted:
            conn.close()


# --- ssh and git over CONNECT, to an sshd on loopback

class Sshd:
    """sshd in inetd mode (-i), one process per connection accepted on a
    kernel-chosen loopback port, with its own host key and configuration in
    `directory`; the client's key is the only one it accepts (for root, whose
    shell the test runs as)."""

    def __init__(self, directory):
        self.dir = directory
        os.makedirs(directory, exist_ok=True)
        self.host_key = os.path.join(directory, "host_key")
        self.client_key = os.path.join(directory, "client_key")
        for key in (self.host_key, self.client_key):
            subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key], check=True)
        shutil.copy(self.client_key + ".pub", os.path.join(directory, "authorized_keys"))
        self.config = os.path.join(directory, "sshd_config")
        with open(self.config, "w") as f:
            f.write(f"HostKey {self.host_key}\nAuthorizedKeysFile {directory}/authorized_keys\n"
                    "PermitRootLogin prohibit-password\nPasswordAuthentication no\n"
                    "KbdInteractiveAuthentication no\nUsePAM no\nStrictModes no\n"
                    "PidFile none\nLogLevel ERROR\n")
        os.makedirs("/run/sshd", exist_ok=True)  # sshd's privilege separation directory
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.children = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                self.children.append(subprocess.Popen(
                    ["/usr/sbin/sshd", "-i", "-f", self.config], stdin=conn, stdout=conn,
                    stderr=open(os.path.join(self.dir, "sshd.stderr"), "ab")))

    def known_hosts(self, name):
        path = os.path.join(self.dir, "known_hosts")
        with open(self.host_key + ".pub") as f:
            key = " ".join(f.read().split()[:2])
        with open(path, "w") as f:
            f.write(f"[{name}]:{self.port} {key}\n")
        return path

    def ssh_command(self, proxy, name):
        return (f"ssh -i {self.client_key} -o BatchMode=yes -o IdentitiesOnly=yes "
                f"-o UserKnownHostsFile={self.known_hosts(name)} -o StrictHostKeyChecking=yes "
                f"-o ProxyCommand='{sys.executable} {HERE}/osftest/connect_command.py "
                f"{proxy.listen} %h %p'")

    def stop(self):
        self.sock.close()
        for child in self.children:
            if child.poll() is None:
                child.kill()
            child.wait()


@pytest.fixture
def sshd(tmp_path):
    server = Sshd(str(tmp_path / "sshd"))
    yield server
    server.stop()


def test_git_clone_over_ssh_through_connect(tmp_path, sshd):
    origin = tmp_path / "origin.git"
    work = tmp_path / "work"
    subprocess.run(["git", "init", "-q", "-b", "main", str(work)], check=True)
    (work / "README").write_text("cloned over ssh through the egress proxy\n")
    git = ["git", "-C", str(work), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run(git + ["add", "README"], check=True)
    subprocess.run(git + ["commit", "-q", "-m", "first"], check=True)
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(origin)], check=True)
    with start_proxy(tmp_path, [f"git.test:{sshd.port}"]) as proxy:
        env = dict(os.environ, GIT_SSH_COMMAND=sshd.ssh_command(proxy, "git.test"))
        clone = subprocess.run(
            ["git", "clone", "-q", f"ssh://root@git.test:{sshd.port}{origin}", str(tmp_path / "c")],
            env=env, capture_output=True, text=True, timeout=scaled(120))
        assert clone.returncode == 0, clone.stderr
        assert (tmp_path / "c" / "README").read_text().startswith("cloned over ssh")
        line = tunnel_line(proxy, "connect", "git.test")
        assert line["outcome"] == "allowed" and line["port"] == sshd.port
        assert line["bytesUp"] > 1000 and line["bytesDown"] > 1000
        # A host not in the list: the ProxyCommand gets a 403, ssh fails.
        env = dict(os.environ, GIT_SSH_COMMAND=sshd.ssh_command(proxy, "other.test"))
        refused = subprocess.run(
            ["git", "clone", "-q", f"ssh://root@other.test:{sshd.port}{origin}", str(tmp_path / "d")],
            env=env, capture_output=True, text=True, timeout=scaled(120))
        assert refused.returncode != 0
        assert "403" in refused.stderr
        line = proxy.wait_for_log(lambda l: l["host"] == "other.test")[0]
        assert line["outcome"] == "refused" and line["refusedBy"] == "host-not-allowed"
        verify_log(proxy)


# --- psql through SOCKS5, to a throw-away PostgreSQL cluster on loopback

def _pg_bin(name):
    for base in ("/usr/lib/postgresql/15/bin", "/usr/local/bin", "/usr/bin"):
        if os.path.exists(os.path.join(base, name)):
            return os.path.join(base, name)
    return None


class SocksForwarder(RawServer):
    """A loopback port that opens, per connection, a SOCKS5 tunnel through the
    proxy to `host:port` and relays it: how a client without SOCKS support
    (psql) is pointed at the proxy, as proxychains or tsocks would."""

    def __init__(self, listen, host, port):
        self.target = (listen, host, port)
        super().__init__()

    def serve(self, conn):
        _, reply, up = socks5_request(*self.target)
        if reply != 0:
            conn.close()
            up.close()
            return
        up.settimeout(None)

        def pump(a, b):
            try:
                while data := a.recv(65536):
                    b.sendall(data)
                b.shutdown(socket.SHUT_WR)
            except OSError:
                pass
        t = threading.Thread(target=pump, args=(up, conn), daemon=True)
        t.start()
        pump(conn, up)
        t.join(scaled(60))
        conn.close()
        up.close()


@pytest.mark.skipif(not _pg_bin("initdb") or not _pg_bin("pg_ctl"), reason="PostgreSQL not installed")
def test_psql_through_socks5(tmp_path):
    # Its own directory under /tmp: pytest's is private to root, and PostgreSQL
    # refuses to run as root.
    top = tempfile.mkdtemp(prefix="osf-pg-")
    shutil.chown(top, "postgres")
    data = os.path.join(top, "data")
    as_postgres = ["runuser", "-u", "postgres", "--"]
    subprocess.run(as_postgres + [_pg_bin("initdb"), "-A", "trust", "-U", "postgres",
                                  "-D", data], check=True, capture_output=True)
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()  # PostgreSQL takes a port number, not a socket: this one was free a moment ago
    start = subprocess.run(as_postgres + [
        _pg_bin("pg_ctl"), "-D", data, "-w", "-l", os.path.join(top, "pg.log"),
        "-o", f"-c listen_addresses=127.0.0.1 -c port={port} -c unix_socket_directories=''",
        "start"], capture_output=True, text=True)
    assert start.returncode == 0, start.stderr
    try:
        with start_proxy(tmp_path, [f"db.test:{port}"]) as proxy:
            forwarder = SocksForwarder(proxy.listen, "db.test", port)
            try:
                res = subprocess.run(
                    ["psql", "-h", "127.0.0.1", "-p", str(forwarder.port), "-U", "postgres",
                     "-At", "-c", "select 6 * 7"],
                    capture_output=True, text=True, timeout=scaled(60),
                    env=dict(os.environ, PGCONNECT_TIMEOUT="30"))
            finally:
                forwarder.stop()
            assert res.returncode == 0, res.stderr
            assert res.stdout.strip() == "42"
            line = tunnel_line(proxy, "socks5", "db.test")
            assert line["outcome"] == "allowed" and line["port"] == port
            assert line["bytesUp"] > 0 and line["bytesDown"] > 0
            verify_log(proxy)
    finally:
        subprocess.run(as_postgres + [_pg_bin("pg_ctl"), "-D", data, "-m", "immediate", "stop"],
                       capture_output=True)
        shutil.rmtree(top, ignore_errors=True)
