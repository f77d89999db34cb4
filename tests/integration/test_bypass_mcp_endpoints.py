"""Bypass suite, MCP endpoints (issue 41): an MCP endpoint is scheme + host +
port + path, every path a server announces for a session is part of it, and
what is MCP is decided before what is plain egress, on every host.

Every spec here allows the MCP servers' hosts by a wildcard `egress` entry,
so nothing is refused for its host: a request the proxy does not read as MCP
reaches the server. Real clients: the official TypeScript SDK (tests/mcp, a
Streamable HTTP server that keeps its legacy /sse + /messages endpoints),
curl over HTTP/1.1 and HTTP/2, and small raw HTTPS servers that announce
endpoints in every form a client resolves, or run the tool a request's
Mcp-Name header names (as a gateway routing on headers would)."""
import json
import os
import socket
import subprocess
import urllib.parse

import pytest

from osftest import Proxy
from osftest import TestCA as UpstreamCA  # aliased: pytest would collect a Test* class
from osftest.clients import body_of, curl, status_of
from osftest.h2 import curl_h2
from test_bypass_mcp_transport import assert_log_matches_the_schema
from test_bypass_smuggling import LogCursor, RawUpstream, tls_server_context
from test_mcp import DECLARED, MCP_DIR, NODE, McpServer, _ensure_node_modules

UNDECLARED = "delete_everything"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def call(name, id=1):
    return {"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": {}}}


# --- the TypeScript SDK: legacy endpoints on a host a wildcard allows -------------------

SDK_HOSTS = {"legacy": "legacy.sdk.test", "modern": "modern.sdk.test", "ported": "ported.sdk.test"}


@pytest.fixture(scope="module")
def sdk(tmp_path_factory):
    _ensure_node_modules()
    base = tmp_path_factory.mktemp("endpoints-sdk")
    ca = UpstreamCA(str(base / "upstream-ca"))
    cert, key = ca.issue(list(SDK_HOSTS.values()))
    server = McpServer(str(base), cert, key)
    elsewhere = free_port()  # the declared server's port; its application listens on server.port
    spec = {
        "template": "node:24-alpine",
        "egress": ["*.sdk.test"],
        "mcp": [
            # The legacy transport: the stream is the declared URL, /messages is announced.
            {"name": "legacy", "url": f"https://{SDK_HOSTS['legacy']}:{server.port}/sse", "tools": DECLARED},
            # Streamable HTTP declared; the same server keeps /sse + /messages.
            {"name": "modern", "url": f"https://{SDK_HOSTS['modern']}:{server.port}/mcp-json", "tools": DECLARED},
            # Declared on another port of the host the application also serves on.
            {"name": "ported", "url": f"https://{SDK_HOSTS['ported']}:{elsewhere}/mcp-json", "tools": DECLARED},
        ],
    }
    try:
        proxy = Proxy(spec, str(base / "proxy"), upstream_ca=ca.cert_path,
                      aliases={h: "127.0.0.1" for h in SDK_HOSTS.values()})
    except Exception:
        server.stop()
        raise
    yield {"server": server, "proxy": proxy}
    proxy.stop()
    server.stop()
    assert_log_matches_the_schema(proxy)


def sdk_client(sdk, url, transport, *args, timeout=90):
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    env["NODE_EXTRA_CA_CERTS"] = sdk["proxy"].ca_path
    res = subprocess.run([NODE, os.path.join(MCP_DIR, "client.mjs"), "--url", url, "--transport", transport,
                          "--proxy", sdk["proxy"].url, *args],
                         capture_output=True, text=True, timeout=timeout, env=env, cwd=MCP_DIR)
    try:
        out = json.loads(res.stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        raise AssertionError(f"client printed no result (exit {res.returncode}): {res.stdout} {res.stderr}")
    assert "failure" not in out, out["failure"] + "\nproxy stderr: " + sdk["proxy"].stderr()[-2000:]
    return out


CLIENTS = {
    # what the client connects to, its transport, the server (mcpServer) it is
    "announced-messages": ("legacy", "/sse", "legacy", "/messages"),
    "legacy-endpoints-of-a-streamable-server": ("modern", "/sse", "legacy", "/messages"),
    "declared-path-on-another-port": ("ported", "/mcp-json", "streamable", "/mcp-json"),
}


@pytest.mark.parametrize("case", list(CLIENTS))
def test_an_sdk_client_cannot_call_an_undeclared_tool_through_an_endpoint_egress_also_allows(sdk, case):
    name, path, transport, call_path = CLIENTS[case]
    url = f"https://{SDK_HOSTS[name]}:{sdk['server'].port}{path}"
    cursor = LogCursor(sdk["proxy"])
    listed = sdk_client(sdk, url, transport)
    assert listed["tools"] == DECLARED
    out = sdk_client(sdk, url, transport, "--skip-list", "--call", UNDECLARED, "--args", json.dumps({"text": "x"}))
    assert out["call"].get("error"), out
    assert out["call"]["error"]["code"] == -32602
    assert f"Unknown tool: {UNDECLARED}" in out["call"]["error"]["message"]
    assert UNDECLARED not in [m["tool"] for m in sdk["server"].received() if m["method"] == "tools/call"]
    line = cursor.wait(lambda l: l.get("tool") == UNDECLARED and l["path"] == call_path)[-1]
    assert line["outcome"] == "refused" and line["refusedBy"] == "mcp-tool"
    assert line["mcpServer"] == name
    assert line["mcpMethod"] == "tools/call"
    # A declared tool still runs there.
    ok = sdk_client(sdk, url, transport, "--skip-list", "--call", "search", "--args", json.dumps({"text": case}))
    assert "result" in ok["call"], ok


# --- raw servers: every form of an announcement, every way to the endpoint --------------

class AnnouncingServer:
    """An HTTPS server on 127.0.0.1. GET /sse?announce=<URL> answers an event stream
    whose one event announces <URL> as the endpoint. A POST runs the tool its body
    calls, or, like a gateway routing on headers, the one its Mcp-Name header names;
    `ran` lists them. Anything else: 200 text."""

    def __init__(self, tls):
        self.ran = []
        self.redirect_to = None  # POST /mcp/redirect answers 307 to it
        self.upstream = RawUpstream(tls=tls, route=self.route)
        self.port = self.upstream.port

    def route(self, head, path, body):
        method = head.split(b" ", 1)[0]
        target = urllib.parse.urlsplit(path.decode())
        if method == b"GET" and target.path == "/sse":
            announce = urllib.parse.parse_qs(target.query)["announce"][0]
            events = f"event: endpoint\ndata: {announce}\n\n".encode()
            return (b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: %d\r\n\r\n"
                    % len(events) + events)
        if method == b"POST" and target.path == "/mcp/redirect":
            return (b"HTTP/1.1 307 Temporary Redirect\r\nLocation: %s\r\nContent-Length: 0\r\n\r\n"
                    % self.redirect_to.encode())
        if method == b"POST":
            fields = {}
            for line in head.split(b"\r\n")[1:]:
                k, _, v = line.partition(b":")
                fields[k.strip().lower().decode()] = v.strip().decode()
            try:
                message = json.loads(body)
            except ValueError:
                message = {}
            tool = fields.get("mcp-name") or (message.get("params") or {}).get("name")
            if message.get("method") == "tools/call" or fields.get("mcp-method") == "tools/call":
                self.ran.append(tool)
            answer = json.dumps({"jsonrpc": "2.0", "id": message.get("id"),
                                 "result": {"content": [{"type": "text", "text": f"ran {tool}"}]}}).encode()
            return (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"
                    % len(answer) + answer)
        return None  # 200 "ok <path>"

    def stop(self):
        self.upstream.stop()


RAW, OTHER, GATEWAY = "ann.raw.test", "other.raw.test", "gw.raw.test"


@pytest.fixture(scope="module")
def raw(tmp_path_factory):
    base = tmp_path_factory.mktemp("endpoints-raw")
    ca = UpstreamCA(str(base / "upstream-ca"))
    tls = tls_server_context(ca, [RAW, OTHER, GATEWAY])
    main, other = AnnouncingServer(tls), AnnouncingServer(tls)
    spec = {"template": "debian:12", "egress": ["*.raw.test"],
            "mcp": [{"name": "raw", "url": f"https://{RAW}:{main.port}/sse", "tools": ["search"]},
                    {"name": "gw", "url": f"https://{GATEWAY}:{main.port}/mcp", "tools": ["search"]}]}
    with Proxy(spec, str(base / "proxy"), upstream_ca=ca.cert_path,
               aliases={RAW: "127.0.0.1", OTHER: "127.0.0.1", GATEWAY: "127.0.0.1"}) as p:
        yield {"proxy": p, "main": main, "other": other, "base": base}
        assert_log_matches_the_schema(p)
    main.stop()
    other.stop()


def stream(raw, announce, h2=False):
    """Opens the declared stream announcing `announce`; returns its body."""
    url = f"https://{RAW}:{raw['main'].port}/sse?announce=" + urllib.parse.quote(announce, safe="")
    if h2:
        status, version, text, res = curl_h2(raw["proxy"], url)
        assert status == 200 and version == "2", res.stderr
        return text
    res = curl(raw["proxy"], url)
    assert status_of(res) == 200, res.stdout + res.stderr
    return body_of(res)


def post_call(raw, url, tool=UNDECLARED, *, h2=False, headers=(), path_as_is=False, body=None):
    data = json.dumps(body if body is not None else call(tool))
    args = ["-X", "POST", "-H", "Content-Type: application/json", "--data-binary", data]
    for h in headers:
        args += ["-H", h]
    if path_as_is:
        args.append("--path-as-is")
    if h2:
        status, version, text, _ = curl_h2(raw["proxy"], url, *args)
        assert version == "2"
        return status, text
    res = curl(raw["proxy"], url, *args)
    return status_of(res), body_of(res)


ANNOUNCEMENTS = {
    # id: (announcement, where the client POSTs, server that receives it, h2, --path-as-is)
    "absolute-path": ("/messages?sessionId=s1", "https://{RAW}:{main}/messages?sessionId=s1", "main", False, False),
    "relative-path": ("rel/messages?sessionId=s2", "https://{RAW}:{main}/rel/messages?sessionId=s2", "main", False, False),
    "dot-dot-relative": ("../up/messages?x=1", "https://{RAW}:{main}/up/messages?x=1", "main", False, False),
    "another-host-and-port": ("https://{OTHER}:{other}/rpc?s=1", "https://{OTHER}:{other}/rpc?s=1", "other", False, False),
    "scheme-relative": ("//{OTHER}:{other}/rpc2", "https://{OTHER}:{other}/rpc2", "other", False, False),
    "percent-encoded-and-dotted": ("/a/../d%6Fts/messages", "https://{RAW}:{main}/dots/Messages", "main", False, False),
    "posted-spelled-otherwise": ("/spelled/messages", "https://{RAW}:{main}/x/../spelled/%6Dessages", "main", False, True),
    "stream-and-post-over-http2": ("/h2/messages", "https://{RAW}:{main}/h2/messages", "main", True, False),
    "another-port-of-an-announced-host": ("https://{OTHER}:1/far/rpc", "https://{OTHER}:{other}/far/rpc", "other", False, False),
}


@pytest.mark.parametrize("case", list(ANNOUNCEMENTS))
def test_an_announced_endpoint_is_mcp_on_every_connection(raw, case):
    announce, target, receiver, h2, as_is = ANNOUNCEMENTS[case]
    names = {"RAW": RAW, "OTHER": OTHER, "main": raw["main"].port, "other": raw["other"].port}
    announce, target = announce.format(**names), target.format(**names)
    cursor = LogCursor(raw["proxy"])
    body = stream(raw, announce, h2=h2)
    assert "event: endpoint" in body and announce in body
    # The POST goes on its own connection (curl), after the stream ended.
    status, answer = post_call(raw, target, h2=h2, path_as_is=as_is)
    assert status == 200, answer
    if "sessionId" not in target:
        assert json.loads(answer)["error"]["code"] == -32602
    # (With a sessionId the server gets a ping in its place and the refusal travels
    # on the session's stream: mcp/README.md, "Refusing a call on the legacy transport".)
    assert UNDECLARED not in raw[receiver].ran
    line = cursor.wait(lambda l: l.get("tool") == UNDECLARED)[-1]
    assert line["refusedBy"] == "mcp-tool" and line["mcpServer"] == "raw"
    assert line["mcpMethod"] == "tools/call"
    if h2:
        assert line.get("http") == "2"
    # The declared tool goes through, read as MCP.
    status, answer = post_call(raw, target, "search", h2=h2, path_as_is=as_is)
    assert status == 200 and json.loads(answer)["result"], answer
    assert "search" in raw[receiver].ran


@pytest.mark.parametrize("announce", [
    " /messages", "/mess\tages", "/a%2Fmessages", "/x//messages", "https://user:pw@ann.raw.test/m",
    "\\\\other.raw.test\\rpc",
], ids=["leading-space", "tab", "encoded-slash", "empty-segment", "userinfo", "backslashes"])
def test_an_announcement_clients_could_read_otherwise_never_reaches_the_client(raw, announce):
    cursor = LogCursor(raw["proxy"])
    body = stream(raw, announce)
    assert "endpoint" not in body
    line = cursor.wait(lambda l: l["path"] == "/sse" and "mcpEventsDropped" in l)[-1]
    assert line["mcpEventsDropped"] == 1


def test_a_body_to_another_path_of_an_mcp_host_is_read_as_mcp(raw):
    """Nothing announced it: on a host where an MCP server lives, a request that
    could carry MCP messages is read as MCP (fail closed); a plain GET stays plain."""
    cursor = LogCursor(raw["proxy"])
    target = f"https://{RAW}:{raw['main'].port}/never-announced"
    status, answer = post_call(raw, target)
    assert status == 200 and json.loads(answer)["error"]["code"] == -32602
    assert UNDECLARED not in raw["main"].ran
    assert cursor.wait(lambda l: l.get("tool") == UNDECLARED)[-1]["mcpServer"] == "raw"
    res = curl(raw["proxy"], f"https://{RAW}:{raw['main'].port}/page.html")
    assert status_of(res) == 200 and body_of(res) == "ok /page.html"


@pytest.mark.parametrize("location, target", [
    ("https://{OTHER}:{other}/moved?s=1", "https://{OTHER}:{other}/moved/x"),
    ("/moved-here", "https://{GATEWAY}:{main}/moved-here"),
    ("https://user:pw@{OTHER}:{other}/moved", None),
], ids=["another-host", "same-host", "unreadable"])
def test_a_redirect_from_an_mcp_endpoint_is_an_announced_endpoint(raw, location, target):
    """A 307 from an MCP endpoint tells the client where to go next (fetch, the
    TypeScript SDK's client, follows it with the body): an endpoint the server
    announces. A call sent straight there is read as MCP."""
    names = {"OTHER": OTHER, "other": raw["other"].port, "GATEWAY": GATEWAY, "main": raw["main"].port}
    raw["main"].redirect_to = location.format(**names)
    cursor = LogCursor(raw["proxy"])
    url = f"https://{GATEWAY}:{raw['main'].port}/mcp/redirect"
    res = curl(raw["proxy"], url, "-X", "POST", "-H", "Content-Type: application/json",
               "--data-binary", json.dumps(call("search")))
    if target is None:  # a Location the proxy cannot record is not passed
        assert status_of(res) == 502
        assert cursor.wait(lambda l: l["path"] == "/mcp/redirect")[-1]["refusedBy"] == "mcp-unreadable"
        return
    assert status_of(res) == 307
    status, answer = post_call(raw, target.format(**names))
    assert status == 200 and json.loads(answer)["error"]["code"] == -32602, answer
    assert UNDECLARED not in raw["main"].ran + raw["other"].ran
    assert cursor.wait(lambda l: l.get("tool") == UNDECLARED)[-1]["mcpServer"] == "gw"


# --- Mcp-Method / Mcp-Name: headers a gateway routes on say what the body says -----------

GW_URL = "https://{GATEWAY}:{port}/mcp"


@pytest.mark.parametrize("headers, body_tool, reason", [
    (["Mcp-Method: tools/call", f"Mcp-Name: {UNDECLARED}"], "search", "mcp-tool"),
    (["Mcp-Method: tools/call", "Mcp-Name: =?base64?ZGVsZXRlX2V2ZXJ5dGhpbmc=?="], "search", "mcp-tool"),
    ([f"Mcp-Tool-Name: {UNDECLARED}"], "search", "mcp-tool"),
    (["Mcp-Name: search", f"Mcp-Name: {UNDECLARED}"], "search", "mcp-tool"),
    (["Mcp-Method: tools/list"], "search", "mcp-unreadable"),
    # Decoded by one reader, read literally by another: a call to an undeclared tool.
    (["Mcp-Method: tools/call", "Mcp-Name: =?BASE64?c2VhcmNo?="], "search", "mcp-tool"),
], ids=["name-differs", "name-base64", "draft-tool-name", "two-names", "method-differs", "sentinel-spelling"])
@pytest.mark.parametrize("h2", [False, True], ids=["http1", "http2"])
def test_routing_headers_that_disagree_with_the_body_are_refused(raw, headers, body_tool, reason, h2):
    cursor = LogCursor(raw["proxy"])
    before = list(raw["main"].ran)
    status, answer = post_call(raw, GW_URL.format(GATEWAY=GATEWAY, port=raw["main"].port), body_tool,
                               h2=h2, headers=headers)
    assert status == 400, answer
    assert json.loads(answer)["error"]["code"] == -32020
    assert raw["main"].ran == before
    line = cursor.wait(lambda l: l.get("mcpServer") == "gw" and l["outcome"] == "refused")[-1]
    assert line["refusedBy"] == reason


def test_routing_headers_that_agree_pass_and_a_bodiless_request_with_them_does_not(raw):
    url = GW_URL.format(GATEWAY=GATEWAY, port=raw["main"].port)
    status, answer = post_call(raw, url, "search", headers=["Mcp-Method: tools/call", "Mcp-Name: search"])
    assert status == 200 and json.loads(answer)["result"], answer
    assert raw["main"].ran[-1] == "search"
    before = list(raw["main"].ran)
    res = curl(raw["proxy"], url, "-H", "Mcp-Method: tools/call", "-H", f"Mcp-Name: {UNDECLARED}")
    assert status_of(res) == 400
    assert raw["main"].ran == before


# --- resources/*, prompts/*, completion/*: not declared by the spec, passed and logged ----

@pytest.mark.parametrize("method, params", [
    ("resources/read", {"uri": "file:///notes.txt"}),
    ("prompts/get", {"name": "greet"}),
    ("completion/complete", {"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "a", "value": "b"}}),
])
def test_other_mcp_methods_pass_and_their_method_is_logged(raw, method, params):
    cursor = LogCursor(raw["proxy"])
    url = GW_URL.format(GATEWAY=GATEWAY, port=raw["main"].port)
    status, answer = post_call(raw, url, body={"jsonrpc": "2.0", "id": 5, "method": method, "params": params})
    assert status == 200, answer
    line = cursor.wait(lambda l: l.get("mcpServer") == "gw" and l.get("mcpMethod") == method)[-1]
    assert line["outcome"] == "allowed"
    # The method, never its parameters.
    assert "notes.txt" not in json.dumps(line) and "greet" not in json.dumps(line)
