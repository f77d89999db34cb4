"""What a running proxy may reach, changed without restarting it (POST /policy on the
admin port, with the token in its state directory): a host outside the spec is allowed
(a CA of its own, trusted through the rewritten ca.crt) and revoked, an MCP tool is
allowed, a TLS tunnel open across the changes has each request judged by the rules in
force when it comes, nothing without the token (or from the proxy port) changes
anything, what may not change live is refused, and the log verifies with its policy
lines, each request saying which rules admitted it. `egress-proxy policy` (the same
request from beside the proxy) and its exit codes."""
import base64
import json
import os
import socket
import ssl
import subprocess
import time
import urllib.error
import urllib.request

import pytest

from osftest import Proxy, TestCA, Upstream, proxy_bin
from osftest.clients import body_of, curl, status_of
from osftest.proxy import run_proxy
from test_bypass_mcp import jsonrpc_route
from test_bypass_smuggling import RawUpstream, open_tunnel, proxy_address, read_response

OLD, NEW, MCP = "api.live.test", "registry.other.test", "mcp.live.test"
ALIASES = {OLD: "127.0.0.1", NEW: "127.0.0.1", MCP: "127.0.0.1"}


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    ca = TestCA(str(tmp_path_factory.mktemp("live-ca")))
    https = Upstream(ca, [OLD, NEW])
    mcp = RawUpstream(route=jsonrpc_route)
    yield ca, https, mcp
    https.stop()
    mcp.stop()


def spec_of(mcp, egress, tools=("search",)):
    return {"template": "debian:12", "egress": list(egress),
            "secrets": {"API_TOKEN": "ref:env/API_TOKEN"},
            "mcp": [{"name": "tools", "url": f"http://{MCP}:{mcp.port}/mcp", "tools": list(tools)}]}


@pytest.fixture
def proxy(servers, tmp_path):
    ca, _, mcp = servers
    p = Proxy(spec_of(mcp, [OLD]), str(tmp_path / "p"), aliases=ALIASES,
              upstream_ca=ca.cert_path, env={"OSF_SECRET_API_TOKEN": "live-token-value"})
    yield p
    p.stop()


def post_policy(proxy, spec, by="operator@test", token=None, raw=None):
    """POST /policy straight to the admin port (no proxy from the environment)."""
    if token is None:
        with open(os.path.join(proxy.state_dir, "admin-token")) as f:
            token = f.read().strip()
    body = raw if raw is not None else json.dumps({"spec": json.dumps(spec), "by": by}).encode()
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(proxy.admin_url + "/policy", data=body, method="POST",
                                     headers=headers)
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(request, timeout=15) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def policy_lines(proxy):
    return [l for l in proxy.log_lines(evidence=True) if l.get("kind") == "policy"]


def tools_call(proxy, mcp, tool):
    body = json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                       "params": {"name": tool, "arguments": {}}})
    return curl(proxy, f"http://{MCP}:{mcp.port}/mcp", "-X", "POST", "-H",
                "Content-Type: application/json", "-H",
                "Accept: application/json, text/event-stream", "--data", body)


def get_on(sock, host, port, path):
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode())
    return read_response(sock)


def test_allow_a_host_outside_the_spec_then_revoke_it(servers, proxy):
    _, https, _ = servers
    assert status_of(curl(proxy, https.url(NEW, "/before"))) in (0, 403)
    with open(proxy.ca_path) as f:
        assert f.read().count("BEGIN CERTIFICATE") == 1

    status, answer = post_policy(proxy, spec_of(servers[2], [OLD, NEW]))
    assert status == 200, answer
    assert json.loads(answer) == {"generation": 1, "allowed": [NEW], "revoked": [],
                                  "toolsAllowed": [], "toolsRevoked": []}
    # The CA made at start may sign only for the spec's names: a second one, in the bundle.
    with open(proxy.ca_path) as f:
        assert f.read().count("BEGIN CERTIFICATE") == 2
    res = curl(proxy, https.url(NEW, "/after-allow"), check=True)
    assert status_of(res) == 200
    assert status_of(curl(proxy, https.url(OLD, "/old-still"))) == 200

    status, answer = post_policy(proxy, spec_of(servers[2], [OLD]), by="reviewer@test")
    assert status == 200, answer
    assert json.loads(answer)["revoked"] == [NEW] and json.loads(answer)["generation"] == 2
    res = curl(proxy, https.url(NEW, "/after-revoke"))
    assert status_of(res) in (0, 403)

    changes = policy_lines(proxy)
    assert [(l["change"], l["entries"], l["by"], l["generation"]) for l in changes] == [
        ("allow", [NEW], "operator@test", 1), ("revoke", [NEW], "reviewer@test", 2)]
    requests = [l for l in proxy.log_lines() if l.get("path", "").startswith("/")]
    by_path = {l["path"]: l for l in requests}
    assert by_path["/after-allow"]["outcome"] == "allowed" and by_path["/after-allow"]["policy"] == 1
    assert "policy" not in by_path.get("/before", {"outcome": "refused"})
    key = os.path.join(proxy.state_dir, "log-key.pub")
    run = run_proxy(["log", "verify", "--pubkey", key, proxy.log_path], timeout=60)
    assert run.returncode == 0, run.stdout + run.stderr


def test_a_tunnel_open_across_a_revoke_of_its_host_is_ended(servers, proxy):
    _, https, mcp = servers
    with open_tunnel(proxy, OLD, https.port, server_hostname=OLD) as tls, \
            open_tunnel(proxy, OLD, https.port, server_hostname=OLD) as kept_alive:
        assert get_on(tls, OLD, https.port, "/first")[0] == 200
        status, answer = post_policy(proxy, spec_of(mcp, [NEW]))
        assert status == 200, answer
        # Issue 41: the revoke ended the tunnels (it used to stay open, each request
        # in it judged again; nothing could end a WebSocket in it).
        assert get_on(tls, OLD, https.port, "/second")[0] == 0
        assert closed_within(kept_alive, 10)
    revoke = [l for l in policy_lines(proxy) if l["change"] == "revoke"][-1]
    assert revoke["entries"] == [OLD] and revoke["ended"] == 2, revoke
    assert not any(l.get("path") == "/second" for l in proxy.log_lines())
    status, _ = post_policy(proxy, spec_of(mcp, [OLD]))
    assert status == 200
    with open_tunnel(proxy, OLD, https.port, server_hostname=OLD) as tls:
        assert get_on(tls, OLD, https.port, "/third")[0] == 200


def closed_within(sock, seconds):
    """True when the peer closes `sock` (EOF or reset) within `seconds`; data read is dropped."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        sock.settimeout(max(0.05, deadline - time.monotonic()))
        try:
            if not sock.recv(65536):
                return True
        except socket.timeout:
            continue
        except (OSError, ssl.SSLError):
            return True
    return False


def ws_frame(text):
    """A masked client text frame (RFC 6455), payload under 126 bytes."""
    payload, mask = text.encode(), os.urandom(4)
    return bytes([0x81, 0x80 | len(payload)]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


@pytest.fixture(scope="module")
def plain_upstream():
    u = Upstream()  # plain HTTP: ws:// in absolute form
    yield u
    u.stop()


@pytest.mark.parametrize("route", ["tunnel", "absolute-form"])
def test_an_open_websocket_to_a_revoked_host_is_ended(servers, proxy, plain_upstream, route):
    _, https, mcp = servers
    key = base64.b64encode(os.urandom(16)).decode()
    if route == "tunnel":
        opened, port, target = open_tunnel(proxy, OLD, https.port, server_hostname=OLD), https.port, "/ws"
    else:
        port = plain_upstream.port
        opened, target = socket.create_connection(proxy_address(proxy), timeout=15), f"http://{OLD}:{port}/ws"
    with opened as tls:
        tls.sendall((f"GET {target} HTTP/1.1\r\nHost: {OLD}:{port}\r\nUpgrade: websocket\r\n"
                     f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            more = tls.recv(1)
            assert more, head
            head += more
        assert head.startswith(b"HTTP/1.1 101"), head
        tls.sendall(ws_frame("before"))
        echoed = b""
        while b"before" not in echoed:
            more = tls.recv(65536)
            assert more, echoed
            echoed += more
        status, answer = post_policy(proxy, spec_of(mcp, [NEW]), by="reviewer@test")
        assert status == 200, answer
        try:
            tls.sendall(ws_frame("after"))
        except OSError:
            pass
        assert closed_within(tls, 10), "the WebSocket to the revoked host still carries frames"
    revoke = [l for l in policy_lines(proxy) if l["change"] == "revoke"][-1]
    assert revoke["ended"] == 1 and revoke["by"] == "reviewer@test", revoke
    line = proxy.wait_for_log(lambda l: l.get("path") == "/ws")[0]
    assert line["upgrade"] == "websocket"


def test_an_mcp_tool_is_allowed_while_the_session_runs(servers, proxy):
    _, _, mcp = servers
    res = tools_call(proxy, mcp, "delete_everything")
    assert status_of(res) == 200 and "Unknown tool: delete_everything" in body_of(res)
    status, answer = post_policy(proxy, spec_of(mcp, [OLD], tools=("search", "delete_everything")))
    assert status == 200 and json.loads(answer)["toolsAllowed"] == ["tools:delete_everything"]
    res = tools_call(proxy, mcp, "delete_everything")
    assert status_of(res) == 200 and "called delete_everything" in body_of(res)
    assert policy_lines(proxy)[-1]["tools"] == ["tools:delete_everything"]


def test_nothing_changes_without_the_token(servers, proxy):
    _, https, mcp = servers
    wider = spec_of(mcp, [OLD, NEW])
    assert post_policy(proxy, wider, token="")[0] == 401
    assert post_policy(proxy, wider, token="0" * 64)[0] == 401
    # The sandbox's only way out is the proxy port: it cannot reach the admin port.
    host, port = proxy.admin.rsplit(":", 1)
    res = curl(proxy, f"http://{host}:{port}/policy", "-X", "POST", "--data", "{}")
    assert status_of(res) == 403
    assert status_of(curl(proxy, https.url(NEW, "/still-refused"))) in (0, 403)
    assert policy_lines(proxy) == []


def test_what_may_not_change_live_is_refused(servers, proxy):
    _, _, mcp = servers
    other_secret = spec_of(mcp, [OLD, NEW])
    other_secret["secrets"] = {"API_TOKEN": "ref:env/OTHER"}
    status, answer = post_policy(proxy, other_secret)
    assert status == 409 and "$.secrets differs" in answer
    moved = spec_of(mcp, [OLD])
    moved["mcp"][0]["url"] = f"http://{MCP}:{mcp.port}/other"
    assert post_policy(proxy, moved)[0] == 409
    bad = spec_of(mcp, [OLD, "https://not-a-host/"])
    status, answer = post_policy(proxy, bad)
    assert status == 400 and "$.egress[1]" in answer
    assert post_policy(proxy, None, raw=b"{not json")[0] == 400
    status, answer = post_policy(proxy, spec_of(mcp, [OLD]))
    assert status == 200 and json.loads(answer)["generation"] == 0  # nothing to change
    assert policy_lines(proxy) == []


def policy_command(proxy, spec_text, *args, state_dir=None):
    """`egress-proxy policy`, as sandbox-kubernetes runs it beside the proxy (in its pod)."""
    return subprocess.run([proxy_bin(), "policy", "--state-dir", state_dir or proxy.state_dir, *args],
                          input=spec_text, capture_output=True, text=True, timeout=60)


def test_the_policy_subcommand_posts_from_beside_the_proxy(servers, proxy, tmp_path):
    _, https, mcp = servers
    with open(os.path.join(proxy.state_dir, "admin-token")) as f:
        token = f.read().strip()
    res = policy_command(proxy, json.dumps(spec_of(mcp, [OLD, NEW])), "--by", "operator@pod")
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout) == {"generation": 1, "allowed": [NEW], "revoked": [],
                                      "toolsAllowed": [], "toolsRevoked": []}
    assert [(l["change"], l["entries"], l["by"]) for l in policy_lines(proxy)] == [("allow", [NEW], "operator@pod")]
    assert status_of(curl(proxy, https.url(NEW, "/via-subcommand"))) == 200
    # The proxy's refusals are the input's fault: exit 2, its reason on one line, nothing changed.
    other_secret = spec_of(mcp, [OLD, NEW])
    other_secret["secrets"] = {"API_TOKEN": "ref:env/OTHER"}
    res = policy_command(proxy, json.dumps(other_secret))
    assert res.returncode == 2 and res.stdout == ""
    assert res.stderr.startswith("egress-proxy: the proxy refused the new policy (409): ") and \
        "$.secrets differs" in res.stderr and res.stderr.count("\n") == 1
    res = policy_command(proxy, "{not json")
    assert res.returncode == 2 and "(400): the new spec is not valid" in res.stderr
    assert policy_command(proxy, "  \n").returncode == 2
    # No answer: no running proxy in that state directory, or a token that is not its own
    # (401); the token is never printed.
    res = policy_command(proxy, json.dumps(spec_of(mcp, [OLD])), state_dir=str(tmp_path / "none"))
    assert res.returncode == 1 and "no running proxy named in" in res.stderr
    fake = tmp_path / "fake-state"
    fake.mkdir()
    with open(os.path.join(proxy.state_dir, "listen.json")) as f:
        (fake / "listen.json").write_text(f.read())
    (fake / "admin-token").write_text("0" * 64 + "\n")
    res = policy_command(proxy, json.dumps(spec_of(mcp, [OLD])), state_dir=str(fake))
    assert res.returncode == 1 and "(401)" in res.stderr
    assert token not in res.stdout + res.stderr and "0" * 64 not in res.stderr
    assert [l["change"] for l in policy_lines(proxy)] == ["allow"]
