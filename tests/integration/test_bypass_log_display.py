"""Bypass suite, fourth round: names the sandbox chooses, as a reviewer reads
them in `egress-proxy log summary`.

A refused tool name, a refused host and a path are the sandbox's bytes. The
log stays valid JSON lines that verify (JSON escapes them), but the text
summary printed them as they were: a line break in a tool name drew a line of
its own ("only: search called 7"), a `;` and words after it a tool of its own,
a terminal escape or a right-to-left override rewrote what the reviewer sees.
Names that are not plain printable ASCII are now shown quoted and escaped."""
import json

import pytest

from osftest import Proxy
from osftest.proxy import run_proxy
from test_bypass_mcp import MCP_ONLY, call, jsonrpc_route, post
from test_bypass_smuggling import LogCursor, RawUpstream, exchange

SPOOFS = [
    "x REFUSED 1\n  only: search called 7",
    "y called 3; search",
    "z\x1b[1A\x1b[2K  only: search called 5",
    "w\u2028  only: search called 4",
]


@pytest.fixture(scope="module")
def server():
    with RawUpstream(route=jsonrpc_route) as s:
        yield s


@pytest.fixture(scope="module")
def proxy(tmp_path_factory, server):
    spec = {"template": "debian:12", "egress": ["api.example.test"],
            "mcp": [{"name": "only", "url": f"http://{MCP_ONLY}:{server.port}/mcp", "tools": ["search"]}]}
    with Proxy(spec, str(tmp_path_factory.mktemp("log-display")), aliases={MCP_ONLY: "127.0.0.1"}) as p:
        yield p


def test_names_the_sandbox_chooses_cannot_draw_lines_in_the_summary(proxy, server):
    cursor = LogCursor(proxy)
    for name in SPOOFS:
        status, head, body = post(proxy, server, MCP_ONLY, "/mcp", json.dumps(call(name)))
        assert status == 200 and b"-32602" in body, head + body
    # A refused host the proxy logs as written: right-to-left override, then a name.
    status, _, _ = exchange(proxy, "CONNECT \u202etset.elpmaxe.ipa:443 HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    assert status == 403
    lines = cursor.wait(lambda l: l.get("refusedBy") == "bad-host")
    assert len([l for l in cursor.new() if l.get("refusedBy") == "mcp-tool"]) == len(SPOOFS)
    assert lines[0]["host"].startswith("\u202e")

    verify = run_proxy(["log", "verify", proxy.log_path])
    assert verify.returncode == 0, verify.stdout + verify.stderr
    run = run_proxy(["log", "summary", proxy.log_path])
    assert run.returncode == 0, run.stderr
    text = run.stdout
    # No tool was called: "called" appears only inside the quoted refused names.
    assert all(line.startswith("  only: \"") for line in text.splitlines() if "called" in line), text
    assert "\x1b" not in text and "\u2028" not in text and "\u202e" not in text
    mcp_lines = [line for line in text.split("MCP tools:", 1)[1].splitlines() if line.strip()]
    assert len(mcp_lines) == 1 and mcp_lines[0].startswith("  only:"), text
    for shown in ['"x REFUSED 1\\x0a  only: search called 7" REFUSED 1',
                  '"y called 3; search" REFUSED 1',
                  '"z\\x1b[1A\\x1b[2K  only: search called 5" REFUSED 1',
                  '"w\\u{2028}  only: search called 4" REFUSED 1']:
        assert shown in mcp_lines[0], text
    assert '"\\u{202e}tset.elpmaxe.ipa"' in text
    # The JSON summary keeps the names as they are (a tool reads them as data).
    summary = json.loads(run_proxy(["log", "summary", "--json", proxy.log_path]).stdout)
    assert sorted(summary["mcp"][0]["refused"]) == sorted(SPOOFS)
