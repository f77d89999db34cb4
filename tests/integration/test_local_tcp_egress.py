"""Raw TCP egress from a local sandbox, with real clients inside and real servers on the
host's loopback, as root and as an ordinary user: `git clone` and `ssh` over SSH with no
flags (the sandbox's /etc/ssh/ssh_config sends them through the product's CONNECT helper),
`curl --socks5-hostname` and curl through ALL_PROXY (SOCKS5 on the sandbox's
127.0.0.1:1080), and `psql` to a throw-away PostgreSQL cluster through SOCKS5 (proxychains4,
as a user would wrap a client that has no proxy support). A destination not in the spec's
`tcp` list is refused at the proxy. Each connection is a line of the egress log, which
`egress-log --verify` accepts."""
import contextlib
import glob
import http.server
import json
import os
import shutil
import socket
import subprocess
import tempfile
import threading

import pytest

from osftest import TestCA as UpstreamCA  # aliased: pytest would collect a Test* class
from osftest.waiting import wait_until
from test_local_boundary import runner_for

pytestmark = [
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed"),
    pytest.mark.skipif(not os.path.exists("/usr/sbin/sshd"), reason="openssh-server is not installed "
                       "(scripts/install-deps.sh)"),
]

ALIASES = "git.test=127.0.0.1,web.test=127.0.0.1,db.test=127.0.0.1,other.test=127.0.0.1"


class SshServer:
    """sshd in inetd mode behind a listener on a kernel-chosen loopback port: each accepted
    connection is one `sshd -i` (so no port is guessed). Root logs in with the key the test
    authorizes; the host key is made here and handed to the sandbox as known_hosts."""

    def __init__(self, directory):
        self.dir = directory
        self.host_key = os.path.join(directory, "host_key")
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", self.host_key], check=True)
        self.authorized = os.path.join(directory, "authorized_keys")
        open(self.authorized, "w").close()
        self.config = os.path.join(directory, "sshd_config")
        with open(self.config, "w") as f:
            f.write(f"HostKey {self.host_key}\nAuthorizedKeysFile {self.authorized}\nStrictModes no\n"
                    "PasswordAuthentication no\nKbdInteractiveAuthentication no\nUsePAM no\n"
                    "PermitRootLogin prohibit-password\nPidFile none\nLogLevel VERBOSE\n")
        self.log = os.path.join(directory, "sshd.log")
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(16)
        self.port = self.listener.getsockname()[1]
        self.processes = []
        self.accepted = 0
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        with open(self.log, "ab") as log:
            while True:
                try:
                    conn, _ = self.listener.accept()
                except OSError:
                    return
                self.accepted += 1
                with conn:
                    self.processes.append(subprocess.Popen(
                        ["/usr/sbin/sshd", "-i", "-e", "-f", self.config], stdin=conn, stdout=conn,
                        stderr=log))

    def known_hosts_line(self, name):
        with open(self.host_key + ".pub") as f:
            key = " ".join(f.read().split()[:2])
        return f"[{name}]:{self.port} {key}\n"

    def authorize(self, public_key):
        with open(self.authorized, "a") as f:
            f.write(public_key.strip() + "\n")

    def close(self):
        self.listener.close()
        for process in self.processes:
            if process.poll() is None:
                process.kill()
            process.wait(timeout=30)


class Postgres:
    """A throw-away cluster in a temporary directory, run as the `postgres` user (initdb and
    the server refuse root), on a loopback port the kernel chose a moment before."""

    def __init__(self, directory):
        bins = sorted(glob.glob("/usr/lib/postgresql/*/bin"))
        if not bins:
            pytest.skip("PostgreSQL is not installed (scripts/install-deps.sh)")
        self.bin = bins[-1]
        self.dir = directory
        self.data = os.path.join(directory, "data")
        user = subprocess.run(["id", "-u", "postgres"], capture_output=True, text=True)
        if user.returncode != 0:
            pytest.skip("no postgres user")
        self.uid = int(user.stdout)
        self.gid = int(subprocess.run(["id", "-g", "postgres"], capture_output=True, text=True).stdout)
        os.chown(directory, self.uid, self.gid)
        self._as_postgres([f"{self.bin}/initdb", "-A", "trust", "-U", "postgres", "-D", self.data])
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self._as_postgres([f"{self.bin}/pg_ctl", "-D", self.data, "-l", os.path.join(directory, "log"),
                           "-w", "-t", "60", "-o",
                           f"-p {self.port} -k {directory} -c listen_addresses=127.0.0.1", "start"])

    def _as_postgres(self, argv):
        res = subprocess.run(["setpriv", f"--reuid={self.uid}", f"--regid={self.gid}", "--clear-groups",
                              *argv], capture_output=True, text=True, timeout=120, cwd=self.dir)
        assert res.returncode == 0, res.stdout + res.stderr

    def close(self):
        self._as_postgres([f"{self.bin}/pg_ctl", "-D", self.data, "-m", "immediate", "-w", "stop"])


class Greeting(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = b"plain http through a tcp tunnel\n"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def servers():
    if os.geteuid() != 0:
        pytest.skip("sshd (inetd mode, root login) and the postgres user need root")
    directory = tempfile.mkdtemp(prefix="osl-tcp-", dir="/tmp")
    os.chmod(directory, 0o755)
    # What Debian's ssh service makes at start: sshd run by root refuses to start without it.
    os.makedirs("/run/sshd", mode=0o755, exist_ok=True)
    os.mkdir(os.path.join(directory, "ssh"))
    ssh = SshServer(os.path.join(directory, "ssh"))
    repo = os.path.join(directory, "repo.git")
    work = os.path.join(directory, "work")
    subprocess.run(["git", "init", "-q", "--bare", repo], check=True)
    subprocess.run(["git", "init", "-q", work], check=True)
    with open(os.path.join(work, "README"), "w") as f:
        f.write("cloned over ssh\n")
    git = ["git", "-C", work, "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "add", "README"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "first"], check=True)
    subprocess.run([*git, "push", "-q", repo, "HEAD:refs/heads/main"], check=True)
    subprocess.run(["git", "-C", repo, "symbolic-ref", "HEAD", "refs/heads/main"], check=True)
    web = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Greeting)
    threading.Thread(target=web.serve_forever, daemon=True).start()
    pg_dir = os.path.join(directory, "pg")
    os.mkdir(pg_dir)
    postgres = Postgres(pg_dir)
    try:
        yield {"ssh": ssh, "repo": repo, "web": web, "postgres": postgres}
    finally:
        postgres.close()
        web.shutdown()
        web.server_close()
        ssh.close()
        shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture(scope="module", params=["root", "user"])
def runner(request, ca):
    with runner_for(request.param, ca) as r:
        r.env["OSF_SANDBOX_HOST_ALIASES"] = ALIASES
        yield r


@pytest.fixture(scope="module")
def ca():
    with tempfile.TemporaryDirectory(prefix="osl-tcp-ca-") as d:
        os.chmod(d, 0o755)
        yield UpstreamCA(d)


@pytest.fixture(scope="module")
def sandbox(runner, servers):
    ssh, web, postgres = servers["ssh"], servers["web"], servers["postgres"]
    spec = {"template": "host",
            "tcp": [f"git.test:{ssh.port}", f"web.test:{web.server_address[1]}",
                    f"db.test:{postgres.port}"]}
    sandbox_id = runner.create(spec, name="tcp.json")
    # The sandbox's own key, made inside; the server's host key, trusted in the workspace.
    res = runner.sh(sandbox_id, "mkdir -p ~/.ssh && ssh-keygen -q -t ed25519 -N '' -f ~/.ssh/id_ed25519 "
                                "&& cat ~/.ssh/id_ed25519.pub")
    assert res.returncode == 0, res.stderr
    ssh.authorize(res.stdout)
    res = runner.sh(sandbox_id, "cat >> ~/.ssh/known_hosts",
                    input=ssh.known_hosts_line("git.test") + ssh.known_hosts_line("other.test"))
    assert res.returncode == 0, res.stderr
    return sandbox_id


def log_lines(runner, sandbox_id):
    res = runner.run("egress-log", sandbox_id)
    assert res.returncode == 0, res.stderr
    return [json.loads(line) for line in res.stdout.splitlines() if line.strip()]


def tcp_line(runner, sandbox_id, host, port, allowed=True):
    """The egress log's line for a tunnel to host:port (once the proxy has written it: a
    tunnel's line is written when it ends)."""
    def found():
        for line in log_lines(runner, sandbox_id):
            if line.get("host") == host and line.get("port") == port and \
                    (line.get("outcome") == "allowed") == allowed:
                return line
        return None
    return wait_until(found, timeout=30, what=f"the log line of {host}:{port}")


def verified(runner, sandbox_id):
    res = runner.run("egress-log", sandbox_id, "--verify")
    assert res.returncode == 0, res.stdout + res.stderr


def test_the_sandbox_is_told_where_socks_and_ssh_go(runner, sandbox):
    res = runner.sh(sandbox, "echo $ALL_PROXY $all_proxy; cat /etc/ssh/ssh_config")
    assert res.returncode == 0, res.stderr
    first, config = res.stdout.split("\n", 1)
    assert first == "socks5h://127.0.0.1:1080 socks5h://127.0.0.1:1080"
    assert "ProxyCommand /run/osf/sandbox-local __connect %h %p" in config
    # Read-only, as everything under / but the sandbox's own places.
    assert runner.sh(sandbox, "echo x >> /etc/ssh/ssh_config").returncode != 0


def test_git_clone_over_ssh_with_no_flags(runner, sandbox, servers):
    ssh = servers["ssh"]
    res = runner.sh(sandbox, f"git clone -q ssh://root@git.test:{ssh.port}{servers['repo']} cloned "
                             "&& cat cloned/README", timeout=180)
    assert res.returncode == 0, res.stderr
    assert res.stdout == "cloned over ssh\n"
    line = tcp_line(runner, sandbox, "git.test", ssh.port)
    assert line["scheme"] == "tcp" and line["via"] == "connect"
    assert line["bytesUp"] > 0 and line["bytesDown"] > 0
    verified(runner, sandbox)


def test_ssh_to_a_host_not_in_tcp_is_refused_at_the_proxy(runner, sandbox, servers):
    ssh = servers["ssh"]
    accepted = ssh.accepted
    res = runner.sh(sandbox, f"ssh -o BatchMode=yes -p {ssh.port} root@other.test true", timeout=120)
    assert res.returncode == 255
    assert f"the egress proxy refused other.test:{ssh.port}" in res.stderr, res.stderr
    assert ssh.accepted == accepted  # never reached the server
    line = tcp_line(runner, sandbox, "other.test", ssh.port, allowed=False)
    assert line.get("refusedBy")
    verified(runner, sandbox)


def test_ssh_runs_a_command_on_an_allowed_host(runner, sandbox, servers):
    ssh = servers["ssh"]
    res = runner.sh(sandbox, f"ssh -o BatchMode=yes -p {ssh.port} root@git.test echo over-the-tunnel",
                    timeout=120)
    assert res.returncode == 0, res.stderr
    assert res.stdout == "over-the-tunnel\n"


def test_curl_through_socks5(runner, sandbox, servers):
    port = servers["web"].server_address[1]
    res = runner.sh(sandbox, f"curl -sS --socks5-hostname 127.0.0.1:1080 http://web.test:{port}/explicit")
    assert res.returncode == 0, res.stderr
    assert res.stdout == "plain http through a tcp tunnel\n"
    # With no flag: ALL_PROXY, once the HTTP proxy variables are out of the way.
    res = runner.sh(sandbox, "unset http_proxy HTTP_PROXY; "
                             f"curl -sS http://web.test:{port}/all-proxy")
    assert res.returncode == 0, res.stderr
    assert res.stdout == "plain http through a tcp tunnel\n"
    line = tcp_line(runner, sandbox, "web.test", port)
    assert line["scheme"] == "tcp" and line["via"] == "socks5"
    verified(runner, sandbox)


def test_socks5_to_a_name_not_in_tcp_is_refused(runner, sandbox, servers):
    port = servers["web"].server_address[1]
    res = runner.sh(sandbox, f"curl -sS --socks5-hostname 127.0.0.1:1080 http://other.test:{port}/")
    assert res.returncode == 97, (res.returncode, res.stderr)  # curl: the SOCKS proxy refused
    line = tcp_line(runner, sandbox, "other.test", port, allowed=False)
    assert line["via"] == "socks5" and line["refusedBy"]


def test_psql_through_socks5(runner, sandbox, servers):
    if shutil.which("proxychains4") is None:
        pytest.skip("proxychains4 is not installed (scripts/install-deps.sh)")
    port = servers["postgres"].port
    # The client itself (the host's /usr is the sandbox's), not Debian's perl wrapper.
    psql = os.path.join(servers["postgres"].bin, "psql")
    config = "strict_chain\nproxy_dns\nquiet_mode\n[ProxyList]\nsocks5 127.0.0.1 1080\n"
    res = runner.sh(sandbox, "cat > /workspace/proxychains.conf", input=config)
    assert res.returncode == 0, res.stderr
    res = runner.sh(sandbox, "proxychains4 -q -f /workspace/proxychains.conf "
                             f"{psql} -X -A -t 'host=db.test port={port} user=postgres dbname=postgres "
                             "sslmode=disable' -c 'select 40 + 2'", timeout=120)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "42"
    line = tcp_line(runner, sandbox, "db.test", port)
    assert line["scheme"] == "tcp" and line["via"] == "socks5"
    verified(runner, sandbox)


def test_the_connect_helper_says_what_is_wrong(runner, sandbox):
    res = runner.run("exec", sandbox, "--", "/run/osf/sandbox-local", "__connect", "git.test", "0")
    assert res.returncode == 2
    assert res.stderr == "sandbox-local connect: the port is not a number from 1 to 65535\n"


def listed_policy(runner, sandbox_id):
    res = runner.run("list", "-o", "json")
    assert res.returncode == 0, res.stderr
    return next(row["policy"] for row in json.loads(res.stdout) if row["id"] == sandbox_id)


def test_revoke_and_allow_a_tcp_destination_of_a_running_sandbox(runner, sandbox, servers):
    port = servers["web"].server_address[1]
    entry = f"tcp:web.test:{port}"
    curl = f"curl -sS --socks5-hostname 127.0.0.1:1080 http://web.test:{port}/live"
    assert f"web.test:{port}" in listed_policy(runner, sandbox)["tcp"]
    res = runner.run("revoke", sandbox, entry)
    assert res.returncode == 0, res.stderr
    assert res.stdout.startswith(f"revoked in {sandbox}: {entry} (policy ")
    assert f"web.test:{port}" not in listed_policy(runner, sandbox).get("tcp", [])
    res = runner.sh(sandbox, curl)
    assert res.returncode == 97, (res.returncode, res.stderr)  # refused from the next request on
    res = runner.run("allow", sandbox, entry)
    assert res.returncode == 0, res.stderr
    res = runner.sh(sandbox, curl)
    assert res.returncode == 0, res.stderr
    assert f"web.test:{port}" in listed_policy(runner, sandbox)["tcp"]
    verified(runner, sandbox)
