"""Bypass suite, fourth round: an upstream's answer framing towards the sandbox.

The sandbox keeps one connection to the proxy and sends its requests for
several hosts on it. An allowed upstream (which the sandbox may control)
answers with framing the proxy reads one way and a client could read another
way; the bytes after the answer's end (as the client reads it) would be read
as the answer to the client's next request, for another host. The proxy now
writes exactly one framing of its own, so the next answer on the connection
is always the other host's."""
import socket
import threading
import time

import pytest

from osftest import Proxy
from test_bypass_smuggling import ALIASES, LogCursor, RawUpstream, proxy_address, read_response

FAKE = b"HTTP/1.1 200 OK\r\nContent-Length: 6\r\nX-Fake: yes\r\n\r\nPWNED!"

ANSWERS = {
    # A coding other than chunked with a Content-Length: the proxy relayed by the
    # length, a client reading by RFC 9112 (Transfer-Encoding wins) until the close.
    b"/identity": b"HTTP/1.1 200 OK\r\nTransfer-Encoding: identity\r\nContent-Length: %d\r\n\r\n" % len(FAKE) + FAKE,
    b"/gzip": b"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\nContent-Length: %d\r\n\r\n" % len(FAKE) + FAKE,
    # "chunked" not last: a client that looks for chunked anywhere reads "0\r\n\r\n"
    # as the whole body and FAKE as the next answer.
    b"/chunked-identity": b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, identity\r\nContent-Length: %d\r\n\r\n"
                          % (5 + len(FAKE)) + b"0\r\n\r\n" + FAKE,
}

# Framing the HTTP parser itself refuses (guards: nothing covered answers).
UNREADABLE = {
    b"/cl-te": b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + FAKE,
    b"/te-cl": b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n" + FAKE,
    b"/two-lengths": b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nContent-Length: %d\r\n\r\n" % len(FAKE) + FAKE,
    b"/length-list": b"HTTP/1.1 200 OK\r\nContent-Length: 0, %d\r\n\r\n" % len(FAKE) + FAKE,
    b"/bare-lf": b"HTTP/1.1 200 OK\nContent-Length: 0\n\n" + FAKE,
    b"/space-before-colon": b"HTTP/1.1 200 OK\r\nContent-Length : 0\r\n\r\n" + FAKE,
    b"/plus-length": b"HTTP/1.1 200 OK\r\nContent-Length: +0\r\n\r\n" + FAKE,
}

# Bodiless answers with framing fields (and a body after a 204's head): the head
# alone goes out, a 204's without framing fields (a HEAD or 304 answer keeps
# them: they describe what a GET would get).
BODILESS = {
    b"/204-length": (b"HTTP/1.1 204 No Content\r\nContent-Length: %d\r\n\r\n" % len(FAKE) + FAKE, b"GET"),
    b"/204-chunked": (b"HTTP/1.1 204 No Content\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n" % len(FAKE) + FAKE
                      + b"\r\n0\r\n\r\n", b"GET"),
    b"/304-chunked": (b"HTTP/1.1 304 Not Modified\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", b"GET"),
    b"/head-chunked": (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", b"HEAD"),
}

CHUNKED = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n"


@pytest.fixture(scope="module")
def upstreams():
    answers = dict(ANSWERS)
    answers.update(UNREADABLE)
    answers[b"/chunked"] = CHUNKED
    answers.update({path: answer for path, (answer, _) in BODILESS.items()})
    with RawUpstream(route=lambda head, path, body: answers.get(path)) as attacker, RawUpstream() as other:
        yield attacker, other


@pytest.fixture(scope="module")
def proxy(tmp_path_factory):
    spec = {"template": "debian:12", "egress": ["upstream.test", "other.test"]}
    with Proxy(spec, str(tmp_path_factory.mktemp("answer-framing")), aliases=ALIASES) as p:
        yield p


def ask(s, host, port, path, method=b"GET"):
    s.sendall(b"%s http://%s:%d%s HTTP/1.1\r\nHost: %s:%d\r\n\r\n" % (method, host, port, path, host, port))


def framing_fields(head):
    return [line for line in head.split(b"\r\n")[1:]
            if line.split(b":")[0].strip().lower() in (b"transfer-encoding", b"content-length")]


@pytest.mark.parametrize("path", list(ANSWERS))
def test_an_answer_with_a_transfer_coding_other_than_chunked_is_refused(proxy, upstreams, path):
    attacker, other = upstreams
    cursor = LogCursor(proxy)
    with socket.create_connection(proxy_address(proxy), timeout=15) as s:
        ask(s, b"upstream.test", attacker.port, path)
        status, head, body = read_response(s)
        assert status == 502, head
        assert b"PWNED" not in body
        line = cursor.wait(lambda l: l["path"] == path.decode())[0]
        assert line["outcome"] == "error" and line["error"] == "upstream-protocol"
        # The proxy closes after a 502 of its own, or the next answer is the other host's.
        try:
            ask(s, b"other.test", other.port, b"/next")
            status, head, body = read_response(s, timeout=5)
        except OSError:
            status, body = 0, b""
        assert b"PWNED" not in body and b"X-Fake" not in head
        assert status in (0, 200)


@pytest.mark.parametrize("path", list(UNREADABLE))
def test_an_answer_with_ambiguous_framing_is_a_502_and_nothing_of_it_reaches_the_sandbox(proxy, upstreams, path):
    attacker, _ = upstreams
    cursor = LogCursor(proxy)
    with socket.create_connection(proxy_address(proxy), timeout=15) as s:
        ask(s, b"upstream.test", attacker.port, path)
        status, head, body = read_response(s)
    assert status == 502 and b"PWNED" not in body and b"X-Fake" not in head, head + body
    assert cursor.wait(lambda l: l["path"] == path.decode())[0]["outcome"] == "error"


@pytest.mark.parametrize("path", list(BODILESS))
def test_a_bodiless_answer_goes_out_as_its_head_alone_and_the_next_answer_is_the_other_hosts(
        proxy, upstreams, path):
    attacker, other = upstreams
    method = BODILESS[path][1]
    with socket.create_connection(proxy_address(proxy), timeout=15) as s:
        ask(s, b"upstream.test", attacker.port, path, method)
        s.settimeout(15)
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = s.recv(65536)
            assert chunk, data
            data += chunk
        head, rest = data.split(b"\r\n\r\n", 1)
        if path.startswith(b"/204"):
            assert framing_fields(head) == [], head
        assert rest == b""  # nothing after the head
        ask(s, b"other.test", other.port, b"/next")
        status, head, body = read_response(s)
        assert status == 200 and body == b"ok /next", head + body


def read_until(s, ending):
    """What the proxy sends until `ending`; fails when it closes first."""
    s.settimeout(15)
    data = b""
    while not data.endswith(ending):
        chunk = s.recv(65536)
        assert chunk, data
        data += chunk
    return data


class OneAnswerServer:
    """A server on 127.0.0.1 for one request: once its head is in, it sends
    `pieces` in order, `pause` seconds apart (each a read of its own at the
    proxy), then waits for the proxy to close or move on."""

    def __init__(self, pieces, pause=0.0):
        self.server = socket.socket()
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(1)
        self.port = self.server.getsockname()[1]
        self.pieces, self.pause = pieces, pause
        self.thread = threading.Thread(target=self._serve, daemon=True)

    def _serve(self):
        conn, _ = self.server.accept()
        with conn:
            data = b""
            while b"\r\n\r\n" not in data:
                data += conn.recv(65536)
            for i, piece in enumerate(self.pieces):
                if i and self.pause:
                    time.sleep(self.pause)  # pacing only, no timing is asserted
                conn.sendall(piece)
            conn.settimeout(5)
            try:
                conn.recv(1)
            except OSError:
                pass

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.thread.join(10)
        self.server.close()


def test_a_close_delimited_answer_is_chunked_for_the_client(proxy):
    # Control for the framing rewrite: an HTTP/1.0-style answer without length
    # reaches an HTTP/1.1 client chunked, whole, with one framing field.
    with OneAnswerServer([b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nwhole body, ended by the close"]) as server:
        with socket.create_connection(proxy_address(proxy), timeout=15) as s:
            ask(s, b"upstream.test", server.port, b"/close")
            data = read_until(s, b"0\r\n\r\n")
    head, body = data.split(b"\r\n\r\n", 1)
    assert framing_fields(head) == [b"Transfer-Encoding: chunked"], head
    assert b"whole body, ended by the close" in body


def test_a_last_chunk_that_arrives_a_byte_at_a_time_is_relayed_and_the_proxy_stays_up(proxy, upstreams):
    # "0\r\n", then "\r", then "\n", each in its own read: Beast 1.81 asserted on
    # the second one, and a proxy built without NDEBUG (the tests' Debug build)
    # aborted, so any upstream could stop it (compat/, fuzz target body_framing).
    _, other = upstreams
    pieces = [b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", b"0\r\n", b"\r", b"\n"]
    with OneAnswerServer(pieces, pause=0.3) as server:
        with socket.create_connection(proxy_address(proxy), timeout=15) as s:
            ask(s, b"upstream.test", server.port, b"/slow-last-chunk")
            data = read_until(s, b"\r\n\r\n0\r\n\r\n")  # fails if the proxy went away mid-answer
            assert data.startswith(b"HTTP/1.1 200 "), data
            ask(s, b"other.test", other.port, b"/after")
            status, head, body = read_response(s)
            assert status == 200 and body == b"ok /after", head + body
    assert proxy.proc.poll() is None


def test_an_http10_client_never_gets_chunks(proxy, upstreams):
    # HTTP/1.0 has no chunked coding (RFC 9112 6.1): a 1.0 client asking to keep
    # the connection alive would read the chunk framing as body and wait for a
    # close that never came. The body goes out decoded, ended by the close.
    attacker, _ = upstreams
    with socket.create_connection(proxy_address(proxy), timeout=15) as s:
        s.sendall(b"GET http://upstream.test:%d/chunked HTTP/1.0\r\nHost: upstream.test:%d\r\n"
                  b"Connection: keep-alive\r\n\r\n" % (attacker.port, attacker.port))
        s.settimeout(15)
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    head, body = data.split(b"\r\n\r\n", 1)
    assert head.startswith(b"HTTP/1.0 200"), head
    assert framing_fields(head) == [], head
    assert body == b"hello world"
