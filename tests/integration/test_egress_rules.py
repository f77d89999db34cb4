"""Egress entries with rules per method, path and query: real clients (curl over
HTTP/1.1 and HTTP/2, python's http.client, git over smart HTTP against a real
git http-backend, a WebSocket upgrade) through egress-proxy to HTTPS origins on
loopback. Each request is allowed or refused by the rule the log line names;
encoded and dotted paths do not slip past a rule; a refused request never
reaches the origin."""
import base64
import http.client
import json
import os
import socket
import ssl
import subprocess

import pytest

from osftest import Proxy, TestCA, Upstream, proxy_bin, repo
from osftest.clients import body_of, curl, status_of

NAMES = ["api.test", "git.test", "open.test"]
ALIASES = {name: "127.0.0.1" for name in NAMES}

API_RULES = {
    "host": "api.test",
    "reason": "this sandbox reads acme/widgets and comments on its issues",
    "rules": [
        {"name": "no-hooks", "paths": ["/repos/*/*/hooks", "/repos/*/*/hooks/*"], "deny": True},
        {"name": "read-widgets", "methods": "read-only",
         "paths": ["/repos/acme/widgets", "/repos/acme/widgets/*"], "allow": True},
        {"methods": ["POST"], "paths": ["/repos/acme/widgets/issues/*/comments"], "allow": True},
        {"name": "socket", "methods": ["GET"], "paths": ["/ws"], "allow": True},
    ],
}
GIT_RULES = {
    "host": "git.test",
    "reason": "clone and fetch of acme/widgets only",
    "rules": [
        {"name": "refs-for-fetch", "methods": ["GET"], "paths": ["/acme/widgets.git/info/refs"],
         "query": {"service": "git-upload-pack"}, "allow": True},
        {"name": "upload-pack", "methods": ["POST"], "paths": ["/acme/widgets.git/git-upload-pack"],
         "allow": True},
    ],
}
SPEC = {"template": "debian:12", "egress": ["open.test", API_RULES, GIT_RULES]}


def git(*args, env=None, cwd=None, check=True):
    out = subprocess.run(["git", *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=120)
    if check:
        assert out.returncode == 0, out.stderr
    return out


def git_backend(root):
    """An Upstream route that runs `git http-backend` (CGI) for paths with ".git/"."""
    def route(handler, url, body):
        if ".git/" not in url.path:
            return False
        env = {"GIT_PROJECT_ROOT": str(root), "GIT_HTTP_EXPORT_ALL": "1", "PATH_INFO": url.path,
               "QUERY_STRING": url.query, "REQUEST_METHOD": handler.command,
               "CONTENT_TYPE": handler.headers.get("Content-Type", ""), "CONTENT_LENGTH": str(len(body)),
               "GIT_HTTP_MAX_REQUEST_BUFFER": "100M", "REMOTE_USER": "test", "REMOTE_ADDR": "127.0.0.1"}
        if handler.headers.get("Git-Protocol"):
            env["GIT_PROTOCOL"] = handler.headers["Git-Protocol"]
        out = subprocess.run(["git", "http-backend"], input=body, env=env, capture_output=True).stdout
        head, _, payload = out.partition(b"\r\n\r\n")
        status, headers = 200, []
        for field in head.split(b"\r\n"):
            name, _, value = field.decode().partition(":")
            if name.lower() == "status":
                status = int(value.split()[0])
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
def repos(tmp_path_factory):
    root = tmp_path_factory.mktemp("repos")
    for name in ("widgets", "secret"):
        src = root / f"src-{name}"
        git("init", "-q", "-b", "main", str(src))
        (src / "README").write_text(f"{name}\n")
        git("-C", str(src), "add", ".")
        git("-C", str(src), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init")
        git("clone", "-q", "--bare", str(src), str(root / "acme" / f"{name}.git"))
        # Pushes are answered (were one to reach the origin, it would land).
        git("-C", str(root / "acme" / f"{name}.git"), "config", "http.receivepack", "true")
    return root


@pytest.fixture(scope="module")
def ca(tmp_path_factory):
    return TestCA(str(tmp_path_factory.mktemp("upstream-ca")))


@pytest.fixture(scope="module")
def upstream(ca, repos):
    with Upstream(ca, NAMES, route=git_backend(repos)) as u:
        yield u


@pytest.fixture(scope="module")
def proxy(tmp_path_factory, ca, upstream):
    with Proxy(SPEC, str(tmp_path_factory.mktemp("proxy")), aliases=ALIASES, upstream_ca=ca.cert_path) as p:
        yield p


def assert_log_matches_the_schema(log_path):
    """Every line (rule, ruleIndex, wouldRefuse, the new refusedBy values) is valid against
    the log contract."""
    validator = os.path.join(repo(), "tests", "tools", "ajv", "validate-jsonl.mjs")
    schema = os.path.join(repo(), "contracts", "egress-log.schema.json")
    out = subprocess.run(["node", validator, schema, log_path], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr


def reached(upstream, path):
    """The requests the origin received for `path` (its query aside)."""
    return [r for r in upstream.requests if r["path"].split("?")[0] == path]


# (method, path as sent, status, refusedBy, rule, ruleIndex)
CASES = [
    ("GET", "/repos/acme/widgets", 200, None, "read-widgets", 1),
    ("HEAD", "/repos/acme/widgets/pulls", 200, None, "read-widgets", 1),
    ("GET", "/repos/acme/widgets/issues?state=open", 200, None, "read-widgets", 1),
    ("POST", "/repos/acme/widgets/issues/7/comments", 200, None, "api.test#2", 2),
    ("GET", "/repos/acme/%77idgets/readme", 200, None, "read-widgets", 1),  # %77 is 'w'
    ("GET", "/repos/acme/widgets/hooks", 403, "path-not-allowed", "no-hooks", 0),
    ("GET", "/repos/ACME/widgets/Hooks/", 403, "path-not-allowed", "no-hooks", 0),
    ("DELETE", "/repos/acme/widgets", 403, "method-not-allowed", "api.test#none", None),
    ("PUT", "/repos/acme/widgets/issues/7/comments", 403, "method-not-allowed", "api.test#none", None),
    ("GET", "/repos/acme/secret", 403, "path-not-allowed", "api.test#none", None),
    ("GET", "/repos/acme/widgets-2", 403, "path-not-allowed", "api.test#none", None),
    # Dotted and encoded paths are matched as the origin reads them, or refused.
    ("GET", "/repos/acme/widgets/../secret", 403, "path-not-allowed", "api.test#none", None),
    ("GET", "/repos/acme/widgets/./../secret", 403, "path-not-allowed", "api.test#none", None),
    ("GET", "/repos/acme/widgets/%2e%2e/secret", 403, "path-not-allowed", "api.test#path", None),
    ("GET", "/repos/acme/widgets/%2E%2e/secret", 403, "path-not-allowed", "api.test#path", None),
    ("GET", "/repos/acme/widgets%2f..%2fsecret", 403, "path-not-allowed", "api.test#path", None),
    ("GET", "/repos/acme/widgets%2F..%2Fsecret", 403, "path-not-allowed", "api.test#path", None),
    ("GET", "/repos/acme/widgets//../secret", 403, "path-not-allowed", "api.test#path", None),
    ("GET", "//repos/acme/widgets", 403, "path-not-allowed", "api.test#path", None),
    ("GET", "/repos/acme/widgets/..;/secret", 403, "path-not-allowed", "api.test#path", None),
    ("GET", "/repos/acme/widgets/%252e%252e/secret", 403, "path-not-allowed", "api.test#path", None),
    ("GET", "/repos/acme/./widgets", 200, None, "read-widgets", 1),
]


@pytest.mark.parametrize("version", ["--http1.1", "--http2"])
def test_curl_requests_are_judged_by_the_hosts_rules(ca, upstream, tmp_path, version):
    with Proxy(SPEC, str(tmp_path / "proxy"), aliases=ALIASES, upstream_ca=ca.cert_path) as proxy:
        for i, (method, path, status, refused_by, rule, index) in enumerate(CASES):
            tag = f"{version[2:]}-{i}"
            sent = path + ("&" if "?" in path else "?") + f"case={tag}"
            heads = tmp_path / f"heads-{tag}.txt"
            args = ["--path-as-is", "-D", str(heads), version]
            args += ["-I"] if method == "HEAD" else ["-X", method]
            # A body only where the request is allowed: curl 7.88 takes the RST_STREAM (NO_ERROR)
            # that ends a refused HTTP/2 request whose body is still coming for an error.
            if method == "POST":
                args += ["--data-binary", "{}"]
            res = curl(proxy, f"https://api.test:{upstream.port}{sent}", *args)
            assert status_of(res) == status, (method, path, res.stdout, res.stderr)
            fields = {l.split(":", 1)[0].lower(): l.split(":", 1)[1].strip()
                      for l in heads.read_text().splitlines() if ":" in l}
            queries = [r["path"] for r in upstream.requests if r["path"].endswith(f"case={tag}")]
            if status == 200:
                assert len(queries) == 1, (method, path)
                assert "x-osf-refused-by" not in fields
            else:
                assert queries == [], f"{method} {path} reached the origin"
                assert fields.get("x-osf-refused-by") == refused_by, (method, path, fields)
                body = body_of(res)
                assert "api.test" in body and "allow <sandbox ID>" in body, body
                assert f"case={tag}" not in body  # the query is never repeated
        proxy.wait_for_log(lambda l: len([x for x in proxy.log_lines() if x["host"] == "api.test"]) >= len(CASES))
        lines = [l for l in proxy.log_lines() if l["host"] == "api.test"]
        # One line per request (in the order the exchanges ended), each naming its rule.
        got = sorted((l["method"], l["status"], l.get("refusedBy") or "", l.get("rule"), l.get("ruleIndex", -1))
                     for l in lines)
        want = sorted((m, st, rb or "", rule, -1 if index is None else index)
                      for m, _, st, rb, rule, index in CASES)
        assert got == want
        assert all(l.get("http") == ("2" if version == "--http2" else None) for l in lines)
        assert all("?" not in l["path"] for l in lines)
        assert_log_matches_the_schema(proxy.log_path)


def tunnel(proxy, upstream, host="api.test"):
    """An http.client connection to `host` through a CONNECT tunnel, trusting the proxy's CA."""
    proxy_host, proxy_port = proxy.listen.rsplit(":", 1)
    ctx = ssl.create_default_context(cafile=proxy.ca_path)
    conn = http.client.HTTPSConnection(proxy_host, int(proxy_port), context=ctx, timeout=30)
    conn.set_tunnel(host, upstream.port)
    return conn


@pytest.mark.parametrize("path", [
    "/repos/acme/widgets/%2e%2e/secret", "/repos/acme/widgets/.%2e/secret", "/repos/acme/widgets/%2e./secret",
    "/repos/acme/widgets/..%3bx/secret", "/repos/acme/widgets\\..\\secret", "/repos/acme/widgets/%5c../secret",
    "/repos/acme/widgets/.../secret", "/repos/acme/widgets/%00/x", "/repos/acme/widgets/%c0%ae%c0%ae/secret",
])
def test_python_raw_paths_do_not_slip_past_a_rule(proxy, upstream, path):
    before = len(upstream.requests)  # other tests' allowed paths may hold "secret" too
    conn = tunnel(proxy, upstream)
    conn.putrequest("GET", path, skip_accept_encoding=True)
    conn.endheaders()
    res = conn.getresponse()
    body = res.read().decode()
    assert res.status in (400, 403), (path, res.status, body)
    assert res.status == 400 or res.getheader("X-Osf-Refused-By") == "path-not-allowed", body
    conn.close()
    proxy.wait_connections_closed()  # whatever the proxy forwarded has been written by then
    assert not [r for r in upstream.requests[before:] if "secret" in r["path"] or "%00" in r["path"]]


def test_a_websocket_upgrade_is_judged_by_its_request(proxy, upstream):
    key = base64.b64encode(os.urandom(16)).decode()
    results = {}
    for path in ("/ws", "/ws2"):
        conn = tunnel(proxy, upstream)
        conn.putrequest("GET", path)
        for name, value in (("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Key", key),
                            ("Sec-WebSocket-Version", "13")):
            conn.putheader(name, value)
        conn.endheaders()
        res = conn.getresponse()
        results[path] = (res.status, res.getheader("X-Osf-Refused-By"))
        conn.close()
    assert results == {"/ws": (101, None), "/ws2": (403, "path-not-allowed")}
    line = proxy.wait_for_log(lambda l: l["path"] == "/ws2")[0]
    assert line["rule"] == "api.test#none" and line["outcome"] == "refused"
    assert proxy.wait_for_log(lambda l: l["path"] == "/ws" and l["status"] == 101)[0]["rule"] == "socket"


def test_a_host_without_rules_is_allowed_whole(proxy, upstream):
    res = curl(proxy, f"https://open.test:{upstream.port}/anything/%2e%2e/at/all", "--path-as-is", "-X", "DELETE")
    assert status_of(res) == 200
    line = proxy.wait_for_log(lambda l: l["host"] == "open.test")[0]
    assert "rule" not in line and "ruleIndex" not in line


def test_git_clone_and_fetch_pass_push_and_another_repository_are_refused(proxy, upstream, tmp_path):
    env = dict(os.environ, https_proxy=proxy.url, GIT_SSL_CAINFO=proxy.ca_path, GIT_TERMINAL_PROMPT="0",
               GIT_CONFIG_NOSYSTEM="1", HOME=str(tmp_path))
    for name in list(env):
        if name.lower() in ("http_proxy", "no_proxy", "all_proxy"):
            del env[name]
    url = f"https://git.test:{upstream.port}/acme/widgets.git"
    clone = tmp_path / "widgets"
    git("clone", "-q", url, str(clone), env=env)
    assert (clone / "README").read_text() == "widgets\n"
    clones = [l for l in proxy.log_lines() if l["host"] == "git.test" and l["outcome"] == "allowed"]
    assert {(l["method"], l["path"], l["rule"], l["ruleIndex"]) for l in clones} == {
        ("GET", "/acme/widgets.git/info/refs", "refs-for-fetch", 0),
        ("POST", "/acme/widgets.git/git-upload-pack", "upload-pack", 1)}
    before = len(proxy.log_lines())
    git("-C", str(clone), "fetch", "-q", "origin", env=env)
    fetched = proxy.log_lines()[before:]
    assert fetched and all(l["outcome"] == "allowed" for l in fetched if l["host"] == "git.test"), fetched

    # Push: refused at its first request (the receive-pack advertisement), nothing reaches the origin.
    (clone / "NEW").write_text("pushed\n")
    git("-C", str(clone), "add", "NEW", env=env)
    git("-C", str(clone), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "push me", env=env)
    pushed = git("-C", str(clone), "push", "-q", "origin", "main", env=env, check=False)
    assert pushed.returncode != 0 and "403" in pushed.stderr, pushed.stderr
    line = proxy.wait_for_log(lambda l: l["host"] == "git.test" and l["outcome"] == "refused"
                              and l["path"] == "/acme/widgets.git/info/refs")[0]
    assert line["refusedBy"] == "path-not-allowed" and line["rule"] == "git.test#none"
    assert not [r for r in upstream.requests if "receive-pack" in r["path"]]
    # Straight to git-receive-pack: refused too.
    res = curl(proxy, f"{url}/git-receive-pack", "--data-binary", "0000", "--http1.1",
               "-H", "Content-Type: application/x-git-receive-pack-request")
    assert status_of(res) == 403
    assert proxy.wait_for_log(lambda l: l["path"] == "/acme/widgets.git/git-receive-pack")[0]["refusedBy"] == \
        "path-not-allowed"
    assert not reached(upstream, "/acme/widgets.git/git-receive-pack")

    # Another repository: refused, and git says so.
    other = git("clone", "-q", f"https://git.test:{upstream.port}/acme/secret.git", str(tmp_path / "secret"),
                env=env, check=False)
    assert other.returncode != 0 and "403" in other.stderr, other.stderr
    line = proxy.wait_for_log(lambda l: l["path"] == "/acme/secret.git/info/refs")[0]
    assert line["outcome"] == "refused" and line["refusedBy"] == "path-not-allowed"
    assert line["rule"] == "git.test#none" and "ruleIndex" not in line
    assert not reached(upstream, "/acme/secret.git/info/refs")
    assert_log_matches_the_schema(proxy.log_path)


def test_an_invalid_rule_stops_the_proxy_with_exit_2_naming_the_entry(tmp_path):
    spec = {"template": "debian:12", "egress": ["open.test", API_RULES,
                                                {"host": "x.test", "rules": [{"paths": ["/a*"], "allow": True}]}]}
    proxy = Proxy(spec, str(tmp_path / "bad"), start=False)
    out = subprocess.run(proxy.argv, env=proxy.env, capture_output=True, text=True, timeout=30)
    assert out.returncode == 2, out.stderr
    assert "$.egress[2].rules[0].paths[0]" in out.stderr and "'*' stands for whole segments" in out.stderr


def test_audit_mode_lets_through_what_the_rules_would_refuse_and_says_so(ca, upstream, tmp_path):
    spec = {"template": "debian:12", "mode": "audit", "egress": [API_RULES]}
    with Proxy(spec, str(tmp_path / "audit"), aliases=ALIASES, upstream_ca=ca.cert_path) as proxy:
        for method, path in (("GET", "/repos/acme/widgets"), ("DELETE", "/repos/acme/widgets"),
                             ("GET", "/repos/acme/secret"), ("GET", "/repos/acme/widgets/%2e%2e/secret")):
            res = curl(proxy, f"https://api.test:{upstream.port}{path}?audit=1", "--path-as-is", "-X", method)
            assert status_of(res) == 200, (method, path, res.stdout)
        proxy.wait_for_log(lambda l: len(proxy.log_lines()) >= 4)
        got = sorted((l["method"], l["outcome"], l.get("rule"), l.get("wouldRefuse", "")) for l in proxy.log_lines())
        assert got == sorted([
            ("GET", "allowed", "read-widgets", ""),
            ("DELETE", "allowed", "api.test#none", "method-not-allowed"),
            ("GET", "allowed", "api.test#none", "path-not-allowed"),
            ("GET", "allowed", "api.test#path", "path-not-allowed")])
        log = proxy.log_path
    assert_log_matches_the_schema(log)
    # The summary and the report count lines by rule and decision.
    summary = subprocess.run([proxy_bin(), "log", "summary", "--json", log], capture_output=True, text=True,
                             timeout=30)
    assert {(r["rule"], r["decision"], r["count"]) for r in json.loads(summary.stdout)["rules"]} == {
        ("read-widgets", "allowed", 1), ("api.test#none", "audit:method-not-allowed", 1),
        ("api.test#none", "audit:path-not-allowed", 1), ("api.test#path", "audit:path-not-allowed", 1)}
    page = tmp_path / "report.html"
    report = subprocess.run([proxy_bin(), "log", "report", log, "-o", str(page)], capture_output=True, text=True,
                            timeout=30)
    assert report.returncode == 0, report.stderr
    html = page.read_text()
    assert "Egress rules" in html and "api.test#none: audit, would be method-not-allowed" in html
    # The entry's own mode: one host audited, another enforced.
    enforce = dict(GIT_RULES, mode="enforce")
    spec = {"template": "debian:12", "egress": [dict(API_RULES, mode="audit"), enforce]}
    with Proxy(spec, str(tmp_path / "entry"), aliases=ALIASES, upstream_ca=ca.cert_path) as proxy:
        assert status_of(curl(proxy, f"https://api.test:{upstream.port}/orgs/acme")) == 200
        assert status_of(curl(proxy, f"https://git.test:{upstream.port}/orgs/acme")) == 403
        lines = proxy.wait_for_log(lambda l: l["path"] == "/orgs/acme" and l["host"] == "git.test")
        assert lines[0]["refusedBy"] == "path-not-allowed" and "wouldRefuse" not in lines[0]


def test_suggest_prints_a_spec_that_allows_the_same_run_and_refuses_outside_it(ca, upstream, tmp_path):
    run = [("GET", "/repos/acme/widgets"), ("GET", "/repos/acme/widgets/issues/1"),
           ("GET", "/repos/acme/widgets/issues/2"), ("POST", "/repos/acme/widgets/issues/2/comments")]
    with Proxy({"template": "debian:12", "egress": ["api.test"]}, str(tmp_path / "learn"), aliases=ALIASES,
               upstream_ca=ca.cert_path) as proxy:
        for method, path in run:
            assert status_of(curl(proxy, f"https://api.test:{upstream.port}{path}", "-X", method)) == 200
        proxy.wait_for_log(lambda l: len(proxy.log_lines()) >= len(run))
        log = proxy.log_path
        out = subprocess.run([proxy_bin(), "log", "suggest", log], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    suggested = json.loads(out.stdout)
    assert suggested["egress"] == [{"host": f"api.test:{upstream.port}", "rules": [
        {"methods": ["GET"], "paths": ["/repos/acme/widgets", "/repos/acme/widgets/issues/*"], "allow": True},
        {"methods": ["POST"], "paths": ["/repos/acme/widgets/issues/2/comments"], "allow": True}]}]
    with Proxy({"template": "debian:12", **suggested}, str(tmp_path / "learnt"), aliases=ALIASES,
               upstream_ca=ca.cert_path) as proxy:
        for method, path in run:
            assert status_of(curl(proxy, f"https://api.test:{upstream.port}{path}", "-X", method)) == 200, path
        assert status_of(curl(proxy, f"https://api.test:{upstream.port}/repos/acme/secret")) == 403
        assert status_of(curl(proxy, f"https://api.test:{upstream.port}/repos/acme/widgets", "-X", "DELETE")) == 403


def test_a_live_change_sets_a_hosts_rules_and_the_next_request_is_judged_by_them(ca, upstream, tmp_path):
    """What `allow` sends a running proxy (egress-proxy policy, beside it): the host's rules
    narrowed, then the host allowed whole again."""
    def change(spec):
        return subprocess.run([proxy_bin(), "policy", "--state-dir", proxy.state_dir, "--by", "operator@test"],
                              input=json.dumps(spec), capture_output=True, text=True, timeout=60)
    whole = {"template": "debian:12", "egress": ["api.test"]}
    with Proxy(whole, str(tmp_path / "live"), aliases=ALIASES, upstream_ca=ca.cert_path) as proxy:
        url = f"https://api.test:{upstream.port}/repos/acme/secret"
        assert status_of(curl(proxy, url)) == 200
        res = change({"template": "debian:12", "egress": [API_RULES]})
        assert res.returncode == 0, res.stderr
        assert json.loads(res.stdout)["allowed"] == ["api.test"]
        assert status_of(curl(proxy, url)) == 403
        assert status_of(curl(proxy, f"https://api.test:{upstream.port}/repos/acme/widgets")) == 200
        res = change(whole)
        assert res.returncode == 0 and json.loads(res.stdout)["allowed"] == ["api.test"], res.stdout
        assert status_of(curl(proxy, url)) == 200
        lines = [l for l in proxy.log_lines() if l["path"] == "/repos/acme/secret"]
        assert [(l["outcome"], l.get("policy"), l.get("rule")) for l in lines] == [
            ("allowed", None, None), ("refused", 1, "api.test#none"), ("allowed", 2, None)]
        changes = [l for l in proxy.log_lines(evidence=True) if l.get("kind") == "policy"]
        assert [(l["change"], l["entries"]) for l in changes] == [("allow", ["api.test"]), ("allow", ["api.test"])]
