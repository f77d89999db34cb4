"""Secrets through the real proxy: the sandbox holds placeholders, the
upstream receives real values (headers, Basic credentials from git's
credential helper, values from OpenBao), MCP-only hosts get placeholders
untouched, a missing secret stops the proxy with exit 2, and the real
values appear in no output a test can see."""
import base64
import json
import os
import secrets as random_tokens
import subprocess
import sys

import pytest

from osftest import Proxy, ProxyExited, TestCA, Upstream, repo
from osftest.clients import body_of, curl, status_of

sys.path.insert(0, os.path.join(repo(), "tests", "openbao"))
from runner import OpenBaoServer  # noqa: E402

PREFIX = "osf-secret-placeholder-"
API_TOKEN = "real-api-token-" + random_tokens.token_hex(8)
GIT_USER = "real-git-user-" + random_tokens.token_hex(4)
GIT_TOKEN = "real-git-token-" + random_tokens.token_hex(8)
BAO_VALUE = "real-openbao-value-" + random_tokens.token_hex(8)
BAO_TOKEN = "bao-root-token-" + random_tokens.token_hex(8)
ALL_VALUES = [API_TOKEN, GIT_USER, GIT_TOKEN, BAO_VALUE, BAO_TOKEN]

API, GIT, MCP = "api.secrets.test", "git.secrets.test", "mcp.secrets.test"


def encoded_forms(value):
    """The value and what it looks like inside Basic credentials."""
    forms = {value}
    for credentials in (f"{GIT_USER}:{value}", f"{value}:{GIT_TOKEN}", f"x:{value}"):
        forms.add(base64.b64encode(credentials.encode()).decode())
    return forms


def assert_no_real_value(*texts):
    for text in texts:
        if isinstance(text, bytes):
            text = text.decode(errors="replace")
        for value in ALL_VALUES:
            for form in encoded_forms(value):
                assert form not in text, f"a real secret value leaked into: {text[:500]!r}"


def proxy_outputs(proxy):
    log = ""
    if os.path.exists(proxy.log_path):
        with open(proxy.log_path) as f:
            log = f.read()
    return [proxy.stderr(), proxy.stdout(), log]


# Upstream routes: each checks what arrived and answers without echoing it.

def api_route(handler, url, body):
    if url.path == "/check":
        ok = (handler.headers.get("Authorization") == f"Bearer {API_TOKEN}"
              and handler.headers.get("X-Api-Key") == f"key={API_TOKEN};again={API_TOKEN}")
        handler._send(200 if ok else 401, json.dumps({"authorized": ok}).encode())
        return True
    if url.path == "/basic":
        expected = "Basic " + base64.b64encode(f"{GIT_USER}:{GIT_TOKEN}".encode()).decode()
        ok = handler.headers.get("Authorization") == expected
        handler._send(200 if ok else 401, json.dumps({"authorized": ok}).encode())
        return True
    if url.path == "/echo-back":
        # A careless server reflecting the credential in response headers.
        auth = handler.headers.get("Authorization", "")
        handler._send(200, b"{}", extra=[("X-Echo-Authorization", auth),
                                         ("Set-Cookie", "session=" + auth.split(" ")[-1])])
        return True
    return False


def mcp_route(handler, url, body):
    if url.path != "/mcp" or handler.command != "POST":
        return False
    request = json.loads(body)
    answer = {"jsonrpc": "2.0", "id": request.get("id"), "result": {"tools": []}}
    handler._send(200, json.dumps(answer).encode())
    return True


def git_route_for(project_root):
    expected = "Basic " + base64.b64encode(f"{GIT_USER}:{GIT_TOKEN}".encode()).decode()

    def route(handler, url, body):
        if not url.path.startswith("/repo.git"):
            return False
        auth = handler.headers.get("Authorization")
        if auth is None:
            handler._send(401, b"credentials required\n", "text/plain",
                          [("WWW-Authenticate", 'Basic realm="git"')])
            return True
        if auth != expected:
            handler._send(403, b"wrong credentials\n", "text/plain")
            return True
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "GIT_PROJECT_ROOT": project_root, "GIT_HTTP_EXPORT_ALL": "1",
            "PATH_INFO": url.path, "QUERY_STRING": url.query,
            "REQUEST_METHOD": handler.command, "REMOTE_USER": "git", "REMOTE_ADDR": "127.0.0.1",
            "CONTENT_TYPE": handler.headers.get("Content-Type", ""),
            "CONTENT_LENGTH": str(len(body)),
        }
        for header, variable in (("Content-Encoding", "HTTP_CONTENT_ENCODING"),
                                 ("Git-Protocol", "GIT_PROTOCOL")):
            if handler.headers.get(header):
                env[variable] = handler.headers[header]
        out = subprocess.run(["git", "http-backend"], input=body, env=env, capture_output=True,
                             timeout=60).stdout
        sep = b"\r\n\r\n" if b"\r\n\r\n" in out else b"\n\n"
        head, _, payload = out.partition(sep)
        status, headers = 200, []
        for line in head.decode().splitlines():
            name, _, value = line.partition(":")
            if name.lower() == "status":
                status = int(value.strip().split()[0])
            elif name:
                headers.append((name, value.strip()))
        handler.send_response(status)
        for name, value in headers:
            handler.send_header(name, value)
        handler.send_header("Content-Length", str(len(payload)))
        handler.end_headers()
        handler.wfile.write(payload)
        return True

    return route


@pytest.fixture(scope="module")
def ca(tmp_path_factory):
    return TestCA(str(tmp_path_factory.mktemp("upstream-ca")))


@pytest.fixture(scope="module")
def git_project(tmp_path_factory):
    root = tmp_path_factory.mktemp("git-project")
    work = root / "work"
    env = {**os.environ, "HOME": str(root), "GIT_CONFIG_NOSYSTEM": "1"}
    run = lambda *argv, cwd=None: subprocess.run(argv, cwd=cwd, env=env, check=True,
                                                 capture_output=True, timeout=60)
    run("git", "init", "-q", "-b", "main", str(work))
    (work / "README.md").write_text("cloned through the egress proxy\n")
    run("git", "-c", "user.name=t", "-c", "user.email=t@example.com", "add", ".", cwd=work)
    run("git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "one",
        cwd=work)
    run("git", "clone", "-q", "--bare", str(work), str(root / "repo.git"))
    return str(root)


@pytest.fixture
def upstreams(ca, git_project):
    api = Upstream(ca, [API], route=api_route)
    git = Upstream(ca, [GIT], route=git_route_for(git_project))
    mcp = Upstream(ca, [MCP], route=mcp_route)
    yield api, git, mcp
    for server in (api, git, mcp):
        server.stop()


def spec_for(api, git, mcp, extra_secrets=None):
    return {
        "template": "node:24-alpine",
        "egress": [API, GIT],
        "secrets": {"API_TOKEN": "ref:env/API_TOKEN", "GIT_USER": "ref:env/GIT_USER",
                    "GIT_TOKEN": "ref:file/git-token", **(extra_secrets or {})},
        "mcp": [{"name": "wiki", "url": f"https://{MCP}:{mcp.port}/mcp", "tools": ["search"]}],
    }


@pytest.fixture
def proxy(tmp_path, ca, upstreams):
    api, git, mcp = upstreams
    secrets_dir = tmp_path / "secrets"
    secrets_dir.mkdir()
    (secrets_dir / "git-token").write_text(GIT_TOKEN + "\n")
    with Proxy(spec_for(api, git, mcp), str(tmp_path / "proxy"), upstream_ca=ca.cert_path,
               aliases={API: "127.0.0.1", GIT: "127.0.0.1", MCP: "127.0.0.1"},
               env={"OSF_SECRET_API_TOKEN": API_TOKEN, "OSF_SECRET_GIT_USER": GIT_USER,
                    "OSF_SECRETS_DIR": str(secrets_dir)}) as running:
        yield running
        assert_no_real_value(*proxy_outputs(running))


def test_curl_headers_carry_real_values_upstream(proxy, upstreams):
    api, _, _ = upstreams
    res = curl(proxy, api.url(API, "/check"), "-D", "-",
               "-H", f"Authorization: Bearer {PREFIX}API_TOKEN",
               "-H", f"X-Api-Key: key={PREFIX}API_TOKEN;again={PREFIX}API_TOKEN")
    assert status_of(res) == 200, res.stdout + res.stderr
    # -D - also prints the CONNECT answer (text mode turns CRLF into LF).
    assert json.loads(body_of(res).rsplit("\n\n", 1)[1]) == {"authorized": True}
    line = proxy.wait_for_log(lambda l: l.get("path") == "/check")[0]
    assert line["outcome"] == "allowed"
    assert line["secrets"] == ["API_TOKEN"]
    assert_no_real_value(res.stdout, res.stderr, *proxy_outputs(proxy))


def test_plain_http_requests_with_a_placeholder_are_refused(tmp_path, proxy):
    # A real value is only written to a TLS connection the proxy verified: the
    # same request over plain HTTP is refused before anything is sent.
    with Upstream(None, route=api_route) as plain:
        res = curl(proxy, plain.url(API, "/check"),
                   "-H", f"Authorization: Bearer {PREFIX}API_TOKEN",
                   "-H", f"X-Api-Key: key={PREFIX}API_TOKEN;again={PREFIX}API_TOKEN")
        assert status_of(res) == 403, res.stdout + res.stderr
        line = proxy.wait_for_log(lambda l: l.get("scheme") == "http" and l.get("path") == "/check")
        assert line[0]["refusedBy"] == "secret-cleartext" and "secrets" not in line[0]
        assert plain.requests == []
        assert_no_real_value(res.stdout, res.stderr)


def test_basic_credentials_are_substituted(proxy, upstreams):
    api, _, _ = upstreams
    res = curl(proxy, api.url(API, "/basic"), "-u", f"{PREFIX}GIT_USER:{PREFIX}GIT_TOKEN")
    assert status_of(res) == 200, res.stdout + res.stderr
    line = proxy.wait_for_log(lambda l: l.get("path") == "/basic")[0]
    assert line["secrets"] == ["GIT_TOKEN", "GIT_USER"]
    assert_no_real_value(res.stdout, res.stderr)


def test_git_clone_with_a_credential_helper_returning_placeholders(proxy, upstreams, tmp_path):
    _, git, _ = upstreams
    home = tmp_path / "home"
    home.mkdir()
    helper = ("!f() { test \"$1\" = get || exit 0; "
              f"echo username={PREFIX}GIT_USER; echo password={PREFIX}GIT_TOKEN; }}; f")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home),
           "GIT_CONFIG_NOSYSTEM": "1", "GIT_TERMINAL_PROMPT": "0",
           "GIT_SSL_CAINFO": proxy.ca_path}
    res = subprocess.run(["git", "-c", f"http.proxy={proxy.url}", "-c", "credential.helper=",
                          "-c", f"credential.helper={helper}", "clone",
                          git.url(GIT, "/repo.git"), str(tmp_path / "clone")],
                         env=env, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert (tmp_path / "clone" / "README.md").read_text() == "cloned through the egress proxy\n"
    # The upstream saw the real credentials; the proxy logged only their names.
    credentials = [base64.b64decode(value.split()[-1]).decode()
                   for r in git.requests for name, value in r["headers"]
                   if name.lower() == "authorization"]
    assert credentials and set(credentials) == {f"{GIT_USER}:{GIT_TOKEN}"}
    lines = proxy.wait_for_log(lambda l: l.get("host") == GIT and l.get("secrets"))
    assert all(l["secrets"] == ["GIT_TOKEN", "GIT_USER"] for l in lines)
    assert_no_real_value(res.stdout, res.stderr)


def test_mcp_only_host_gets_the_placeholder_untouched(proxy, upstreams):
    _, _, mcp = upstreams
    res = curl(proxy, mcp.url(MCP, "/mcp"),
               "-H", f"Authorization: Bearer {PREFIX}API_TOKEN",
               "-H", "Content-Type: application/json",
               "-H", "Accept: application/json, text/event-stream",
               "--data", json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
    assert status_of(res) == 200, res.stdout + res.stderr
    received = [r for r in mcp.requests if r["path"] == "/mcp"]
    assert received, "the MCP server saw no request"
    auth = dict((k.lower(), v) for k, v in received[-1]["headers"])["authorization"]
    assert auth == f"Bearer {PREFIX}API_TOKEN"
    line = proxy.wait_for_log(lambda l: l.get("host") == MCP)[0]
    assert not line.get("secrets")
    assert_no_real_value(res.stdout, res.stderr, *[r["body"] for r in mcp.requests])


# SecretStore::restore_placeholders does this; the HTTP exchange in
# egress-proxy/src/net must call it on response headers. Strict: once wired,
# this passes and the marker must go.
def test_values_echoed_in_response_headers_do_not_reach_the_sandbox(proxy, upstreams):
    api, _, _ = upstreams
    res = curl(proxy, api.url(API, "/echo-back"), "-D", "-",
               "-H", f"Authorization: Bearer {PREFIX}API_TOKEN")
    assert status_of(res) == 200, res.stderr
    # What the sandbox sees is its own placeholder again.
    assert f"x-echo-authorization: bearer {PREFIX}api_token" in res.stdout.lower()
    assert_no_real_value(res.stdout, res.stderr)


def test_error_responses_never_carry_the_value(proxy, tmp_path):
    # Allowed host, nothing listening: the proxy answers 502 itself.
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        closed_port = s.getsockname()[1]
    res = curl(proxy, f"https://{API}:{closed_port}/x", "-D", "-",
               "-H", f"Authorization: Bearer {PREFIX}API_TOKEN")
    assert status_of(res) in (502, 0)
    # A refused host: the placeholder is not substituted and nothing leaks.
    refused = curl(proxy, "https://not-allowed.secrets.test/x", "-D", "-",
                   "-H", f"Authorization: Bearer {PREFIX}API_TOKEN")
    assert status_of(refused) in (403, 0)
    assert_no_real_value(res.stdout, res.stderr, refused.stdout, refused.stderr)


def test_openbao_secret_end_to_end(tmp_path, ca, upstreams):
    api, git, mcp = upstreams
    store = {"tokens": {BAO_TOKEN: ["secret/data/ci/*"]},
             "mounts": {"secret": {"ci/api": {"value": API_TOKEN}}}}
    with OpenBaoServer(str(tmp_path / "bao"), store, cert=ca.issue(["127.0.0.1"])) as bao:
        spec = spec_for(api, git, mcp)
        spec["secrets"] = {"API_TOKEN": "ref:openbao/ci/api"}
        with Proxy(spec, str(tmp_path / "proxy"), upstream_ca=ca.cert_path,
                   aliases={API: "127.0.0.1"},
                   env={"OSF_OPENBAO_ADDR": bao.addr, "OSF_OPENBAO_TOKEN": BAO_TOKEN}) as proxy:
            res = curl(proxy, api.url(API, "/check"),
                       "-H", f"Authorization: Bearer {PREFIX}API_TOKEN",
                       "-H", f"X-Api-Key: key={PREFIX}API_TOKEN;again={PREFIX}API_TOKEN")
            assert status_of(res) == 200, res.stdout + res.stderr
            assert_no_real_value(res.stdout, res.stderr, *proxy_outputs(proxy))
        assert "GET /v1/secret/data/ci/api token=valid -> 200" in bao.stderr()
        assert_no_real_value(bao.stderr())


def start_failure(tmp_path, ca, spec, env):
    with pytest.raises(ProxyExited) as exited:
        Proxy(spec, str(tmp_path / "proxy"), upstream_ca=ca.cert_path, env=env, timeout=60)
    assert not os.path.exists(tmp_path / "proxy" / "state" / "listen.json")
    return exited.value


def minimal_spec(secrets):
    return {"template": "node:24-alpine", "egress": [API], "secrets": secrets}


@pytest.mark.parametrize("secrets,env,expected", [
    ({"API_TOKEN": "ref:env/API_TOKEN"}, {},
     "secret API_TOKEN (ref:env/API_TOKEN): the variable OSF_SECRET_API_TOKEN is not set"),
    ({"GIT_TOKEN": "ref:file/absent"}, {"OSF_SECRETS_DIR": "/nonexistent-secrets"},
     "secret GIT_TOKEN (ref:file/absent): the file /nonexistent-secrets/absent does not exist"),
    ({"API_TOKEN": "ref:env/API_TOKEN"}, {"OSF_SECRET_API_TOKEN": API_TOKEN + "\r\nX-Injected: 1"},
     "secret API_TOKEN (ref:env/API_TOKEN): the value contains a line break"),
    ({"BAO": "ref:openbao/ci/api"}, {"OSF_OPENBAO_TOKEN": BAO_TOKEN},
     "secret BAO (ref:openbao/ci/api): OSF_OPENBAO_ADDR is not set"),
])
def test_a_secret_that_cannot_be_resolved_stops_the_proxy(tmp_path, ca, secrets, env, expected):
    exited = start_failure(tmp_path, ca, minimal_spec(secrets), env)
    assert exited.code == 2
    lines = [l for l in exited.stderr.splitlines() if l.strip()]
    assert any(expected in l for l in lines), exited.stderr
    assert_no_real_value(exited.stderr)


def test_openbao_refusals_stop_the_proxy_with_their_own_message(tmp_path, ca):
    store = {"tokens": {BAO_TOKEN: ["secret/data/ci/*"]},
             "mounts": {"secret": {"ci/api": {"value": BAO_VALUE}, "ci/nofield": {"user": "u"}}}}
    with OpenBaoServer(str(tmp_path / "bao"), store, cert=ca.issue(["127.0.0.1"])) as bao:
        cases = [
            ({"BAO": "ref:openbao/ci/api"}, {"OSF_OPENBAO_TOKEN": "wrong-" + BAO_TOKEN},
             "(403 permission denied)"),
            ({"BAO": "ref:openbao/ci/none"}, {"OSF_OPENBAO_TOKEN": BAO_TOKEN},
             "OpenBao has no secret secret/data/ci/none (404)"),
            ({"BAO": "ref:openbao/ci/nofield"}, {"OSF_OPENBAO_TOKEN": BAO_TOKEN},
             'has no field "value"'),
            ({"BAO": "ref:openbao/ci/api"}, {"OSF_OPENBAO_TOKEN": BAO_TOKEN,
                                             "OSF_OPENBAO_ADDR": bao.addr.replace("127.0.0.1", "localhost")},
             "TLS with OpenBao at localhost:"),
        ]
        for i, (secrets, env, expected) in enumerate(cases):
            env = {"OSF_OPENBAO_ADDR": bao.addr, **env}
            exited = start_failure(tmp_path / str(i), ca, minimal_spec(secrets), env)
            assert exited.code == 2
            assert f"secret BAO ({secrets['BAO']}): " in exited.stderr
            assert expected in exited.stderr, exited.stderr
            assert_no_real_value(exited.stderr)
        assert_no_real_value(bao.stderr())
