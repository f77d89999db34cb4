"""Bypass suite, MCP request targets (issue 26, class 2): a target an origin's URL
parser may read as its MCP endpoint must never carry an undeclared call past the
proxy. The readings come from the real parsers servers use: WHATWG's URL with a
base (Node's `new URL(req.url, base)`, the common idiom), and Python's urlsplit and
urljoin. A spelling with a reading under /mcp is either read as MCP traffic (the
undeclared call refused) or refused outright as having more than one reading; the
origin never receives the call. The table's expected readings are checked against
the parsers first, so it cannot drift from what servers do."""
import json
import subprocess

import pytest

from test_bypass_mcp import MIXED, call, post, proxy, server  # noqa: F401 (fixtures)
from test_bypass_smuggling import LogCursor

# target -> the paths the parsers route on: (node WHATWG, python urlsplit, python urljoin)
SPELLINGS = {
    "/mcp": ("/mcp", "/mcp", "/mcp"),
    "//x/mcp": ("/mcp", "/mcp", "/mcp"),
    "//other.test/mcp": ("/mcp", "/mcp", "/mcp"),
    "//x:80/mcp": ("/mcp", "/mcp", "/mcp"),
    "//@x/mcp": ("/mcp", "/mcp", "/mcp"),
    "//x/./mcp": ("/mcp", "/./mcp", "/./mcp"),
    "//x/MCP/": ("/MCP/", "/MCP/", "/MCP/"),
    "///mcp": ("/", "/mcp", "/mcp"),
    "////x/mcp": ("/mcp", "//x/mcp", "//x/mcp"),
    "/.//x/mcp": ("//x/mcp", "/.//x/mcp", "//x/mcp"),
    "//x/a/../mcp": ("/mcp", "/a/../mcp", "/a/../mcp"),
    "/a//mcp": ("/a//mcp", "/a//mcp", "/a//mcp"),
    "//x/other": ("/other", "/other", "/other"),
}

READINGS_SCRIPT = r"""
const targets = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const out = {};
for (const t of targets) out[t] = new URL(t, 'http://mixed.bypass.test').pathname;
process.stdout.write(JSON.stringify(out));
"""


def node_readings(targets):
    res = subprocess.run(["node", "-e", READINGS_SCRIPT], input=json.dumps(targets),
                         capture_output=True, text=True, timeout=60, check=True)
    return json.loads(res.stdout)


def python_readings(target):
    from urllib.parse import urljoin, urlsplit
    return urlsplit(target).path, urlsplit(urljoin("http://mixed.bypass.test/", target)).path


def under_mcp(path):
    """Where a server that routes on the path (ASCII case ignored, dots resolved by the
    parser itself) would find its /mcp endpoint."""
    path = path.lower()
    return path == "/mcp" or path.startswith("/mcp/")


def test_the_table_is_what_the_parsers_read():
    node = node_readings(list(SPELLINGS))
    for target, (want_node, want_split, want_join) in SPELLINGS.items():
        assert node[target] == want_node, (target, node[target])
        assert python_readings(target) == (want_split, want_join), target


@pytest.mark.parametrize("target", [t for t, r in SPELLINGS.items() if any(map(under_mcp, r))])
def test_a_target_some_parser_reads_as_the_endpoint_carries_no_undeclared_call(proxy, server, target):
    before = len(server.bodies)
    cursor = LogCursor(proxy)
    status, head, body = post(proxy, server, MIXED, target, json.dumps(call("delete_everything")))
    line = cursor.wait(lambda l: l.get("outcome") == "refused")[0]
    assert not any(b"delete" in b for b in server.bodies[before:]), (target, "the origin ran the call")
    if target == "/mcp":
        assert line["refusedBy"] == "mcp-tool", line
    else:
        # More than one reading: refused before anything goes upstream, with the reason.
        assert status == 400, head + body
        assert line["refusedBy"] == "bad-request", line
        assert b"empty path segment" in body, body


def test_declared_calls_and_plain_paths_still_pass(proxy, server):
    status, _, body = post(proxy, server, MIXED, "/mcp", json.dumps(call("search")))
    assert status == 200 and b"called search" in body, body
    status, _, _ = post(proxy, server, MIXED, "/api/v1/items", "{}")
    assert status == 200
