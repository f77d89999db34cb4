"""sandbox-local allow and revoke on a real sandbox (bubblewrap, its egress proxy, curl
inside): a host outside the spec is refused, allowed (curl inside trusts the new CA at
once), revoked; an MCP tool is allowed; bad entries are refused with exit 2 and change
nothing; a suspended sandbox keeps the change and resumes with it; code inside cannot
reach the admin port or read the token; the log verifies with the policy lines; list -o json
shows the policy in force; egress-log --refused --follow prints each new refusal once, as it
happens."""
import json
import os
import shutil
import subprocess

import pytest

from osftest import Followed
from test_local_sandbox import SECRET, ca, local_bin, local_state, upstream  # noqa: F401 (fixtures)

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")


@pytest.fixture(scope="module")
def local(ca):  # noqa: F811
    with local_state(ca, "olp-") as local:
        yield local


def spec_for(upstream):  # noqa: F811
    return {"template": "host", "egress": ["allowed.test"],
            "secrets": {"API_TOKEN": "ref:env/API_TOKEN"},
            "mcp": [{"name": "tools", "url": f"https://tools.test:{upstream.port}/mcp",
                     "tools": ["search"]}]}


def curl_status(local, sandbox_id, url):
    """The answer's status, or the proxy's answer to curl's CONNECT when there was none."""
    res = local.sh(sandbox_id, f"curl -s -o /dev/null -w '%{{http_code}} %{{http_connect}}' --max-time 120 {url}")
    code, connect = res.stdout.strip().split(" ")
    return code if code != "000" else connect


def policy_lines(local, sandbox_id):
    res = local.run("egress-log", sandbox_id, "--raw")
    assert res.returncode == 0, res.stderr
    return [json.loads(l) for l in res.stdout.splitlines() if '"kind":"policy"' in l]


def listed_policy(local, sandbox_id):
    res = local.run("list", "-o", "json")
    assert res.returncode == 0, res.stderr
    return next(row["policy"] for row in json.loads(res.stdout) if row["id"] == sandbox_id)


def test_allow_then_revoke_a_host_in_a_running_sandbox(local, upstream):  # noqa: F811
    sandbox_id = local.create(spec_for(upstream))
    url = f"https://refused.test:{upstream.port}/live"
    assert curl_status(local, sandbox_id, url) == "403"
    assert curl_status(local, sandbox_id, f"https://refused.test:{upstream.port}/twice") == "403"
    # What was refused, once, as allow takes it.
    refused = local.run("egress-log", sandbox_id, "--refused")
    assert refused.returncode == 0 and refused.stdout == f"refused.test:{upstream.port}\n", refused

    res = local.run("allow", sandbox_id, "refused.test")
    assert res.returncode == 0, res.stderr
    assert res.stdout == f"allowed in {sandbox_id}: refused.test (policy 1, in force now)\n"
    assert listed_policy(local, sandbox_id) == {"egress": ["allowed.test", "refused.test"],
                                                "mcp": {"tools": ["search"]}}
    # curl inside reads the CA bundle anew: the CA made for refused.test is in it.
    assert curl_status(local, sandbox_id, url) == "200"
    again = local.run("allow", sandbox_id, "refused.test")
    assert again.returncode == 0 and again.stdout == f"already allowed in {sandbox_id}: refused.test\n"

    res = local.run("revoke", sandbox_id, "refused.test")
    assert res.returncode == 0, res.stderr
    assert curl_status(local, sandbox_id, url) == "403"
    assert listed_policy(local, sandbox_id)["egress"] == ["allowed.test"]
    assert [(l["change"], l["entries"], l["generation"]) for l in policy_lines(local, sandbox_id)] == [
        ("allow", ["refused.test"], 1), ("revoke", ["refused.test"], 2)]
    assert all("@" in l["by"] for l in policy_lines(local, sandbox_id))
    verify = local.run("egress-log", sandbox_id, "--verify")
    assert verify.returncode == 0, verify.stdout + verify.stderr
    summary = local.run("egress-log", sandbox_id, "--summary")
    assert "allow by" in summary.stdout and "revoke by" in summary.stdout, summary.stdout


def test_refused_follow_prints_each_new_refusal_once_as_it_happens(local, upstream):  # noqa: F811
    sandbox_id = local.create(spec_for(upstream))
    port = upstream.port
    assert curl_status(local, sandbox_id, f"https://refused.test:{port}/before") == "403"
    followed = Followed([local_bin(), "egress-log", sandbox_id, "--refused", "--follow"], local.env)
    try:
        # What was refused before it started, then each new refusal once.
        assert followed.next_line() == f"refused.test:{port}\n"
        assert curl_status(local, sandbox_id, f"https://other.test:{port}/new") == "403"
        assert followed.next_line() == f"other.test:{port}\n"
        assert curl_status(local, sandbox_id, f"https://refused.test:{port}/again") == "403"
        assert curl_status(local, sandbox_id, f"https://third.test:{port}/new") == "403"
        assert followed.next_line() == f"third.test:{port}\n"  # not refused.test again
    finally:
        code, err, rest = followed.interrupt()
    assert (code, err, rest) == (130, "sandbox-local: interrupted\n", [])


TUNNEL_CLIENT = """
import http.client, os, ssl, sys, urllib.parse
proxy = urllib.parse.urlsplit(os.environ["HTTPS_PROXY"])
conn = http.client.HTTPSConnection(proxy.hostname, proxy.port, timeout=30,
                                   context=ssl.create_default_context(cafile=os.environ["SSL_CERT_FILE"]))
conn.set_tunnel("refused.test", int(sys.argv[1]))
for path in ("/before-revoke", "/after-revoke"):
    try:
        conn.request("GET", path)
        answer = conn.getresponse()
        answer.read()
        print(answer.status, flush=True)
    except (http.client.RemoteDisconnected, ConnectionError, ssl.SSLError) as e:
        print("ended", type(e).__name__, flush=True)
    if path == "/before-revoke":
        sys.stdin.readline()  # the test revokes, then lets the second request go
"""


def test_a_tunnel_open_across_a_revoke_of_its_host_is_ended(local, upstream):  # noqa: F811
    sandbox_id = local.create(spec_for(upstream))
    assert local.run("allow", sandbox_id, "refused.test").returncode == 0
    client = subprocess.Popen([local_bin(), "exec", sandbox_id, "--", "python3", "-c", TUNNEL_CLIENT,
                               str(upstream.port)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=local.env)
    try:
        assert client.stdout.readline() == "200\n"
        res = local.run("revoke", sandbox_id, "refused.test")
        assert res.returncode == 0, res.stderr
        client.stdin.write("go\n")
        client.stdin.flush()
        out, err = client.communicate(timeout=60)
    finally:
        if client.poll() is None:
            client.kill()
            client.wait()
    # The same TLS tunnel, admitted before the revoke: the revoke ended it (in force when
    # revoke returned), so its next request finds the connection closed.
    assert out.startswith("ended "), out + err
    assert client.returncode == 0, err


def test_an_mcp_tool_and_bad_entries(local, upstream):  # noqa: F811
    sandbox_id = local.create(spec_for(upstream))
    res = local.run("allow", sandbox_id, "--mcp", "tools:delete_everything")
    assert res.returncode == 0, res.stderr
    assert "tools:delete_everything" in res.stdout
    with open(os.path.join(local.dir(sandbox_id), "spec.json")) as f:
        assert json.load(f)["mcp"][0]["tools"] == ["search", "delete_everything"]
    for args, words in [(["https://x.test/"], "https://x.test/"),
                        (["--mcp", "jira:create"], "declares no MCP server"),
                        (["--mcp", "nocolon"], "SERVER:TOOL")]:
        bad = local.run("allow", sandbox_id, *args)
        assert bad.returncode == 2 and words in bad.stderr, bad.stderr
        assert len(bad.stderr.strip().splitlines()) == 1
    missing = local.run("revoke", sandbox_id, "never.test")
    assert missing.returncode == 2 and "is not in the sandbox's egress" in missing.stderr
    assert local.run("allow", sandbox_id).returncode == 2
    assert local.run("allow", "000000000000", "x.test").returncode == 1
    assert [l["tools"] for l in policy_lines(local, sandbox_id)] == [["tools:delete_everything"]]


def test_the_sandbox_cannot_change_its_own_policy(local, upstream):  # noqa: F811
    sandbox_id = local.create(spec_for(upstream))
    with open(os.path.join(local.dir(sandbox_id), "proxy", "listen.json")) as f:
        admin = json.load(f)["admin"]
    # The admin port is a Unix socket in the sandbox's state directory, which is
    # not in the sandbox's mount namespace; the token is in no directory it sees.
    assert admin.startswith("unix:" + local.dir(sandbox_id) + "/"), admin
    path = admin[len("unix:"):]
    direct = local.sh(sandbox_id, f"curl -s --max-time 5 --unix-socket {path} -X POST http://localhost/policy; "
                                  "echo rc=$?")
    assert "rc=0" not in direct.stdout
    found = local.sh(sandbox_id, "find / -xdev \\( -name admin-token -o -name admin.sock \\) 2>/dev/null | head -1")
    assert found.stdout.strip() == ""
    assert policy_lines(local, sandbox_id) == []


def test_a_suspended_sandbox_resumes_with_the_changed_policy(local, upstream):  # noqa: F811
    sandbox_id = local.create(spec_for(upstream))
    assert local.run("suspend", sandbox_id).returncode == 0
    res = local.run("allow", sandbox_id, "refused.test")
    assert res.returncode == 0, res.stderr
    assert "in force when the sandbox resumes" in res.stdout
    assert local.run("resume", sandbox_id).returncode == 0
    assert curl_status(local, sandbox_id, f"https://refused.test:{upstream.port}/resumed") == "200"


def test_allow_narrows_a_host_to_rules_and_suggest_learns_them(local, upstream):  # noqa: F811
    sandbox_id = local.create(spec_for(upstream))
    base = f"https://allowed.test:{upstream.port}"
    assert curl_status(local, sandbox_id, f"{base}/repos/acme/widgets") == "200"
    entry = {"host": "allowed.test", "reason": "acme/widgets only",
             "rules": [{"name": "read-widgets", "methods": "read-only",
                        "paths": ["/repos/acme/widgets", "/repos/acme/widgets/*"], "allow": True}]}
    res = local.run("allow", sandbox_id, json.dumps(entry))
    assert res.returncode == 0, res.stderr
    assert res.stdout == f"allowed in {sandbox_id}: allowed.test (policy 1, in force now)\n"
    assert listed_policy(local, sandbox_id)["egress"] == [entry]
    assert curl_status(local, sandbox_id, f"{base}/repos/acme/widgets/issues/1") == "200"
    assert curl_status(local, sandbox_id, f"{base}/repos/acme/secret") == "403"
    body = local.sh(sandbox_id, f"curl -s --max-time 20 {base}/repos/acme/secret").stdout
    assert "acme/widgets only" in body and "allow <sandbox ID>" in body, body
    bad = local.run("allow", sandbox_id, '{"host": "allowed.test", "rules": [{"paths": ["/a*"], "allow": true}]}')
    assert bad.returncode == 2 and "rules[0].paths[0]" in bad.stderr, bad.stderr
    # The run so far, as the tightest spec that would have let it through.
    suggested = local.run("egress-log", sandbox_id, "--suggest")
    assert suggested.returncode == 0, suggested.stderr
    learnt = json.loads(suggested.stdout)
    assert learnt["egress"] == [{"host": f"allowed.test:{upstream.port}", "rules": [
        {"methods": ["GET"], "paths": ["/repos/acme/widgets", "/repos/acme/widgets/issues/1"], "allow": True}]}]
    # The host whole again.
    res = local.run("allow", sandbox_id, "allowed.test")
    assert res.returncode == 0 and "allowed.test (policy 2" in res.stdout, res.stdout + res.stderr
    assert curl_status(local, sandbox_id, f"{base}/repos/acme/secret") == "200"
