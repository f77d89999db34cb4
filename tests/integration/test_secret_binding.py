"""Bound secrets through the real proxy, with curl and Python clients and real
origins on loopback: a bound secret's placeholder goes only to its hosts (sent
to another allowed host it is refused, and that origin never sees the value);
`require` refuses a request that carries a credential of its own; query, path
and body placement (JSON, form, chunked), HTTP/2 too; echoes of every form
written are masked; a rotated `ref:file/` secret is used on the next request
and named in a policy line; the spec checker and both CLIs' `create` advise
binding a secret written as a bare reference."""
import json
import os
import secrets as random_tokens
import subprocess
import urllib.parse

import pytest
import requests

from osftest import Proxy, TestCA, Upstream, adapter_bin, repo, spec_check_bin
from osftest.clients import body_of, curl, status_of
from osftest.h2 import tls_tunnel
from osftest.waiting import wait_until

PREFIX = "osf-secret-placeholder-"
GITHUB_TOKEN = "ghp_real" + random_tokens.token_hex(10)
# Characters that must be encoded in a path, a query, a form and a JSON string.
SEARCH_KEY = 'sk real/' + random_tokens.token_hex(6) + '+"=&?'
TG_FIRST = "111111:real-first-" + random_tokens.token_hex(6)
TG_SECOND = "222222:real-second-" + random_tokens.token_hex(6)
ALL_VALUES = [GITHUB_TOKEN, SEARCH_KEY, TG_FIRST, TG_SECOND]

GH_API, GH, TG, SEARCH, BUCKET = ("api.github.test", "github.test", "api.telegram.test",
                                  "search.api.test", "anyones-bucket.storage.test")
SPEC_SECRETS = {
    "GITHUB_TOKEN": {"ref": "ref:env/GITHUB_TOKEN", "hosts": [GH_API, GH], "in": ["header", "basic"],
                     "require": True},
    "TG_TOKEN": {"ref": "ref:file/tg-token", "hosts": [TG], "in": ["path"]},
    "SEARCH_KEY": {"ref": "ref:env/SEARCH_KEY", "hosts": ["*.api.test"], "in": ["query", "body"]},
}


def forms(value):
    return {value, urllib.parse.quote(value, safe=""), json.dumps(value)[1:-1]}


def assert_no_real_value(*texts):
    for text in texts:
        if isinstance(text, bytes):
            text = text.decode(errors="replace")
        for value in ALL_VALUES:
            for form in forms(value):
                assert form not in text, f"a real secret value leaked into: {text[:300]!r}"


def origin_route(handler, url, body):
    """Answers without echoing, except on /echo (a careless origin reflecting
    what it got, in a response header)."""
    if url.path == "/echo":
        seen = url.query + "|" + body.decode(errors="replace")
        handler._send(200, b"{}", extra=[("X-Echo", seen)])
        return True
    handler._send(200, b'{"ok": true}')
    return True


@pytest.fixture(scope="module")
def ca(tmp_path_factory):
    return TestCA(str(tmp_path_factory.mktemp("binding-ca")))


@pytest.fixture
def origins(ca):
    servers = {name: Upstream(ca, [name], route=origin_route) for name in (GH_API, GH, TG, SEARCH, BUCKET)}
    yield servers
    for server in servers.values():
        server.stop()


@pytest.fixture
def secrets_dir(tmp_path):
    directory = tmp_path / "secrets"
    directory.mkdir()
    (directory / "tg-token").write_text(TG_FIRST + "\n")
    return directory


@pytest.fixture
def proxy(tmp_path, ca, origins, secrets_dir):
    spec = {"template": "node:24-alpine", "egress": [GH_API, GH, TG, "*.api.test", "*.storage.test"],
            "secrets": SPEC_SECRETS}
    with Proxy(spec, str(tmp_path / "proxy"), upstream_ca=ca.cert_path,
               aliases={name: "127.0.0.1" for name in origins},
               env={"OSF_SECRET_GITHUB_TOKEN": GITHUB_TOKEN, "OSF_SECRET_SEARCH_KEY": SEARCH_KEY,
                    "OSF_SECRETS_DIR": str(secrets_dir)}) as running:
        yield running
        log = open(running.log_path).read() if os.path.exists(running.log_path) else ""
        assert_no_real_value(running.stderr(), running.stdout(), log)


def session(proxy):
    """A Python client (requests) through the proxy, trusting its CA."""
    s = requests.Session()
    s.trust_env = False
    s.proxies = {"http": proxy.url, "https": proxy.url}
    s.verify = proxy.ca_path
    return s


def header(request, name):
    """A header the origin received (names compared ignoring case)."""
    values = [v for k, v in request["headers"] if k.lower() == name.lower()]
    return values[0] if values else None


# -- bound to hosts ---------------------------------------------------------------------------

def test_the_bound_host_gets_the_real_value(proxy, origins):
    res = curl(proxy, origins[GH_API].url(GH_API, "/user"), "-H", f"Authorization: token {PREFIX}GITHUB_TOKEN")
    assert status_of(res) == 200, res.stdout + res.stderr
    [request] = origins[GH_API].requests
    assert header(request, "Authorization") == f"token {GITHUB_TOKEN}"
    line = proxy.wait_for_log(lambda l: l.get("host") == GH_API)[0]
    assert line["outcome"] == "allowed" and line["secrets"] == ["GITHUB_TOKEN"]
    assert_no_real_value(res.stdout, res.stderr)


def test_a_bound_placeholder_sent_to_another_allowed_host_is_refused(proxy, origins):
    # The bucket is allowed by a wildcard (and could be anyone's): the token must not go there.
    res = curl(proxy, origins[BUCKET].url(BUCKET, "/upload"), "-D", "-",
               "-H", f"Authorization: token {PREFIX}GITHUB_TOKEN")
    assert status_of(res) == 403, res.stdout + res.stderr
    assert "x-osf-refused-by: secret-not-bound-to-host" in res.stdout.lower()
    assert "GITHUB_TOKEN" in body_of(res) and GH_API in body_of(res)
    line = proxy.wait_for_log(lambda l: l.get("host") == BUCKET)[0]
    assert line["outcome"] == "refused" and line["refusedBy"] == "secret-not-bound-to-host"
    assert "secrets" not in line
    assert origins[BUCKET].requests == []
    # In the query or the path, from a Python client: the same.
    with session(proxy) as s:
        for url in (origins[BUCKET].url(BUCKET, f"/?token={PREFIX}GITHUB_TOKEN"),
                    origins[BUCKET].url(BUCKET, f"/{PREFIX}GITHUB_TOKEN/x")):
            answer = s.get(url, timeout=30)
            assert answer.status_code == 403 and answer.headers["X-Osf-Refused-By"] == "secret-not-bound-to-host"
    assert origins[BUCKET].requests == []
    assert_no_real_value(res.stdout, res.stderr)


def test_a_placeholder_where_in_does_not_allow_it_is_refused(proxy, origins):
    res = curl(proxy, origins[GH_API].url(GH_API, f"/user?access_token={PREFIX}GITHUB_TOKEN"),
               "-H", f"Authorization: token {PREFIX}GITHUB_TOKEN")
    assert status_of(res) == 403
    line = proxy.wait_for_log(lambda l: l.get("host") == GH_API)[0]
    assert line["refusedBy"] == "secret-place-not-allowed"
    assert origins[GH_API].requests == []


# -- require --------------------------------------------------------------------------------------

@pytest.mark.parametrize("headers", [["-H", "Authorization: Bearer ghp_mine0000"], [],
                                     ["-H", f"X-Token: {PREFIX}GITHUB_TOKEN",
                                      "-H", "Authorization: Bearer ghp_mine0000"]],
                         ids=["a-foreign-token", "no-credential", "placeholder-beside-a-foreign-token"])
def test_require_refuses_a_request_without_the_secret_or_with_a_token_of_its_own(proxy, origins, headers):
    res = curl(proxy, origins[GH].url(GH, "/me/repo.git/git-receive-pack"), "-D", "-", *headers)
    assert status_of(res) == 403, res.stdout + res.stderr
    assert "x-osf-refused-by: secret-required" in res.stdout.lower()
    line = proxy.wait_for_log(lambda l: l.get("host") == GH)[0]
    assert line["refusedBy"] == "secret-required"
    assert origins[GH].requests == []


def test_require_lets_basic_credentials_with_the_placeholder_through(proxy, origins):
    res = curl(proxy, origins[GH].url(GH, "/me/repo.git/info/refs"), "-u", f"x-access-token:{PREFIX}GITHUB_TOKEN")
    assert status_of(res) == 200, res.stdout + res.stderr
    [request] = origins[GH].requests
    import base64
    auth = header(request, "Authorization")
    assert base64.b64decode(auth.split()[1]).decode() == f"x-access-token:{GITHUB_TOKEN}"


# -- query, path, body ----------------------------------------------------------------------------

def test_a_path_token_is_percent_encoded_into_the_path(proxy, origins):
    res = curl(proxy, origins[TG].url(TG, f"/bot{PREFIX}TG_TOKEN/sendMessage?chat_id=1"))
    assert status_of(res) == 200, res.stdout + res.stderr
    [request] = origins[TG].requests
    assert request["path"] == f"/bot{urllib.parse.quote(TG_FIRST, safe='')}/sendMessage?chat_id=1"
    line = proxy.wait_for_log(lambda l: l.get("host") == TG)[0]
    # The log holds the path as the sandbox sent it: the placeholder, never the value.
    assert line["path"] == f"/bot{PREFIX}TG_TOKEN/sendMessage" and line["secrets"] == ["TG_TOKEN"]


def test_query_json_form_and_chunked_bodies_get_the_value(proxy, origins):
    origin = origins[SEARCH]
    with session(proxy) as s:
        assert s.get(origin.url(SEARCH, f"/search?q=x&key={PREFIX}SEARCH_KEY"), timeout=30).status_code == 200
        assert s.post(origin.url(SEARCH, "/index"), json={"key": f"{PREFIX}SEARCH_KEY", "n": 1},
                      timeout=30).status_code == 200
        assert s.post(origin.url(SEARCH, "/form"), data={"key": f"{PREFIX}SEARCH_KEY", "a": "b"},
                      timeout=30).status_code == 200
        chunks = (part.encode() for part in ['{"key": "', PREFIX, 'SEARCH_KEY", ', '"tail": 2}'])
        assert s.post(origin.url(SEARCH, "/chunked"), data=chunks,
                      headers={"Content-Type": "application/json"}, timeout=30).status_code == 200
    query, json_body, form, chunked = origin.requests
    assert urllib.parse.parse_qs(urllib.parse.urlsplit(query["path"]).query)["key"] == [SEARCH_KEY]
    assert json.loads(json_body["body"]) == {"key": SEARCH_KEY, "n": 1}
    assert header(json_body, "Content-Length") == str(len(json_body["body"]))
    assert urllib.parse.parse_qs(form["body"].decode())["key"] == [SEARCH_KEY]
    assert json.loads(chunked["body"]) == {"key": SEARCH_KEY, "tail": 2}
    headers = {k.lower(): v for k, v in chunked["headers"]}
    assert "transfer-encoding" not in headers and headers["content-length"] == str(len(chunked["body"]))
    lines = proxy.wait_for_log(lambda l: l.get("host") == SEARCH and l.get("outcome") == "allowed")
    assert len(lines) == 4 and all(l["secrets"] == ["SEARCH_KEY"] for l in lines)


def test_a_body_of_another_type_is_never_read_and_keeps_its_placeholder(proxy, origins):
    origin = origins[SEARCH]
    data = f"key={PREFIX}SEARCH_KEY".encode()
    with session(proxy) as s:
        answer = s.post(origin.url(SEARCH, "/raw"), data=data,
                        headers={"Content-Type": "application/octet-stream"}, timeout=30)
    assert answer.status_code == 200
    assert origin.requests[0]["body"] == data


def test_echoes_of_every_form_written_are_masked(proxy, origins):
    origin = origins[SEARCH]
    with session(proxy) as s:
        answer = s.post(origin.url(SEARCH, f"/echo?key={PREFIX}SEARCH_KEY"),
                        json={"key": f"{PREFIX}SEARCH_KEY"}, timeout=30)
    assert answer.status_code == 200
    echoed = answer.headers["X-Echo"]
    assert echoed.count(f"{PREFIX}SEARCH_KEY") == 2, echoed
    assert_no_real_value(echoed, json.dumps(dict(answer.headers)))


def test_a_body_over_the_bound_is_refused_whole(tmp_path, ca, origins, secrets_dir):
    spec = {"egress": ["*.api.test"], "secrets": {"SEARCH_KEY": SPEC_SECRETS["SEARCH_KEY"]}}
    with Proxy(spec, str(tmp_path / "small"), upstream_ca=ca.cert_path, args=["--max-mcp-message-bytes", "1024"],
               aliases={SEARCH: "127.0.0.1"}, env={"OSF_SECRET_SEARCH_KEY": SEARCH_KEY}) as small:
        with session(small) as s:
            big = s.post(origins[SEARCH].url(SEARCH, "/big"), json={"pad": "x" * 2048}, timeout=30)
            small_enough = s.post(origins[SEARCH].url(SEARCH, "/ok"), json={"pad": "x"}, timeout=30)
        assert big.status_code == 413 and big.headers["X-Osf-Refused-By"] == "limit"
        assert small_enough.status_code == 200
        assert [r["path"] for r in origins[SEARCH].requests] == ["/ok"]


# -- HTTP/2 ---------------------------------------------------------------------------------------

def test_http2_streams_are_placed_and_refused_the_same_way(proxy, origins):
    ok = curl(proxy, origins[TG].url(TG, f"/bot{PREFIX}TG_TOKEN/getMe"), "--http2")
    refused = curl(proxy, origins[BUCKET].url(BUCKET, "/x"), "--http2", "-H", f"X-Key: {PREFIX}TG_TOKEN")
    assert (status_of(ok), status_of(refused)) == (200, 403), ok.stderr + refused.stderr
    [request] = origins[TG].requests
    assert request["path"] == f"/bot{urllib.parse.quote(TG_FIRST, safe='')}/getMe"
    assert origins[BUCKET].requests == []
    lines = proxy.wait_for_log(lambda l: l.get("host") in (TG, BUCKET))
    assert {(l["host"], l.get("http"), l.get("refusedBy")) for l in lines} == {
        (TG, "2", None), (BUCKET, "2", "secret-not-bound-to-host")}


# -- rotation -------------------------------------------------------------------------------------

def test_a_rotated_file_secret_is_used_on_the_next_request(proxy, origins, secrets_dir):
    origin = origins[TG]
    assert status_of(curl(proxy, origin.url(TG, f"/bot{PREFIX}TG_TOKEN/a"))) == 200
    # As a rotation job (or a Kubernetes Secret update) does it: a new file renamed over the old.
    fresh = secrets_dir / "tg-token.new"
    fresh.write_text(TG_SECOND + "\n")
    os.rename(fresh, secrets_dir / "tg-token")
    assert status_of(curl(proxy, origin.url(TG, f"/bot{PREFIX}TG_TOKEN/b"))) == 200
    first, second = origin.requests
    assert first["path"] == f"/bot{urllib.parse.quote(TG_FIRST, safe='')}/a"
    assert second["path"] == f"/bot{urllib.parse.quote(TG_SECOND, safe='')}/b"
    rotations = wait_until(lambda: [l for l in proxy.log_lines(evidence=True)
                                    if l.get("kind") == "policy" and l.get("change") == "rotate"],
                           what="the rotate line")
    assert len(rotations) == 1 and rotations[0]["secret"] == "TG_TOKEN"
    # Read back by the proxy's own tools: the chain holds, the summary names the secret.
    verify = subprocess.run([proxy.argv[0], "log", "summary", proxy.log_path], capture_output=True,
                            text=True, timeout=60)
    assert "rotate" in verify.stdout and "TG_TOKEN" in verify.stdout, verify.stdout + verify.stderr
    assert_no_real_value(verify.stdout, verify.stderr)
    # Every line, the rotate line among them, as the log schema says.
    ajv_dir = os.path.join(repo(), "tests", "tools", "ajv")
    schema = subprocess.run(["node", os.path.join(ajv_dir, "validate-jsonl.mjs"),
                             os.path.join(repo(), "contracts", "egress-log.schema.json"), proxy.log_path],
                            cwd=ajv_dir, capture_output=True, text=True, timeout=120)
    assert schema.returncode == 0, schema.stdout + schema.stderr


def test_an_echo_of_the_value_before_rotation_is_still_masked(proxy, origins, secrets_dir):
    origin = origins[TG]
    assert status_of(curl(proxy, origin.url(TG, f"/bot{PREFIX}TG_TOKEN/a"))) == 200
    fresh = secrets_dir / "tg-token.new"
    fresh.write_text(TG_SECOND + "\n")
    os.rename(fresh, secrets_dir / "tg-token")
    assert status_of(curl(proxy, origin.url(TG, f"/bot{PREFIX}TG_TOKEN/b"))) == 200  # rotates
    assert origin.requests[-1]["path"] == f"/bot{urllib.parse.quote(TG_SECOND, safe='')}/b"
    # An origin echoing the old value (percent-encoded, as the proxy wrote it) after the rotation.
    res = curl(proxy, origin.url(TG, f"/echo?old={urllib.parse.quote(TG_FIRST, safe='')}&p=x"), "-D", "-",
               "-H", "X-Nothing: 1")
    assert status_of(res) == 200
    assert f"{PREFIX}TG_TOKEN" in res.stdout  # put back in the echo, not merely absent
    assert_no_real_value(res.stdout)


# -- the spec -------------------------------------------------------------------------------------

def test_a_bound_host_outside_egress_is_an_invalid_spec(tmp_path):
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"egress": [GH_API], "secrets": {
        "GITHUB_TOKEN": {"ref": "ref:env/GITHUB_TOKEN", "hosts": [GH_API, "evil.test"]}}}))
    run = subprocess.run([spec_check_bin(), str(spec)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 1
    assert run.stdout == (f'{spec}: $.secrets.GITHUB_TOKEN.hosts[1]: "evil.test" is neither allowed by egress '
                          "nor an MCP server's host: add it to egress, or bind the secret to hosts the "
                          "sandbox may reach\n")
    # create refuses it (exit 2, the same line); the proxy, which also reads the spec of a
    # running sandbox a revoke narrowed below a binding, starts and says it.
    with Proxy(str(spec), str(tmp_path / "proxy"), env={"OSF_SECRET_GITHUB_TOKEN": "x"}) as running:
        assert "$.secrets.GITHUB_TOKEN.hosts[1]" in running.stderr()
    created = subprocess.run([adapter_bin(), "create", "--dry-run", str(spec)], capture_output=True, text=True,
                             env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "OSF_SECRET_GITHUB_TOKEN": "x",
                                  "KUBECONFIG": "/nonexistent/kubeconfig"}, timeout=60)
    assert created.returncode == 2 and "$.secrets.GITHUB_TOKEN.hosts[1]" in created.stderr, created.stderr


def test_a_revoke_of_a_bound_host_is_taken_and_the_secret_no_longer_goes_there(proxy, origins):
    spec = json.load(open(proxy.spec_path))
    narrowed = {**spec, "egress": [h for h in spec["egress"] if h != GH_API]}
    with open(os.path.join(proxy.state_dir, "admin-token")) as f:
        token = f.read().strip()
    answer = requests.post(proxy.admin_url + "/policy", json={"spec": json.dumps(narrowed), "by": "test"},
                           headers={"Authorization": f"Bearer {token}"}, timeout=30,
                           proxies={"http": None, "https": None})
    assert answer.status_code == 200, answer.text
    assert answer.json()["revoked"] == [GH_API]
    # The host is gone from egress: its CONNECT is refused before any request.
    res = curl(proxy, origins[GH_API].url(GH_API, "/user"), "-H", f"Authorization: token {PREFIX}GITHUB_TOKEN")
    assert "CONNECT tunnel failed, response 403" in res.stderr, res.stderr
    line = proxy.wait_for_log(lambda l: l.get("host") == GH_API)[0]
    assert line["refusedBy"] == "host-not-allowed" and line.get("policy") == 1
    assert origins[GH_API].requests == []


def test_an_mcp_server_host_may_be_bound(tmp_path):
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"mcp": [{"name": "wiki", "url": "https://wiki.test/mcp", "tools": ["s"]}],
                                "secrets": {"WIKI": {"ref": "ref:env/WIKI", "hosts": ["wiki.test"]}}}))
    run = subprocess.run([spec_check_bin(), str(spec)], capture_output=True, text=True, timeout=60)
    assert (run.returncode, run.stdout, run.stderr) == (0, f"{spec}: ok\n", "")


def test_the_spec_checker_advises_binding_a_bare_reference(tmp_path):
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"egress": [GH_API], "secrets": {"OLD": "ref:env/OLD",
                                                                 "NEW": SPEC_SECRETS["GITHUB_TOKEN"] | {"hosts": [GH_API]}}}))
    run = subprocess.run([spec_check_bin(), str(spec)], capture_output=True, text=True, timeout=60)
    assert (run.returncode, run.stdout) == (0, f"{spec}: ok\n")
    assert run.stderr.splitlines() == [f"{spec}: warning: secret OLD goes to every egress host; bind it to the "
                                       'hosts it is for: {"ref": "...", "hosts": ["api.example.com"]}']


@pytest.mark.parametrize("backend", ["sandbox-kubernetes", "sandbox-local"])
def test_create_dry_run_carries_the_object_form_and_advises_on_a_bare_reference(tmp_path, secrets_dir, backend):
    binary = adapter_bin() if backend == "sandbox-kubernetes" else os.environ.get("SANDBOX_LOCAL_BIN", "")
    if not binary or not os.access(binary, os.X_OK):
        pytest.fail(f"{backend} is not built")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "kubectl").write_text("#!/bin/sh\nexit 1\n")  # no cluster: the dry run asks none
    (bin_dir / "kubectl").chmod(0o755)
    # sandbox-local pulls no image: its own root file system ("host") needs none.
    spec_doc = {"template": "node:24-alpine" if backend == "sandbox-kubernetes" else "host",
                "egress": [GH_API, GH, TG],
                "secrets": {**{k: SPEC_SECRETS[k] for k in ("GITHUB_TOKEN", "TG_TOKEN")}, "OLD": "ref:env/OLD"}}
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps(spec_doc))
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(tmp_path), "KUBECONFIG": "/nonexistent/kubeconfig",
           "OSF_SECRET_GITHUB_TOKEN": GITHUB_TOKEN, "OSF_SECRET_OLD": "old-value-1",
           "OSF_SECRETS_DIR": str(secrets_dir), "XDG_STATE_HOME": str(tmp_path / "state")}
    run = subprocess.run([binary, "create", "--dry-run", str(spec)], capture_output=True, text=True, env=env,
                         timeout=60)
    assert run.returncode == 0, run.stderr
    warnings = [line for line in run.stderr.splitlines() if "warning" in line]
    assert warnings == [f"{backend}: warning: secret OLD goes to every egress host; bind it to "
                        'the hosts it is for: {"ref": "...", "hosts": ["api.example.com"]}']
    described = run.stdout
    assert_no_real_value(described, run.stderr)
    # What the proxy will read: the spec as given, the object form whole (sandbox-kubernetes:
    # the spec ConfigMap; sandbox-local: the proxy's spec.json, shown under proxy.spec).
    document = json.loads(described)
    if backend == "sandbox-kubernetes":
        [config] = [item for item in document["items"]
                    if item["kind"] == "ConfigMap" and "spec.json" in item.get("data", {})]
        carried = json.loads(config["data"]["spec.json"])
    else:
        carried = document["proxy"]["spec"]
    assert carried["secrets"] == spec_doc["secrets"]


# -- git, as the GitHub example in egress-proxy/docs/secrets.md sets it up ------------------------------

def test_git_clones_with_the_required_token_sent_up_front(proxy, origins, tmp_path):
    # A bare repository served by git's own CGI behind the bound host (test_secrets.py's route,
    # which checks the Basic credentials named by its module's GIT_USER and GIT_TOKEN).
    import test_secrets
    root = tmp_path / "git-project"
    work = root / "work"
    quiet = {"capture_output": True, "timeout": 60, "check": True}
    subprocess.run(["git", "init", "-q", "-b", "main", str(work)], **quiet)
    (work / "README.md").write_text("cloned with a bound token\n")
    who = ["-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run(["git", *who, "add", "."], cwd=work, **quiet)
    subprocess.run(["git", *who, "commit", "-q", "-m", "one"], cwd=work, **quiet)
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(root / "repo.git")], **quiet)
    user = "x-access-token"
    saved = test_secrets.GIT_USER, test_secrets.GIT_TOKEN
    test_secrets.GIT_USER, test_secrets.GIT_TOKEN = user, GITHUB_TOKEN
    try:
        origins[GH].server.route = test_secrets.git_route_for(str(root))
    finally:
        test_secrets.GIT_USER, test_secrets.GIT_TOKEN = saved

    home = tmp_path / "home"
    home.mkdir()
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_TERMINAL_PROMPT": "0", "GIT_SSL_CAINFO": proxy.ca_path}
    url = origins[GH].url(GH, "/repo.git")
    import base64
    header = "Authorization: Basic " + base64.b64encode(f"{user}:{PREFIX}GITHUB_TOKEN".encode()).decode()
    cloned = subprocess.run(["git", "-c", f"http.proxy={proxy.url}", "-c", f"http.extraHeader={header}",
                             "clone", "-q", url, str(tmp_path / "clone")], env=env, capture_output=True, text=True,
                            timeout=120)
    assert cloned.returncode == 0, cloned.stderr
    assert (tmp_path / "clone" / "README.md").read_text() == "cloned with a bound token\n"
    # Without it git first asks with no credentials: require refuses that, and git stops.
    refused = subprocess.run(["git", "-c", f"http.proxy={proxy.url}", "clone", "-q", url, str(tmp_path / "no")],
                             env=env, capture_output=True, text=True, timeout=120)
    assert refused.returncode != 0 and "403" in refused.stderr, refused.stderr
    assert_no_real_value(cloned.stderr, refused.stderr)


@pytest.mark.parametrize("coding", ["chunked, chunked", "gzip, chunked"])
def test_a_body_read_whole_is_refused_when_its_transfer_coding_is_not_one_chunked(proxy, origins, coding):
    """A body a secret may go into is read whole and framed again: by Content-Length, so
    chunked must have been its one coding. Once said twice ("chunked, chunked"), Beast
    removed one and the origin got Content-Length and Transfer-Encoding both, the framing a
    smuggling attack needs; a coding on top ("gzip, chunked") went out unframed."""
    origin = origins[SEARCH]
    body = json.dumps({"key": f"{PREFIX}SEARCH_KEY"}).encode()
    with tls_tunnel(proxy, SEARCH, origin.port, alpn=("http/1.1",)) as tls:
        tls.sendall(f"POST /twice HTTP/1.1\r\nHost: {SEARCH}\r\nContent-Type: application/json\r\n"
                    f"Transfer-Encoding: {coding}\r\n\r\n".encode()
                    + b"%x\r\n" % len(body) + body + b"\r\n0\r\n\r\n")
        answer = b""
        while b"\r\n\r\n" not in answer:
            got = tls.recv(65536)
            if not got:
                break
            answer += got
    assert answer.startswith(b"HTTP/1.1 400 "), answer[:300]
    assert b"X-Osf-Refused-By: bad-request" in answer, answer[:300]
    assert_no_real_value(answer)
    assert [r["path"] for r in origin.requests] == []
