"""MCP tool-argument rules through the built egress-proxy, with the official MCP
TypeScript SDK on both ends (tests/mcp, as test_mcp.py): the spec limits
`search` to texts starting with "acme-" (a `prefix` rule) and leaves
`fetch_page` whole. Over each transport the SDK client calls search with an
allowed and a refused text; the refused call gets a JSON-RPC error naming the
rule, never reaches the server, and is logged `tool-argument-not-allowed`
with the rule. Raw JSON-RPC from curl covers batches and HTTP/2; a live policy
change narrows another tool by its arguments; the log verifies."""
import json
import os

import pytest

from osftest.clients import body_of, curl, status_of
from osftest.h2 import curl_h2
from osftest.proxy import run_proxy
from osftest.waiting import wait_until
from test_mcp import TRANSPORTS, mcp_environment, run_client, spec_of, url_of
from test_policy_change import post_policy

SEARCH = {"name": "search", "arguments": {"text": {"prefix": "acme-"}}}
ALLOWED_TEXT, REFUSED_TEXT = "acme-kittens", "payroll-2026"


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    with mcp_environment(tmp_path_factory.mktemp("mcp-arguments"), [SEARCH, "fetch_page"]) as environment:
        yield environment


def refusal_lines(env, server):
    return [l for l in env["proxy"].log_lines()
            if l.get("mcpServer") == server and l.get("refusedBy") == "tool-argument-not-allowed"]


@pytest.mark.parametrize("transport", list(TRANSPORTS))
def test_a_tool_with_argument_rules_is_listed_whole(env, transport):
    assert run_client(env, transport)["tools"] == ["search", "fetch_page"]


@pytest.mark.parametrize("transport", list(TRANSPORTS))
def test_allowed_arguments_pass_and_refused_ones_never_reach_the_server(env, transport):
    server = f"wiki-{transport}"
    out = run_client(env, transport, "--skip-list", "--call", "search", "--args",
                     json.dumps({"text": ALLOWED_TEXT}))
    assert out["call"]["result"]["content"][0]["text"] == \
        'search ran with {"text":"%s"}' % ALLOWED_TEXT
    calls_before = env["server"].calls(transport).count("search")
    assert calls_before >= 1

    out = run_client(env, transport, "--skip-list", "--call", "search", "--args",
                     json.dumps({"text": REFUSED_TEXT}))
    error = out["call"].get("error")
    assert error, out
    assert error["code"] == -32602
    assert (f'Tool argument not allowed: "text" must be a string starting with "acme-" '
            f'(rule {server}:search#text)') in error["message"]
    assert REFUSED_TEXT not in error["message"]
    line = wait_until(lambda: refusal_lines(env, server), timeout=30,
                      what="the refusal's log line")[-1]
    assert line["outcome"] == "refused"
    assert line["tool"] == "search"
    assert line["rule"] == f"{server}:search#text"
    # A missing argument named by a rule is refused too.
    out = run_client(env, transport, "--skip-list", "--call", "search", "--args", "{}")
    assert "is missing" in out["call"]["error"]["message"]
    # Neither refused call arrived (the legacy transport's server got a ping instead).
    assert env["server"].calls(transport).count("search") == calls_before
    assert not any(REFUSED_TEXT in json.dumps(l) for l in env["proxy"].log_lines(evidence=True))


def post(env, body, transport="json"):
    path = os.path.join(str(env["base"]), "body.json")
    with open(path, "w") as f:
        f.write(body if isinstance(body, str) else json.dumps(body))
    res = curl(env["proxy"], url_of(env, transport), "-X", "POST",
               "-H", "Content-Type: application/json",
               "-H", "Accept: application/json, text/event-stream",
               "-H", "MCP-Protocol-Version: 2025-06-18", "--data-binary", "@" + path)
    return status_of(res), body_of(res)


def call(id_, text):
    return {"jsonrpc": "2.0", "id": id_, "method": "tools/call",
            "params": {"name": "search", "arguments": {"text": text}}}


def test_a_batch_with_a_refused_argument_is_answered_without_the_server(env):
    before = len(env["server"].received())
    status, body = post(env, [call(51, ALLOWED_TEXT), call(52, REFUSED_TEXT)])
    assert status == 200
    answers = {a["id"]: a for a in json.loads(body)}
    assert answers[52]["error"]["message"] == (
        'Tool argument not allowed: "text" must be a string starting with "acme-" '
        '(rule wiki-json:search#text)')
    assert answers[51]["error"]["message"] == \
        "Batch refused: it contains a tool call whose arguments are not allowed"
    line = wait_until(lambda: [l for l in refusal_lines(env, "wiki-json") if l.get("tool") == "search,search"],
                      what="the batch's line")[-1]
    assert line["rule"] == "wiki-json:search#text"
    # Escaped spellings are read as the server reads them.
    status, body = post(env, r'{"jsonrpc": "2.0", "id": 53, "method": "tools/call", '
                             r'"params": {"name": "search", "arguments": {"te\u0078t": "\u0061cme-x"}}}')
    assert status == 200 and "result" in json.loads(body), body
    assert len(env["server"].received()) == before + 1


def test_arguments_are_judged_over_http2(env):
    url = url_of(env, "json")
    args = ("-H", "Content-Type: application/json", "-H", "Accept: application/json, text/event-stream",
            "-H", "MCP-Protocol-Version: 2025-06-18")
    status, version, body, res = curl_h2(env["proxy"], url, *args, "--data-binary",
                                         json.dumps(call(61, REFUSED_TEXT)))
    assert (status, version) == (200, "2"), res.stderr
    assert "rule wiki-json:search#text" in json.loads(body)["error"]["message"]
    res = curl(env["proxy"], url, "-i", "-X", "POST", *args, "--data-binary",
               json.dumps(call(63, REFUSED_TEXT)))
    assert "x-osf-refused-by: tool-argument-not-allowed" in res.stdout.lower()
    status, version, body, res = curl_h2(env["proxy"], url, *args, "--data-binary",
                                         json.dumps(call(62, ALLOWED_TEXT)))
    assert (status, version) == (200, "2"), res.stderr
    assert "result" in json.loads(body), body
    wait_until(lambda: [l for l in refusal_lines(env, "wiki-json") if l.get("http") == "2"],
               what="the h2 refusal's line")


def test_a_live_change_narrows_a_tool_by_its_arguments_and_the_log_verifies(env):
    proxy = env["proxy"]
    fetch = {"name": "fetch_page", "arguments": {"page": {"in": ["home", "faq"]}}}
    status, answer = post_policy(proxy, spec_of(env["server"], [SEARCH, fetch]))
    assert status == 200, answer
    assert "wiki-json:fetch_page" in json.loads(answer)["toolsAllowed"]
    page = lambda p: {"jsonrpc": "2.0", "id": 71, "method": "tools/call",
                      "params": {"name": "fetch_page", "arguments": {"page": p}}}
    status, body = post(env, page("faq"))
    assert "result" in json.loads(body), body
    status, body = post(env, page("admin"))
    assert json.loads(body)["error"]["message"] == (
        'Tool argument not allowed: "page" must be one of "home", "faq" (rule wiki-json:fetch_page#page)')
    policy = [l for l in proxy.log_lines(evidence=True) if l.get("kind") == "policy"]
    assert "wiki-json:fetch_page" in policy[-1]["tools"]
    key = os.path.join(proxy.state_dir, "log-key.pub")
    wait_until(lambda: any(l.get("rule") == "wiki-json:fetch_page#page" for l in proxy.log_lines()),
               what="the narrowed tool's refusal line")
    run = run_proxy(["log", "verify", "--pubkey", key, proxy.log_path], timeout=60)
    assert run.returncode == 0, run.stdout + run.stderr
