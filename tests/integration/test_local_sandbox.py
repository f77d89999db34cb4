"""sandbox-local with the real CLI, the real egress-proxy, bubblewrap and real
clients (curl, python, git) inside local sandboxes, against HTTPS origins on the
host's loopback named by aliases. Every way around the proxy is tried from
inside and must fail: direct TCP and UDP to servers on the host's loopback and
on its other addresses, DNS, the host's Unix sockets (path and abstract)."""
import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time

import pytest

from osftest import TestCA as UpstreamCA  # aliased: pytest would collect a Test* class
from osftest import Upstream, build_dir, proxy_bin
from osftest.tiny_root import make_tiny_root
from osftest.waiting import wait_until

SECRET = "sk-live-real-value-0123456789"
PLACEHOLDER = "osf-secret-placeholder-API_TOKEN"

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")


def local_bin():
    return os.environ.get("SANDBOX_LOCAL_BIN") or os.path.join(build_dir(), "adapter", "sandbox-local")


class Local:
    """Runs sandbox-local with its own state directory and variables."""

    def __init__(self, state, env):
        self.state = state
        self.env = env

    def run(self, *args, input=None, timeout=120, env=None):
        return subprocess.run([local_bin(), *args], capture_output=True, text=True, input=input,
                              env={**self.env, **(env or {})}, timeout=timeout)

    def create(self, spec, name="spec.json", env=None):
        path = os.path.join(self.state, name)
        with open(path, "w") as f:
            json.dump(spec, f)
        res = self.run("create", path, env=env)
        assert res.returncode == 0, res.stderr
        sandbox_id = res.stdout.strip()
        assert re.fullmatch(r"[0-9a-f]{12}", sandbox_id), res.stdout
        return sandbox_id

    def sh(self, sandbox_id, script, input=None, timeout=120):
        return self.run("exec", sandbox_id, "--", "sh", "-c", script, input=input, timeout=timeout)

    def python(self, sandbox_id, code, timeout=120):
        return self.run("exec", sandbox_id, "--", "python3", "-c", code, timeout=timeout)

    def dir(self, sandbox_id):
        return os.path.join(self.state, "sandboxes", sandbox_id)

    def sandbox_dirs(self):
        """The sandboxes' directories in the state now (none before the first create made
        the folder: a test run first in a shuffled order sees none)."""
        sandboxes = os.path.join(self.state, "sandboxes")
        return sorted(os.listdir(sandboxes)) if os.path.isdir(sandboxes) else []


@pytest.fixture(scope="module")
def ca():
    with tempfile.TemporaryDirectory(prefix="osl-ca-") as d:
        yield UpstreamCA(d)


def answer_tools_list(handler, url, body):
    """The MCP server's side for tools/list: three tools, one of them not granted."""
    if url.path != "/mcp" or b'"tools/list"' not in body:
        return False
    request = json.loads(body)
    tools = [{"name": n, "inputSchema": {"type": "object"}} for n in ("search", "delete_everything", "fetch_page")]
    handler._send(200, json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": {"tools": tools}}).encode())
    return True


@pytest.fixture(scope="module")
def upstream(ca):
    with Upstream(ca, ["allowed.test", "tools.test", "refused.test"], route=answer_tools_list) as u:
        yield u


@contextlib.contextmanager
def local_state(ca, prefix, **extra_env):
    """A sandbox-local state directory with the test's variables; every sandbox left in it
    is destroyed afterwards. Short paths: Unix socket paths are limited to 107 bytes."""
    state = tempfile.mkdtemp(prefix=prefix, dir="/tmp")
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("OSF_") and not k.lower().endswith("_proxy")}
    env.update({
        "OSF_SANDBOX_LOCAL_STATE_DIR": state,
        "OSF_EGRESS_PROXY_BIN": proxy_bin(),
        "OSF_SANDBOX_HOST_ALIASES": "allowed.test=127.0.0.1,tools.test=127.0.0.1,refused.test=127.0.0.1",
        "OSF_UPSTREAM_CA_BUNDLE": ca.cert_path,
        "OSF_SECRET_API_TOKEN": SECRET,
        "OSF_SANDBOX_START_TIMEOUT": "60",
        **extra_env,
    })
    try:
        yield Local(state, env)
    finally:
        sandboxes = os.path.join(state, "sandboxes")
        for sandbox_id in os.listdir(sandboxes) if os.path.isdir(sandboxes) else []:
            subprocess.run([local_bin(), "destroy", sandbox_id], env=env, capture_output=True, timeout=60)
        shutil.rmtree(state, ignore_errors=True)


@pytest.fixture(scope="module")
def local(ca):
    with local_state(ca, "osl-", OSF_TEST_LEAK_SENTINEL="must-not-be-inside") as local:
        yield local


def spec_for(upstream):
    return {
        "template": "host",
        "env": {"GREETING": "hello"},
        "egress": ["allowed.test"],
        "secrets": {"API_TOKEN": "ref:env/API_TOKEN"},
        "mcp": [{"name": "tools", "url": f"https://tools.test:{upstream.port}/mcp", "tools": ["search"]}],
    }


@pytest.fixture(scope="module")
def sandbox(local, upstream):
    return local.create(spec_for(upstream))


def descendants(pid):
    """Every live process below `pid` (by parent links in /proc)."""
    children = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                parent = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(parent, []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def supervisor_pid(local, sandbox_id):
    with open(os.path.join(local.dir(sandbox_id), "supervisor.pid")) as f:
        return int(f.read())


# --- creating, and what the sandbox sees -------------------------------------------------------

def test_create_prints_an_id_and_list_shows_it_ready(local, sandbox):
    assert sandbox in local.run("list").stdout.split("\n")
    res = local.run("list", "-o", "wide")
    assert res.returncode == 0, res.stderr
    row = next(line for line in res.stdout.splitlines() if line.startswith(sandbox))
    assert row.split()[1] == "Ready" and row.split()[-1] == "host"
    listed = json.loads(local.run("list", "--json").stdout)
    assert {"id": sandbox, "status": "Ready", "image": "host"}.items() <= next(
        r for r in listed if r["id"] == sandbox).items()


def test_the_sandbox_sees_only_its_own_environment(local, sandbox):
    res = local.run("exec", sandbox, "--", "env")
    assert res.returncode == 0, res.stderr
    env = dict(line.split("=", 1) for line in res.stdout.splitlines() if "=" in line)
    assert env["GREETING"] == "hello"
    assert env["API_TOKEN"] == PLACEHOLDER
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"):
        assert env[name] == "http://127.0.0.1:8080"
    for name in ("ALL_PROXY", "all_proxy"):
        assert env[name] == "socks5h://127.0.0.1:1080"
    for name in ("SSL_CERT_FILE", "NODE_EXTRA_CA_CERTS", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE",
                 "GIT_SSL_CAINFO"):
        assert env[name] == "/etc/osf/egress-ca.crt"
    assert env["NO_PROXY"] == "" and env["HOME"] == "/workspace"
    assert "OSF_TEST_LEAK_SENTINEL" not in env and "OSF_SECRET_API_TOKEN" not in env
    assert "SSH_AUTH_SOCK" not in env
    assert SECRET not in res.stdout


def test_the_sandbox_sees_no_host_secrets_home_or_state(local, sandbox):
    res = local.sh(sandbox, "echo cwd=$(pwd) uid=$(id -u) host=$(hostname); "
                            "for p in /home /root /var /srv /opt /run/user /etc/shadow /etc/sudoers "
                            f"{local.state}; do [ -e $p ] && echo present=$p; done; "
                            "echo sslprivate=$(ls -A /etc/ssl/private | wc -l) run=$(ls /run/osf | tr '\\n' ,) "
                            "etcssh=$(ls -A /etc/ssh | tr '\\n' ,) "
                            "tmp=$(ls -A /tmp | wc -l) ca=$(grep -c BEGIN /etc/osf/egress-ca.crt); "
                            "touch /usr/x 2>/dev/null || echo usr=read-only")
    assert res.returncode == 0, res.stderr
    seen = dict(item.split("=", 1) for item in res.stdout.split())
    # Root in its own user namespace, whoever the caller is (adapter/docs/sandbox-local.md, "identity").
    assert seen["cwd"] == "/workspace" and seen["uid"] == "0"
    assert seen["host"] == f"osf-sandbox-{sandbox}"
    assert "present" not in seen, res.stdout
    assert seen["sslprivate"] == "0"  # an empty directory over the host's private keys
    # Never the host's /etc/ssh (its host keys): only the product's client configuration.
    assert seen["etcssh"] == "ssh_config,"
    assert seen["run"] == "egress.sock,sandbox-local,"
    assert seen["tmp"] == "0" and seen["ca"] == "1" and seen["usr"] == "read-only"


def test_only_loopback_in_the_network_namespace(local, sandbox):
    res = local.python(sandbox, "import socket; print(sorted(n for _, n in socket.if_nameindex()))")
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "['lo']"


# --- the proxy is the only way out ---------------------------------------------------------------

def test_allowed_host_through_the_proxy_with_the_secret_swapped_in(local, sandbox, upstream):
    res = local.sh(sandbox, "curl -sS --max-time 120 -H \"Authorization: Bearer $API_TOKEN\" "
                            f"-w '\\n%{{http_code}}' https://allowed.test:{upstream.port}/hello")
    assert res.returncode == 0, res.stderr
    body, status = res.stdout.rsplit("\n", 1)
    assert status == "200"
    echo = json.loads(body)
    assert echo["headers"]["authorization"] == f"Bearer {SECRET}"


def test_python_and_git_use_the_proxy_and_its_ca(local, sandbox, upstream):
    code = ("import json, urllib.request; "
            f"r = urllib.request.urlopen('https://allowed.test:{upstream.port}/from-python', timeout=20); "
            "print(r.status, json.load(r)['path'])")
    res = local.python(sandbox, code)
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["200", "/from-python"]
    # git asks the echo server (not a git server) for its refs: the request must
    # arrive through the proxy, TLS verified against the proxy's CA.
    res = local.run("exec", sandbox, "--", "git", "ls-remote", f"https://allowed.test:{upstream.port}/repo.git")
    assert "SSL" not in res.stderr and "certificate" not in res.stderr, res.stderr
    assert any(r["path"].startswith("/repo.git/info/refs") for r in upstream.requests)


def test_refused_host_gets_403(local, sandbox, upstream):
    res = local.sh(sandbox, f"curl -sS --max-time 120 -w '%{{http_connect}}' https://refused.test:{upstream.port}/")
    assert res.returncode != 0
    assert res.stdout.strip().endswith("403"), res.stdout + res.stderr
    assert not any(dict(r["headers"]).get("Host", "").startswith("refused") for r in upstream.requests)


def test_secret_placeholder_stays_a_placeholder_towards_other_hosts(local, sandbox, upstream):
    # tools.test is reachable only as an MCP server: not an egress host, so no secret.
    res = local.sh(sandbox, "curl -sS --max-time 120 -H 'Content-Type: application/json' "
                            "-H \"Authorization: Bearer $API_TOKEN\" "
                            "-d '{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"search\",\"arguments\":{}}}' "
                            f"https://tools.test:{upstream.port}/mcp")
    assert res.returncode == 0, res.stderr
    echo = json.loads(res.stdout)
    assert echo["headers"]["authorization"] == f"Bearer {PLACEHOLDER}"
    assert all(SECRET.encode() not in r for r in upstream.received if b"tools.test" in r)


def test_mcp_tool_not_granted_is_refused_and_never_arrives(local, sandbox, upstream):
    before = len(upstream.requests)
    res = local.sh(sandbox, "curl -sS --max-time 120 -H 'Content-Type: application/json' "
                            "-d '{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"delete_everything\",\"arguments\":{}}}' "
                            f"https://tools.test:{upstream.port}/mcp")
    assert res.returncode == 0, res.stderr
    answer = json.loads(res.stdout)
    assert answer["id"] == 7 and answer["error"]["code"] == -32602
    assert "delete_everything" in answer["error"]["message"]
    assert not any(b"delete_everything" in r for r in upstream.received[before:])


def test_mcp_tools_list_is_pruned_to_the_granted_tools(local, sandbox, upstream):
    res = local.sh(sandbox, "curl -sS --max-time 120 -H 'Content-Type: application/json' "
                            "-H 'Accept: application/json, text/event-stream' "
                            "-d '{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\"}' "
                            f"https://tools.test:{upstream.port}/mcp")
    assert res.returncode == 0, res.stderr
    answer = json.loads(res.stdout)
    assert [tool["name"] for tool in answer["result"]["tools"]] == ["search"]


def test_mcp_sdk_client_inside_sees_and_calls_only_granted_tools(local, ca, tmp_path):
    """The official MCP TypeScript SDK client (tests/mcp), copied into the
    sandbox, against the SDK server on the host, through the sandbox's proxy."""
    from test_mcp import DECLARED, MCP_DIR, McpServer, _ensure_node_modules
    _ensure_node_modules()
    cert, key = ca.issue(["mcp-json.test"])
    server = McpServer(str(tmp_path), cert, key)
    try:
        url = f"https://mcp-json.test:{server.port}/mcp-json"
        aliases = local.env["OSF_SANDBOX_HOST_ALIASES"] + ",mcp-json.test=127.0.0.1"
        sandbox_id = local.create({"template": "host", "mcp": [{"name": "wiki", "url": url, "tools": DECLARED}]},
                                  name="mcp.json", env={"OSF_SANDBOX_HOST_ALIASES": aliases})
        res = local.run("copy", MCP_DIR, f"{sandbox_id}:mcp")
        assert res.returncode == 0, res.stderr

        def client(*args):
            res = local.run("exec", sandbox_id, "--", "node", "mcp/client.mjs", "--url", url,
                            "--transport", "streamable", "--proxy", "http://127.0.0.1:8080", *args)
            assert res.stdout.strip(), res.stderr
            return json.loads(res.stdout.strip().splitlines()[-1])

        listed = client()
        assert listed["tools"] == DECLARED, listed
        refused = client("--skip-list", "--call", "delete_everything", "--args", json.dumps({"text": "all"}))
        assert refused["call"]["error"]["code"] == -32602, refused
        called = client("--skip-list", "--call", "search", "--args", json.dumps({"text": "kittens"}))
        assert "result" in called["call"], called
        assert "search" in server.calls("json") and "delete_everything" not in server.calls("json")
        assert local.run("destroy", sandbox_id).returncode == 0
    finally:
        server.stop()


def test_direct_tcp_to_the_hosts_loopback_fails(local, sandbox, upstream):
    code = ("import socket\n"
            f"for port in ({upstream.port}, 22, 80, 443):\n"
            "    s = socket.socket(); s.settimeout(5)\n"
            "    try:\n"
            "        s.connect(('127.0.0.1', port)); print('connected', port)\n"
            "    except OSError as e:\n"
            "        print('failed', port, type(e).__name__)\n")
    before = upstream.connections
    res = local.python(sandbox, code)
    assert res.returncode == 0, res.stderr
    assert "connected" not in res.stdout and res.stdout.count("failed") == 4, res.stdout
    assert upstream.connections == before


def test_another_sandboxs_proxy_is_out_of_reach_through_an_alias(local, sandbox, upstream):
    """allowed.test is aliased to 127.0.0.1 on purpose (its origin runs there), and egress
    allows any port of it: another sandbox's proxy and admin port are Unix sockets in its
    state directory, so there is no port of the host's loopback to reach them by (they
    were TCP ports; test_local_reach.py attacks them from another user and state directory)."""
    other = local.create(spec_for(upstream), name="other.json")
    try:
        with open(os.path.join(local.dir(other), "proxy", "listen.json")) as f:
            listen = json.load(f)
        for address in (listen["proxy"], listen["admin"]):
            assert address.startswith("unix:" + local.dir(other) + "/"), address
        # And its own origin on the same loopback still answers.
        out = local.sh(sandbox, f"curl -sS -o /dev/null -w '%{{http_code}}' --max-time 120 "
                                f"https://allowed.test:{upstream.port}/").stdout
        assert out == "200", out
    finally:
        assert local.run("destroy", other).returncode == 0


def host_addresses():
    out = subprocess.run(["ip", "-o", "addr", "show"], capture_output=True, text=True).stdout
    addresses = []
    for line in out.splitlines():
        fields = line.split()
        if fields[1] != "lo" and fields[2] in ("inet", "inet6"):
            address = fields[3].split("/")[0]
            if not address.startswith("fe80"):
                addresses.append(address)
    return addresses


def test_direct_tcp_and_udp_to_the_hosts_addresses_fail(local, sandbox):
    # A TCP and a UDP server on every host address (and 0.0.0.0): nothing may arrive.
    tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    tcp.bind(("0.0.0.0", 0))
    tcp.listen(8)
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("0.0.0.0", 0))
    udp.settimeout(0.5)
    tcp_port, udp_port = tcp.getsockname()[1], udp.getsockname()[1]
    targets = ["127.0.0.1"] + [a for a in host_addresses() if ":" not in a] + ["8.8.8.8", "169.254.169.254"]
    code = ("import socket, sys\n"
            f"for host in {targets!r}:\n"
            "    s = socket.socket(); s.settimeout(5)\n"
            "    try:\n"
            f"        s.connect((host, {tcp_port})); print('tcp-connected', host)\n"
            "    except OSError as e:\n"
            "        print('tcp-failed', host, e.errno)\n"
            "    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
            "    try:\n"
            f"        u.sendto(b'escape', (host, {udp_port})); print('udp-sent', host)\n"
            "    except OSError as e:\n"
            "        print('udp-failed', host, e.errno)\n")
    try:
        res = local.python(sandbox, code)
        assert res.returncode == 0, res.stderr
        assert "tcp-connected" not in res.stdout, res.stdout
        tcp.settimeout(0.5)
        with pytest.raises(socket.timeout):
            tcp.accept()
        with pytest.raises(socket.timeout):
            udp.recvfrom(100)
    finally:
        tcp.close()
        udp.close()


def test_dns_goes_nowhere(local, sandbox):
    code = ("import socket\n"
            "for name in ('allowed.test', 'localhost.localdomain', 'deb.debian.org'):\n"
            "    try:\n"
            "        print('resolved', name, socket.getaddrinfo(name, 443)[0][4])\n"
            "    except OSError as e:\n"
            "        print('unresolved', name)\n"
            "query = bytes.fromhex('abcd01000001000000000000076578616d706c6503636f6d0000010001')\n"
            "for server in ('127.0.0.53', '127.0.0.1', '8.8.8.8', '1.1.1.1'):\n"
            "    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.settimeout(2)\n"
            "    try:\n"
            "        u.sendto(query, (server, 53)); u.recvfrom(512); print('answered', server)\n"
            "    except OSError as e:\n"
            "        print('no-answer', server)\n")
    res = local.python(sandbox, code)
    assert res.returncode == 0, res.stderr
    assert "answered" not in res.stdout, res.stdout
    for name in ("allowed.test", "deb.debian.org"):
        assert f"unresolved {name}" in res.stdout


def test_host_unix_sockets_are_out_of_reach(local, sandbox):
    directory = tempfile.mkdtemp(prefix="osl-sock-", dir="/tmp")
    path = os.path.join(directory, "host.sock")
    named = socket.socket(socket.AF_UNIX)
    named.bind(path)
    named.listen(1)
    abstract_name = f"\0osf-local-test-{os.getpid()}"
    abstract = socket.socket(socket.AF_UNIX)
    abstract.bind(abstract_name)
    abstract.listen(1)
    code = ("import socket\n"
            f"for address in ({path!r}, {abstract_name!r}, '/run/dbus/system_bus_socket', '/var/run/docker.sock'):\n"
            "    s = socket.socket(socket.AF_UNIX)\n"
            "    try:\n"
            "        s.connect(address); print('connected', repr(address))\n"
            "    except OSError as e:\n"
            "        print('failed', e.errno)\n")
    try:
        res = local.python(sandbox, code)
        assert res.returncode == 0, res.stderr
        assert "connected" not in res.stdout and res.stdout.count("failed") == 4, res.stdout
        for listener in (named, abstract):
            listener.settimeout(0.3)
            with pytest.raises(socket.timeout):
                listener.accept()
    finally:
        named.close()
        abstract.close()
        shutil.rmtree(directory, ignore_errors=True)


def test_egress_log_records_allowed_and_refused_without_secret_values(local, sandbox, upstream):
    local.sh(sandbox, f"curl -s -o /dev/null https://allowed.test:{upstream.port}/logged; "
                      f"curl -s -o /dev/null https://refused.test:{upstream.port}/ ; true")
    res = local.run("egress-log", sandbox)
    assert res.returncode == 0, res.stderr
    lines = [json.loads(line) for line in res.stdout.splitlines() if line.strip()]
    # Request lines (the log also holds the proxy's own records, without a host).
    requests = [l for l in lines if "host" in l]
    assert any(l["host"] == "allowed.test" and l.get("path") == "/logged" and l["outcome"] == "allowed"
               for l in requests)
    assert any(l["host"] == "refused.test" and l["outcome"] != "allowed" for l in requests)
    assert SECRET not in res.stdout


# --- exec, copy --------------------------------------------------------------------------------

def test_exec_exit_codes_and_stdin(local, sandbox):
    assert local.sh(sandbox, "exit 7").returncode == 7
    res = local.run("exec", sandbox, "--", "no-such-command-here")
    assert res.returncode == 127 and "no-such-command-here" in res.stderr
    res = local.run("exec", sandbox, "--", "/etc/passwd")
    assert res.returncode == 126 and "/etc/passwd" in res.stderr
    assert local.sh(sandbox, "kill -9 $$").returncode == 137
    res = local.run("exec", sandbox, "--", "tr", "a-z", "A-Z", input="piped through\n")
    assert res.returncode == 0 and res.stdout == "PIPED THROUGH\n"
    res = local.sh(sandbox, "echo out; echo err >&2")
    assert res.stdout == "out\n" and res.stderr == "err\n"
    # The words after -- reach the command as written: no list reading of "[a,b]",
    # no option of ours taken from them.
    res = local.run("exec", sandbox, "--", "printf", "%s|", "[x]", "[a,b]", "--timeout", "-h", "--")
    assert res.returncode == 0 and res.stdout == "[x]|[a,b]|--timeout|-h|--|", res


def test_exec_and_usage_errors(local):
    res = local.run("exec", "0123456789ab", "--", "true")
    assert res.returncode == 1 and res.stderr.strip() == "sandbox-local: no sandbox 0123456789ab"
    res = local.run("exec", "not-an-id", "--", "true")
    assert res.returncode == 2 and "invalid sandbox ID 'not-an-id'" in res.stderr
    res = local.run("frobnicate")
    assert res.returncode == 2
    assert res.stderr.startswith("sandbox-local: unknown command 'frobnicate'; the commands are create, exec")
    res = local.run("--version")
    assert res.returncode == 0 and res.stdout.startswith("sandbox-local ")


def test_copy_both_ways(local, sandbox, tmp_path):
    src = tmp_path / "project"
    (src / "sub").mkdir(parents=True)
    (src / "a.txt").write_text("alpha\n")
    (src / "sub" / "b.bin").write_bytes(bytes(range(256)) * 100)
    res = local.run("copy", str(src), f"{sandbox}:project")
    assert res.returncode == 0, res.stderr
    res = local.sh(sandbox, "cd project && cat a.txt && wc -c < sub/b.bin && echo built > out.txt")
    assert res.stdout.split() == ["alpha", "25600"], res.stderr
    res = local.run("copy", f"{sandbox}:project", str(tmp_path / "back"))
    assert res.returncode == 0, res.stderr
    assert (tmp_path / "back" / "out.txt").read_text() == "built\n"
    assert (tmp_path / "back" / "sub" / "b.bin").read_bytes() == bytes(range(256)) * 100
    single = tmp_path / "one.txt"
    single.write_text("single file\n")
    assert local.run("copy", str(single), f"{sandbox}:one.txt").returncode == 0
    assert local.run("copy", f"{sandbox}:/workspace/one.txt", str(tmp_path / "one-back.txt")).returncode == 0
    assert (tmp_path / "one-back.txt").read_text() == "single file\n"
    res = local.run("copy", f"{sandbox}:missing", str(tmp_path / "x"))
    assert res.returncode == 1 and "no /workspace/missing in sandbox" in res.stderr


# --- lifecycle ---------------------------------------------------------------------------------

def test_the_specs_user_runs_the_commands(local):
    sandbox_id = local.create({"template": "host", "user": {"uid": 1000, "gid": 1000}}, name="user.json")
    res = local.sh(sandbox_id, "id -u; id -g; touch /workspace/mine && stat -c %u /workspace/mine")
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["1000", "1000", "1000"]
    assert local.run("destroy", sandbox_id).returncode == 0


def test_spec_errors_exit_2_and_start_nothing(local, upstream):
    for spec, message in [({"template": "node:24-alpine"}, "is not in buildah's local storage"),
                          ({"template": "host", "egress": ["bad host"]}, "invalid spec"),
                          ({"template": "/no/such/root"}, "is not a directory"),
                          ({"template": "host", "secrets": {"X": "ref:env/NOT_SET_ANYWHERE"}}, "cannot resolve secret X")]:
        path = os.path.join(local.state, "bad.json")
        with open(path, "w") as f:
            json.dump(spec, f)
        res = local.run("create", path)
        assert res.returncode == 2, (spec, res.stderr)
        assert message in res.stderr and res.stderr.startswith("sandbox-local: ")
    with open(path, "w") as f:
        json.dump({"template": "no-such-snapshot"}, f)
    res = local.run("create", path)
    assert res.returncode == 1 and "no template no-such-snapshot" in res.stderr


def test_dry_run_shows_the_plan_and_starts_nothing(local, upstream):
    path = os.path.join(local.state, "dry.json")
    with open(path, "w") as f:
        json.dump(spec_for(upstream), f)
    before = set(local.sandbox_dirs())
    res = local.run("create", "--dry-run", path)
    assert res.returncode == 0, res.stderr
    plan = json.loads(res.stdout)
    assert plan["proxy"]["variables"] == ["OSF_SECRET_API_TOKEN", "OSF_SANDBOX_HOST_ALIASES",
                                          "OSF_UPSTREAM_CA_BUNDLE"]
    argv = plan["sandbox"]["argv"]
    assert argv[0] == "bwrap" and "--unshare-net" in argv and "--clearenv" in argv
    # The ssh client configuration the sandbox gets at /etc/ssh/ssh_config, shown whole.
    ssh_config = plan["sandbox"]["sshConfig"]
    assert "    ProxyCommand /run/osf/sandbox-local __connect %h %p\n" in ssh_config
    # Run by root, /etc is staged as one tree, the ssh client configuration in it; run by an
    # ordinary user, bwrap binds it itself.
    staged = {bind["target"]: bind for bind in plan["sandbox"]["staged"]}
    if os.geteuid() == 0:
        i = argv.index("/etc")
        assert argv[i - 2:i] == ["--ro-bind", "/run/osf-stage/etc"]
        assert staged["/run/osf-stage/etc/ssh/ssh_config"]["source"].endswith("/ssh_config")
        hidden = {"shadow", "shadow-", "gshadow", "gshadow-", "sudoers", "sudoers.d", "ssh",
                  "resolv.conf", "krb5.keytab", "credstore", "credstore.encrypted",
                  "NetworkManager", "wpa_supplicant", "openvpn", "wireguard", "osf"}
        links = [name for name in os.listdir("/etc")
                 if os.path.islink(os.path.join("/etc", name)) and name not in hidden]
        for name in links:  # a link is made there, nothing bound
            assert staged[f"/run/osf-stage/etc/{name}"] == {
                "link": os.readlink(os.path.join("/etc", name)),
                "target": f"/run/osf-stage/etc/{name}"}
        assert "/run/osf-stage/etc/shadow" not in staged
    else:
        i = argv.index("/etc/ssh/ssh_config")
        assert argv[i - 2] == "--ro-bind" and argv[i - 1].endswith("/ssh_config")
    assert SECRET not in res.stdout and PLACEHOLDER in res.stdout
    # The policy it would start with, shaped as list -o json shows it.
    assert plan["policy"] == {"egress": ["allowed.test"], "mcp": {"tools": ["search"]}}
    assert set(local.sandbox_dirs()) == before


def test_snapshot_and_a_sandbox_started_from_it(local, upstream):
    first = local.create(spec_for(upstream))
    assert local.sh(first, "mkdir -p keep && echo kept > keep/file").returncode == 0
    res = local.run("snapshot", first)
    assert res.returncode == 0, res.stderr
    template = res.stdout.strip()
    assert re.fullmatch(rf"osf-snapshot-{first}-\d{{14}}", template)
    assert local.run("destroy", first).returncode == 0
    second = local.create({**spec_for(upstream), "template": template}, name="again.json")
    res = local.sh(second, "cat keep/file")
    assert res.stdout == "kept\n", res.stderr
    assert local.run("destroy", second).returncode == 0


def test_destroy_leaves_no_process_mount_or_file(local, upstream):
    sandbox_id = local.create(spec_for(upstream))
    supervisor = supervisor_pid(local, sandbox_id)
    started = descendants(supervisor)
    assert len(started) >= 3  # the proxy, bwrap and what runs inside
    res = local.run("destroy", sandbox_id)
    assert res.returncode == 0 and res.stderr.strip() == f"removed sandbox {sandbox_id}"
    wait_until(lambda: not any(alive(p) for p in [supervisor, *started]), 30, "the sandbox's processes to end")
    assert not os.path.exists(local.dir(sandbox_id))
    with open("/proc/self/mountinfo") as f:
        assert sandbox_id not in f.read()
    assert local.run("destroy", sandbox_id).returncode == 1


def test_sigkilled_supervisor_takes_the_sandbox_with_it_and_gc_cleans(local, upstream):
    sandbox_id = local.create(spec_for(upstream))
    supervisor = supervisor_pid(local, sandbox_id)
    started = descendants(supervisor)
    os.kill(supervisor, signal.SIGKILL)
    wait_until(lambda: not any(alive(p) for p in [supervisor, *started]), 30,
               "the sandbox to end with its supervisor")
    row = next(l for l in local.run("list", "-o", "wide").stdout.splitlines() if l.startswith(sandbox_id))
    assert row.split()[1] == "Stopped"
    res = local.run("exec", sandbox_id, "--", "true")
    assert res.returncode == 1 and "is not running" in res.stderr
    res = local.run("gc")
    assert res.returncode == 0 and f"{sandbox_id} supervisor gone" in res.stdout
    assert not os.path.exists(local.dir(sandbox_id))


@pytest.fixture(scope="module")
def rootfs():
    """A tiny root file system: dash and cat with their libraries, an /etc marker."""
    root = make_tiny_root(["/bin/sh", "/bin/cat"])
    os.makedirs(os.path.join(root, "etc"))
    with open(os.path.join(root, "etc", "marker"), "w") as f:
        f.write("tiny root\n")
    yield root
    shutil.rmtree(root, ignore_errors=True)


def test_a_root_file_system_directory_as_template(local, rootfs):
    sandbox_id = local.create({"template": rootfs}, name="rootfs.json")
    res = local.sh(sandbox_id, "cat /etc/marker; [ -e /usr/bin/python3 ] || echo no-host-python; "
                               "echo written > /workspace/f; cat /workspace/f; read -r first < /etc/osf/egress-ca.crt; echo \"$first\"")
    assert res.returncode == 0, res.stderr
    assert res.stdout == "tiny root\nno-host-python\nwritten\n-----BEGIN CERTIFICATE-----\n", res.stdout
    assert local.run("destroy", sandbox_id).returncode == 0


def test_an_ordinary_user_runs_sandboxes_with_state_in_xdg_state_home(upstream, ca):
    """As nobody (setpriv from root): unprivileged user namespaces, state under
    $XDG_STATE_HOME, the same isolation and proxy."""
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("needs root to switch to an ordinary user")
    with open("/proc/sys/user/max_user_namespaces") as f:
        if f.read().strip() == "0":
            pytest.skip("user namespaces are disabled here")
    for binary in (local_bin(), proxy_bin()):
        path = os.path.realpath(binary)
        while path != "/":
            if not os.stat(path).st_mode & 0o001:
                pytest.skip(f"{binary} is not reachable by other users ({path})")
            path = os.path.dirname(path)
    home = tempfile.mkdtemp(prefix="osl-user-", dir="/tmp")
    os.chmod(home, 0o777)
    spec = os.path.join(home, "spec.json")
    with open(spec, "w") as f:
        json.dump({"template": "host", "egress": ["allowed.test"]}, f)
    os.chmod(spec, 0o644)
    ca_copy = os.path.join(home, "upstream-ca.crt")
    shutil.copy(ca.cert_path, ca_copy)
    os.chmod(ca_copy, 0o644)
    env = {"PATH": "/usr/bin:/bin", "HOME": home, "XDG_STATE_HOME": os.path.join(home, "state"),
           "OSF_EGRESS_PROXY_BIN": proxy_bin(), "OSF_UPSTREAM_CA_BUNDLE": ca_copy,
           "OSF_SANDBOX_HOST_ALIASES": "allowed.test=127.0.0.1"}

    def as_nobody(*args):
        return subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                               local_bin(), *args], capture_output=True, text=True, env=env, timeout=120)
    try:
        res = as_nobody("create", spec)
        if res.returncode != 0 and "not allowed here" in res.stderr:
            pytest.skip(res.stderr.strip())
        assert res.returncode == 0, res.stderr
        sandbox_id = res.stdout.strip()
        assert os.path.isdir(os.path.join(home, "state", "osf-sandbox-local", "sandboxes", sandbox_id))
        res = as_nobody("exec", sandbox_id, "--", "sh", "-c",
                        "id -u; ip -o link | wc -l; curl -sS --max-time 120 -o /dev/null -w '%{http_code}' "
                        f"https://allowed.test:{upstream.port}/as-a-user")
        assert res.returncode == 0, res.stderr
        # root inside (as in Kubernetes' root mode); on the host, this user
        assert res.stdout.split() == ["0", "1", "200"], res.stdout
        # copy out: tar confined by bwrap in its own user namespace, as this user too
        res = as_nobody("exec", sandbox_id, "--", "sh", "-c",
                        "mkdir d && echo hi > d/f && chmod 4755 d/f && ln -s /etc/passwd d/l")
        assert res.returncode == 0, res.stderr
        res = as_nobody("copy", f"{sandbox_id}:d", os.path.join(home, "out"))
        assert res.returncode == 0 and res.stderr == "copy: skipped symlink d/l -> /etc/passwd\n", res.stderr
        assert os.listdir(os.path.join(home, "out")) == ["f"]
        mode = os.stat(os.path.join(home, "out", "f")).st_mode
        assert mode & 0o7000 == 0 and mode & 0o100, oct(mode)
        res = as_nobody("snapshot", sandbox_id)  # cp -a under bwrap, as this user
        assert res.returncode == 0, res.stderr
        snapshot = os.path.join(home, "state", "osf-sandbox-local", "snapshots", res.stdout.strip())
        assert os.readlink(os.path.join(snapshot, "workspace", "d", "l")) == "/etc/passwd"
        assert os.stat(os.path.join(snapshot, "workspace", "d", "f")).st_mode & 0o7000 == 0
        assert as_nobody("destroy", sandbox_id).returncode == 0
    finally:
        shutil.rmtree(home, ignore_errors=True)
