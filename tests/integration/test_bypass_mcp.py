"""Bypass suite, MCP: ways to get a call to an undeclared tool past the proxy,
or an undeclared tool into a list, beyond test_mcp.py's SDK-level tests. A
small JSON-RPC upstream (no SDK) records every body it receives; a refused
call must never appear in them.

MCP_ONLY is an MCP host only (every path on it is MCP traffic); MIXED is in
egress and has an MCP endpoint at /mcp (only that endpoint, however it is
spelled, is MCP traffic)."""
import gzip
import json
import socket
import zlib

import pytest

from osftest import Proxy
from test_bypass_smuggling import LogCursor, RawUpstream, proxy_address, read_response

MCP_ONLY, MIXED = "mcp-only.bypass.test", "mixed.bypass.test"
LIMIT = 4096
ALL_TOOLS = ["search", "delete_everything"]


def jsonrpc_route(head, path, body):
    """A JSON-RPC server exposing both tools. Answer variants by path suffix."""
    try:
        message = json.loads(body) if body else None
    except ValueError:
        message = None

    def answer(m):
        if not isinstance(m, dict) or "id" not in m:
            return None
        if m.get("method") == "tools/list":
            result = {"tools": [{"name": n, "inputSchema": {"type": "object"}} for n in ALL_TOOLS]}
        elif m.get("method") == "tools/call":
            result = {"content": [{"type": "text", "text": "called " + str(m.get("params", {}).get("name"))}]}
        else:
            result = {}
        return {"jsonrpc": "2.0", "id": m["id"], "result": result}

    if isinstance(message, list):
        out = [a for a in map(answer, message) if a is not None]
    else:
        out = answer(message) or {"jsonrpc": "2.0", "id": None, "result": {}}
    data = json.dumps(out).encode()
    ctype, extra = b"application/json", b""
    if path.endswith(b"-gzip"):
        data, extra = gzip.compress(data), b"Content-Encoding: gzip\r\n"
    elif path.endswith(b"-html"):
        ctype = b"text/html"
    elif path.endswith(b"-dupkeys"):
        data = (b'{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"search"}],'
                b'"tools":[{"name":"delete_everything"}]}}')
    elif path.endswith(b"-escaped"):
        data = (b'{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"search"},'
                b'{"name":"delete\\u005feverything"},{"name":"\\u0073earch "}]}}')
    elif path.endswith(b"-nested"):
        data = b'[[{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"delete_everything"}]}}]]'
    elif path.endswith(b"-big"):
        data = json.dumps({"jsonrpc": "2.0", "id": 1, "result": {
            "tools": [{"name": "delete_everything", "description": "x" * (2 * LIMIT)}]}}).encode()
    return (b"HTTP/1.1 200 OK\r\nContent-Type: " + ctype + b"\r\n" + extra +
            b"Content-Length: %d\r\n\r\n" % len(data) + data)


@pytest.fixture(scope="module")
def server():
    with RawUpstream(route=jsonrpc_route) as s:
        yield s


@pytest.fixture(scope="module")
def proxy(tmp_path_factory, server):
    spec = {"template": "debian:12", "egress": [MIXED],
            "mcp": [{"name": "only", "url": f"http://{MCP_ONLY}:{server.port}/mcp", "tools": ["search"]},
                    {"name": "mixed", "url": f"http://{MIXED}:{server.port}/mcp", "tools": ["search"]}]}
    # Each case reads its own refusal's line, many of one kind within a minute:
    # every refusal is written whole (folding is test_log_flood's subject).
    with Proxy(spec, str(tmp_path_factory.mktemp("mcp")),
               aliases={MCP_ONLY: "127.0.0.1", MIXED: "127.0.0.1"},
               args=["--max-mcp-message-bytes", str(LIMIT), "--log-every-refusal"]) as p:
        yield p


def post(proxy, server, host, path, body, content_type="application/json", extra=(), method="POST",
         chunked=False):
    if isinstance(body, str):
        body = body.encode()
    headers = [f"{method} http://{host}:{server.port}{path} HTTP/1.1", f"Host: {host}:{server.port}",
               "Accept: application/json, text/event-stream", "Connection: close", *extra]
    if content_type is not None:
        headers.append(f"Content-Type: {content_type}")
    if chunked:
        headers.append("Transfer-Encoding: chunked")
        payload = b"".join(b"%x\r\n%s\r\n" % (len(body[i:i + 1000]), body[i:i + 1000])
                           for i in range(0, len(body), 1000)) + b"0\r\n\r\n"
    else:
        headers.append(f"Content-Length: {len(body)}")
        payload = body
    with socket.create_connection(proxy_address(proxy), timeout=15) as s:
        s.sendall(("\r\n".join(headers) + "\r\n\r\n").encode() + payload)
        return read_response(s)


def call(name, id=1, method="tools/call"):
    return {"jsonrpc": "2.0", "id": id, "method": method, "params": {"name": name, "arguments": {}}}


def undeclared_reached(server, before):
    return any(b"delete" in b for b in server.bodies[before:])


def assert_never_forwarded(proxy, server, send, statuses=(200, 202, 400, 413, 415), reasons=("mcp-tool", "mcp-unreadable")):
    before = len(server.bodies)
    cursor = LogCursor(proxy)
    status, head, body = send()
    assert status in statuses, head + body
    line = cursor.wait(lambda l: l["outcome"] == "refused")[0]
    assert line["refusedBy"] in reasons, line
    assert not undeclared_reached(server, before)
    assert len(server.bodies) == before, "the server received the message"
    return status, body


def test_declared_calls_pass(proxy, server):
    before = len(server.bodies)
    status, _, body = post(proxy, server, MCP_ONLY, "/mcp", json.dumps(call("search")))
    assert status == 200 and b"called search" in body
    assert len(server.bodies) == before + 1


# --- a call hidden in a batch ------------------------------------------------------

BATCHES = {
    "last of thirty": [call("search", i) for i in range(29)] + [call("delete_everything", 99)],
    "a notification (no id)": [call("search", 1), {k: v for k, v in call("delete_everything").items() if k != "id"}],
    "a null id": [call("search", 1), call("delete_everything", None)],
    "a string id that looks numeric": [call("delete_everything", "1"), call("search", 1)],
    "after a client response": [{"jsonrpc": "2.0", "id": 5, "result": {}}, call("delete_everything", 6)],
}


@pytest.mark.parametrize("case", sorted(BATCHES))
def test_a_call_hidden_in_a_batch_is_refused(proxy, server, case):
    status, body = assert_never_forwarded(proxy, server, lambda: post(proxy, server, MCP_ONLY, "/mcp", json.dumps(BATCHES[case])))
    assert status in (200, 202)
    if status == 200:  # every request in it is answered with an error, none by the server
        answers = json.loads(body)
        assert answers and all("error" in a and "result" not in a for a in answers)


def test_nested_batches_are_refused(proxy, server):
    assert_never_forwarded(proxy, server, lambda: post(proxy, server, MCP_ONLY, "/mcp", json.dumps([[call("delete_everything")]])),
                           statuses=(400,), reasons=("mcp-unreadable",))


# --- escapes of the method and of the tool name ---------------------------------------

ESCAPES = {
    "method tools\\u002fcall": r'{"jsonrpc":"2.0","id":1,"method":"tools\u002fcall","params":{"name":"delete_everything"}}',
    "method \\u0074ools/call": r'{"jsonrpc":"2.0","id":1,"method":"\u0074ools/call","params":{"name":"delete_everything"}}',
    "method all escaped": r'{"jsonrpc":"2.0","id":1,"method":"\u0074\u006f\u006f\u006c\u0073\u002f\u0063\u0061\u006c\u006c","params":{"name":"delete_everything"}}',
    "method tools\\/call, name escaped": r'{"jsonrpc":"2.0","id":1,"method":"tools\/call","params":{"name":"delete\u005feverything"}}',
    "name with a NUL after a declared one": r'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search\u0000delete_everything"}}',
    "name with a trailing space": '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search "}}',
    "name in another case": '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"SEARCH"}}',
    "name as an array": '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":["search","delete_everything"]}}',
    "params before method": '{"params":{"name":"delete_everything"},"jsonrpc":"2.0","id":1,"method":"tools/call"}',
}


@pytest.mark.parametrize("case", sorted(ESCAPES))
def test_escaped_methods_and_names_are_judged_after_unescaping(proxy, server, case):
    before = len(server.bodies)
    assert_never_forwarded(proxy, server, lambda: post(proxy, server, MCP_ONLY, "/mcp", ESCAPES[case]), statuses=(200,))
    assert len(server.bodies) == before


DUPLICATES = {
    "method twice": '{"jsonrpc":"2.0","id":1,"method":"ping","method":"tools/call","params":{"name":"delete_everything"}}',
    "name twice": '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","name":"delete_everything"}}',
    "params twice": '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search"},"params":{"name":"delete_everything"}}',
    "method twice, one escaped": r'{"jsonrpc":"2.0","id":1,"method":"ping","m\u0065thod":"tools/call","params":{"name":"delete_everything"}}',
    "a BOM first": '\ufeff{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"delete_everything"}}',
    "two messages back to back": '{"jsonrpc":"2.0","id":1,"method":"ping"}{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"delete_everything"}}',
    "a trailing comma": '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"delete_everything"},}',
    "a comment": '{"jsonrpc":"2.0","id":1,/*x*/"method":"tools/call","params":{"name":"delete_everything"}}',
    "single quotes": "{'jsonrpc':'2.0','id':1,'method':'tools/call','params':{'name':'delete_everything'}}",
    "invalid UTF-8": b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"delete_everything\xff"}}',
    "a lone surrogate": r'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"delete_everything\ud800"}}',
    "deeply nested": '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"delete_everything","x":' + "[" * 5000 + "]" * 5000 + "}}",
}


@pytest.mark.parametrize("case", sorted(DUPLICATES))
def test_ambiguous_json_is_refused(proxy, server, case):
    body = DUPLICATES[case]
    if isinstance(body, str):
        body = body.encode("utf-8")
    assert_never_forwarded(proxy, server, lambda: post(proxy, server, MCP_ONLY, "/mcp", body),
                           statuses=(400, 413), reasons=("mcp-unreadable",))


# --- other paths and methods on the MCP host ----------------------------------------

@pytest.mark.parametrize("path", ["/other", "/", "/mcp2", "/MCP", "/mcp/../admin", "/.well-known/x", "/messages?session=1"])
def test_every_path_on_an_mcp_only_host_is_mcp(proxy, server, path):
    assert_never_forwarded(proxy, server, lambda: post(proxy, server, MCP_ONLY, path, json.dumps(call("delete_everything"))),
                           statuses=(200,), reasons=("mcp-tool",))


@pytest.mark.parametrize("path", ["/MCP", "/mcp/", "/./mcp", "/x/../mcp", "/%6dcp", "/%6Dcp", "/mcp?x=1",
                                  "/%2e/mcp", "/mcp/sub", "/mcp;x=1"])
def test_spellings_of_the_mcp_path_on_a_mixed_host_are_mcp(proxy, server, path):
    assert_never_forwarded(proxy, server, lambda: post(proxy, server, MIXED, path, json.dumps(call("delete_everything"))),
                           statuses=(200,), reasons=("mcp-tool",))


def test_a_body_to_another_path_of_a_mixed_host_is_read_as_mcp(proxy, server):
    # Issue 41: the server on that host may route /api to its MCP handler too (in
    # doubt: MCP); a bodiless request there stays plain egress.
    assert_never_forwarded(proxy, server, lambda: post(proxy, server, MIXED, "/api", json.dumps(call("delete_everything"))),
                           statuses=(200,), reasons=("mcp-tool",))
    before = len(server.bodies)
    status, _, _ = post(proxy, server, MIXED, "/api", b"", content_type=None, method="GET")
    assert status == 200 and len(server.bodies) == before + 1


@pytest.mark.parametrize("method", ["PUT", "PATCH", "DELETE", "GET", "OPTIONS"])
def test_other_methods_with_a_body_are_judged_too(proxy, server, method):
    assert_never_forwarded(proxy, server, lambda: post(proxy, server, MCP_ONLY, "/mcp", json.dumps(call("delete_everything")), method=method),
                           statuses=(200,), reasons=("mcp-tool",))


def test_a_chunked_body_is_judged_whole(proxy, server):
    body = json.dumps([call("search", i) for i in range(20)] + [call("delete_everything", 99)])
    assert_never_forwarded(proxy, server, lambda: post(proxy, server, MCP_ONLY, "/mcp", body, chunked=True),
                           statuses=(200,), reasons=("mcp-tool",))


# --- encodings, types and sizes ------------------------------------------------------------

ENCODINGS = {
    "gzip": (gzip.compress(json.dumps(call("delete_everything")).encode()), ["Content-Encoding: gzip"]),
    "GZIP": (gzip.compress(json.dumps(call("delete_everything")).encode()), ["Content-Encoding: GZIP"]),
    "deflate": (zlib.compress(json.dumps(call("delete_everything")).encode()), ["Content-Encoding: deflate"]),
    "identity, gzip": (gzip.compress(json.dumps(call("delete_everything")).encode()), ["Content-Encoding: identity, gzip"]),
    "two fields": (gzip.compress(json.dumps(call("delete_everything")).encode()),
                   ["Content-Encoding: identity", "Content-Encoding: gzip"]),
    "gzip bytes without a header": (gzip.compress(json.dumps(call("delete_everything")).encode()), []),
}


@pytest.mark.parametrize("case", sorted(ENCODINGS))
def test_compressed_bodies_are_refused(proxy, server, case):
    body, extra = ENCODINGS[case]
    assert_never_forwarded(proxy, server, lambda: post(proxy, server, MCP_ONLY, "/mcp", body, extra=extra),
                           statuses=(400, 415), reasons=("mcp-unreadable", "bad-request"))


@pytest.mark.parametrize("ctype", [None, "text/plain", "application/x-www-form-urlencoded", "text/json",
                                   "application/json-seq", "application/jsonx", "application/json; charset=utf-16",
                                   "multipart/form-data; boundary=x"])
def test_wrong_content_types_are_refused(proxy, server, ctype):
    assert_never_forwarded(proxy, server, lambda: post(proxy, server, MCP_ONLY, "/mcp", json.dumps(call("delete_everything")),
                                                       content_type=ctype),
                           statuses=(415,), reasons=("mcp-unreadable",))


@pytest.mark.parametrize("chunked", [False, True])
def test_messages_over_the_size_limit_are_refused(proxy, server, chunked):
    body = json.dumps([call("search", i) for i in range(LIMIT // 50)] + [call("delete_everything", 999)])
    assert len(body) > LIMIT
    assert_never_forwarded(proxy, server, lambda: post(proxy, server, MCP_ONLY, "/mcp", body, chunked=chunked),
                           statuses=(413,), reasons=("mcp-unreadable",))


# --- answers ---------------------------------------------------------------------------

# An answer that is an array of arrays was passed unread (a finding of this suite, now
# refused as unreadable by src/mcp/tools_pruner.cpp).


@pytest.mark.parametrize("suffix,expect", [
    ("-gzip", 502), ("-html", 502), ("-dupkeys", 502), ("-nested", 502),
    ("-big", 502), ("-escaped", 200)])
def test_answers_cannot_smuggle_an_undeclared_tool(proxy, server, suffix, expect):
    cursor = LogCursor(proxy)
    status, head, body = post(proxy, server, MCP_ONLY, "/mcp" + suffix,
                              json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
    assert status == expect, head + body
    assert b"delete" not in body and b"\\u005f" not in body
    line = cursor.wait()[0]
    if expect == 502:
        assert line["outcome"] in ("refused", "error")
    else:
        names = [t["name"] for t in json.loads(body)["result"]["tools"]]
        assert names == ["search"]
