"""Bypass suite, what an upstream switches to (issue 26, class 3): after a WebSocket
handshake the proxy relays bytes it does not read, so it relays them only when the
upstream's 101 switches to exactly `websocket`. A 101 naming h2c (raw HTTP/2 frames
would follow, requests with any :authority) or a list is refused with an error line of
its own reason, and none of what followed the 101 reaches the client."""
import socket

import pytest

from osftest import Proxy
from test_bypass_smuggling import ALIASES, LogCursor, RawUpstream, proxy_address, read_response

KEY = "dGhlIHNhbXBsZSBub25jZQ=="
H2_PREFACE_FRAME = b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"  # an empty SETTINGS frame


def switching_route(head, path, body):
    switched_to = {b"/to-h2c": b"h2c", b"/to-list": b"websocket, h2c", b"/to-websocket": b"websocket",
                   b"/to-two": b"websocket\r\nUpgrade: h2c"}[path]
    return (b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: " + switched_to +
            b"\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n" +
            H2_PREFACE_FRAME + b"\x81\x05frame")


@pytest.fixture(scope="module")
def upstream():
    with RawUpstream(route=switching_route) as u:
        yield u


@pytest.fixture(scope="module")
def proxy(tmp_path_factory, upstream):
    with Proxy({"template": "debian:12", "egress": ["upstream.test"]},
               str(tmp_path_factory.mktemp("upgrades")), aliases=ALIASES) as p:
        yield p


def handshake(proxy, upstream, path):
    with socket.create_connection(proxy_address(proxy), timeout=15) as s:
        s.sendall((f"GET http://upstream.test:{upstream.port}{path} HTTP/1.1\r\n"
                   f"Host: upstream.test:{upstream.port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                   f"Sec-WebSocket-Key: {KEY}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        status, head, rest = read_response(s, timeout=5)
        s.settimeout(2)
        try:
            while True:
                more = s.recv(65536)
                if not more:
                    break
                rest += more
        except (socket.timeout, ConnectionError):
            pass
        return status, head, rest


@pytest.mark.parametrize("path", ["/to-h2c", "/to-list", "/to-two"])
def test_a_switch_to_anything_but_websocket_is_refused(proxy, upstream, path):
    cursor = LogCursor(proxy)
    status, head, rest = handshake(proxy, upstream, path)
    assert status == 502, head
    assert H2_PREFACE_FRAME not in head + rest and b"\x81\x05frame" not in rest, rest
    line = cursor.wait(lambda l: l.get("path") == path)[0]
    assert line["outcome"] == "error" and line["error"] == "upstream-protocol", line
    assert "upgrade" not in line, line
    assert b"h2c" not in rest, rest  # the upstream's protocol name is not quoted back


def test_a_switch_to_websocket_is_relayed_and_logged_as_such(proxy, upstream):
    cursor = LogCursor(proxy)
    status, head, rest = handshake(proxy, upstream, "/to-websocket")
    assert status == 101, head
    assert rest.endswith(b"\x81\x05frame"), rest
    line = cursor.wait(lambda l: l.get("path") == "/to-websocket")[0]
    assert line["upgrade"] == "websocket", line
