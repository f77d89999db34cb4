"""Bypass suite, request smuggling and parsing: malformed or ambiguous request
heads and bodies sent with raw sockets through the built proxy. Each one is
refused (400/403/431 and a log line naming `refusedBy`) or normalised; the
upstream's raw bytes are searched so that nothing reaches it ambiguously.

The raw upstream and the raw client defined here are shared by the other
test_bypass_*.py files and by test_faults.py."""
import fcntl
import itertools
import json
import re
import select
import socket
import struct
import termios
import ssl
import threading
import time

import pytest

from osftest import Proxy
from osftest.waiting import scaled, wait_until

ALIASES = {"upstream.test": "127.0.0.1", "other.test": "127.0.0.1"}
MARK = b"smuggled"  # a path no accepted request uses: finding it upstream is a bypass
_paths = itertools.count()


def unique_path(prefix="/s"):
    """A path no other request of the run uses: what an upstream received for one request is
    told from late bytes of another by its path, never by when it arrived."""
    return f"{prefix}-{next(_paths)}"


def readable(sock, timeout):
    """Whether `sock` has bytes or a connection to accept within `timeout` seconds (poll,
    not select: a test holding a thousand sockets has descriptors past select's 1024)."""
    poller = select.poll()
    poller.register(sock, select.POLLIN)
    return bool(poller.poll(timeout * 1000))


class RawUpstream:
    """An HTTP/1.1 server on 127.0.0.1 that keeps every byte it receives.

    It frames requests by Content-Length or chunked encoding and answers each
    with `200 ok <path>`. `raw` is every byte of every connection, `heads` the
    request heads, `bodies` their bodies (de-chunked). `fault` changes what it
    does once a request head arrived: "reset" (RST), "stall" (never answers), "truncate" (promises more body
    than it sends, then closes), "garbage" (not HTTP). `tls` is an
    ssl.SSLContext for an HTTPS upstream. `route(head, path, body)` may return the
    whole response (bytes) to send instead of the default one."""

    def __init__(self, tls=None, fault=None, route=None):
        self.route = route
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(256)
        self.port = self.sock.getsockname()[1]
        self.tls, self.fault = tls, fault
        self.lock = threading.Lock()
        self._raw, self.heads, self.bodies, self.connections = [], [], [], 0
        self._requests = []
        self.stopping = False
        self.threads = []
        # wait_drained's state: each connection's socket and whether its thread waits for
        # bytes, and whether the accepting thread waits for a connection.
        self._conns, self._accept_idle = {}, False
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def raw(self) -> bytes:
        with self.lock:
            return b"".join(self._raw)

    def requests(self):
        """(head, body) of every whole request received, in the order they completed."""
        with self.lock:
            return list(self._requests)

    def received(self, path):
        """(head, body) of each whole request received for `path` (str or bytes)."""
        path = path.encode() if isinstance(path, str) else path
        return [(h, b) for h, b in self.requests() if h.split(b"\r\n", 1)[0].split(b" ")[1:2] == [path]]

    def drained(self):
        """True when every byte sent to this server so far has been read into `raw`: no
        connection waits to be accepted, and every connection's thread waits for bytes
        that are not there. With the sender's fence (the proxy wrote all it would for a
        request before its connection ended), an absence in `raw` is then exact."""
        with self.lock:
            if not self._accept_idle or readable(self.sock, 0):
                return False
            for conn, idle in self._conns.values():
                if not idle or (hasattr(conn, "pending") and conn.pending()):
                    return False
                unread = fcntl.ioctl(conn.fileno(), termios.FIONREAD, struct.pack("i", 0))
                if struct.unpack("i", unread)[0]:
                    return False
            return True

    def wait_drained(self, timeout=30):
        """Waits until `drained()`; not for a "stall" server, whose threads never wait."""
        wait_until(self.drained, timeout, "the upstream to read every byte sent to it")

    def _accept(self):
        while not self.stopping:
            with self.lock:
                self._accept_idle = True
            try:
                ready = readable(self.sock, 1)
                with self.lock:
                    self._accept_idle = False
                if not ready:
                    continue
                conn, _ = self.sock.accept()
            except (OSError, ValueError):
                return
            token = object()
            with self.lock:
                self.connections += 1
                self._conns[token] = [conn, False]
            t = threading.Thread(target=self._serve, args=(conn, token), daemon=True)
            t.start()

    def _wait_readable(self, conn, token):
        """Blocks until `conn` has bytes, marked idle meanwhile (see `drained`)."""
        if hasattr(conn, "pending") and conn.pending():
            return
        with self.lock:
            self._conns[token][1] = True
        try:
            ready = readable(conn, 60)
        finally:
            with self.lock:
                self._conns[token][1] = False
        if not ready:
            raise EOFError

    def _serve(self, conn, token):
        conn.settimeout(60)
        try:
            if self.tls:
                conn = self.tls.wrap_socket(conn, server_side=True)
                with self.lock:
                    self._conns[token][0] = conn
            buf = b""

            def more():
                nonlocal buf
                self._wait_readable(conn, token)
                data = conn.recv(65536)
                if not data:
                    raise EOFError
                with self.lock:
                    self._raw.append(data)
                buf += data

            while True:
                while b"\r\n\r\n" not in buf:
                    more()
                head, buf = buf.split(b"\r\n\r\n", 1)
                with self.lock:
                    self.heads.append(head)
                if self.fault == "reset":
                    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\0\0\0\0\0\0\0")
                    conn.close()
                    return
                if self.fault == "stall":
                    time.sleep(3600)
                if self.fault == "garbage":
                    conn.sendall(b"\x00\x01garbage that is not HTTP\r\n\r\n")
                    conn.close()
                    return
                lines = head.split(b"\r\n")
                fields = [l.split(b":", 1) for l in lines[1:]]
                te = [v.strip().lower() for k, v in fields if k.strip().lower() == b"transfer-encoding"]
                cl = [v.strip() for k, v in fields if k.strip().lower() == b"content-length"]
                body = b""
                if te and te[-1].endswith(b"chunked"):
                    while True:
                        while b"\r\n" not in buf:
                            more()
                        size_line, buf = buf.split(b"\r\n", 1)
                        size = int(size_line.split(b";")[0], 16)
                        while len(buf) < size + 2:
                            more()
                        body += buf[:size]
                        buf = buf[size + 2:]
                        if size == 0:
                            break
                elif cl:
                    n = int(cl[0])
                    while len(buf) < n:
                        more()
                    body, buf = buf[:n], buf[n:]
                with self.lock:
                    self.bodies.append(body)
                    self._requests.append((head, body))
                path = lines[0].split(b" ")[1] if len(lines[0].split(b" ")) > 1 else b"?"
                if self.fault == "truncate":
                    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n" + b"t" * 1000)
                    time.sleep(0.2)
                    conn.close()
                    return
                custom = self.route(head, path, body) if self.route else None
                if custom is not None:
                    conn.sendall(custom)
                    continue
                answer = b"ok " + path
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n"
                             % len(answer) + answer)
        except (EOFError, OSError, ValueError, ssl.SSLError):
            pass
        finally:
            with self.lock:
                self._conns.pop(token, None)
            try:
                conn.close()
            except OSError:
                pass

    def stop(self):
        self.stopping = True
        self.sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


def tls_server_context(ca, names):
    """A server-side SSLContext with a leaf for `names` from the TestCA `ca`."""
    cert, key = ca.issue(list(names))
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    return ctx


def proxy_address(proxy):
    host, port = proxy.listen.rsplit(":", 1)
    return host, int(port)


def read_response(sock, timeout=15):
    """Reads one response (head and Content-Length body) or until the proxy closes.
    Returns (status or 0 when cut, head bytes, body bytes)."""
    sock.settimeout(timeout)
    data = b""
    deadline = time.monotonic() + timeout
    try:
        while b"\r\n\r\n" not in data and time.monotonic() < deadline:
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
        if b"\r\n\r\n" not in data:
            return 0, data, b""
        head, body = data.split(b"\r\n\r\n", 1)
        length = 0
        for line in head.split(b"\r\n")[1:]:
            k, _, v = line.partition(b":")
            if k.strip().lower() == b"content-length":
                length = int(v)
        while len(body) < length and time.monotonic() < deadline:
            chunk = sock.recv(65536)
            if not chunk:
                break
            body += chunk
    except (socket.timeout, ConnectionError, ssl.SSLError):
        if b"\r\n\r\n" not in data:
            return 0, data, b""
        head, body = data.split(b"\r\n\r\n", 1)
    status = int(head.split(b" ")[1]) if head.startswith(b"HTTP/") else 0
    return status, head, body


def read_until_close(sock, timeout=15):
    sock.settimeout(timeout)
    data = b""
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
    except (socket.timeout, ConnectionError, ssl.SSLError):
        pass
    return data


def exchange(proxy, data: bytes, timeout=15):
    """Sends raw bytes to the proxy on a new connection; returns read_response()."""
    with socket.create_connection(proxy_address(proxy), timeout=timeout) as s:
        s.sendall(data)
        return read_response(s, timeout)


def open_tunnel(proxy, host, port, tls=True, server_hostname=None, alpn=None, timeout=15,
                verify_name=True):
    """CONNECT host:port; returns the socket (TLS-wrapped trusting the proxy CA when `tls`;
    `verify_name=False` accepts a certificate that does not name `server_hostname`)."""
    s = socket.create_connection(proxy_address(proxy), timeout=timeout)
    s.sendall(f"CONNECT {host}:{port} HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode())
    status, head, _ = read_response(s, timeout)
    if status != 200:
        s.close()
        raise AssertionError(f"CONNECT {host}:{port} answered {head!r}")
    if not tls:
        return s
    ctx = ssl.create_default_context(cafile=proxy.ca_path)
    if server_hostname is None or not verify_name:
        ctx.check_hostname = False
    if alpn:
        ctx.set_alpn_protocols(alpn)
    return ctx.wrap_socket(s, server_hostname=server_hostname or None)


class LogCursor:
    """The egress log lines written after it was made."""

    def __init__(self, proxy):
        self.proxy, self.start = proxy, len(proxy.log_lines())

    def new(self):
        return self.proxy.log_lines()[self.start:]

    def wait(self, predicate=lambda l: True, timeout=30):
        deadline = time.monotonic() + scaled(timeout)
        while time.monotonic() < deadline:
            found = [l for l in self.new() if predicate(l)]
            if found:
                return found
            time.sleep(0.05)
        raise AssertionError("no matching egress log line; new lines: " + json.dumps(self.new()))


# ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def upstream():
    with RawUpstream() as u:
        yield u


@pytest.fixture(scope="module")
def proxy(tmp_path_factory, upstream):
    spec = {"template": "debian:12", "egress": ["upstream.test", "other.test"]}
    with Proxy(spec, str(tmp_path_factory.mktemp("smuggling")), aliases=ALIASES,
               args=["--max-header-bytes", "8192", "--header-timeout", "10"]) as p:
        yield p


def absolute(upstream, path="/"):
    return f"http://upstream.test:{upstream.port}{path}"


def smuggle_body():
    return b"0\r\n\r\nGET /" + MARK + b" HTTP/1.1\r\nHost: upstream.test\r\n\r\n"


def head_with(upstream, *fields, method="POST", path=None, version="HTTP/1.1"):
    path = path or unique_path()
    lines = [f"{method} {absolute(upstream, path)} {version}".encode(),
             f"Host: upstream.test:{upstream.port}".encode(), *fields, b"Connection: close"]
    return b"\r\n".join(lines) + b"\r\n\r\n"


def target_path(data):
    """The path of a raw request's target (origin or absolute form), as the upstream would
    see it in a request line."""
    target = re.split(rb"\r?\n", data, maxsplit=1)[0].split(b" ")[1]
    return re.sub(rb"^[a-z]+://[^/?]*", b"", target)


def settle(proxy, upstream):
    """The fence for an absence upstream: the proxy holds no client connection (what it
    would send upstream for them is written) and the upstream has read every byte."""
    proxy.wait_connections_closed()
    upstream.wait_drained()


def assert_refused(proxy, upstream, data, statuses=(400,), reason="bad-request"):
    before = len(upstream.raw)
    cursor = LogCursor(proxy)
    status, head, _ = exchange(proxy, data)
    assert status in statuses, head
    line = cursor.wait(lambda l: l["outcome"] == "refused")[0]
    assert line["refusedBy"] == reason and line["status"] == status
    # An absence: once the proxy ended the connection (it wrote all it would upstream) and
    # the upstream read every byte, what arrived since is searched for this request's own
    # path (late bytes of earlier tests carry other paths).
    settle(proxy, upstream)
    new = upstream.raw[before:]
    assert b" " + target_path(data) not in new and MARK not in new, \
        "the upstream received bytes of a refused request"
    return line


BODY = smuggle_body()
CONFLICTING_FRAMING = {
    "content-length then chunked": [b"Content-Length: %d" % len(BODY), b"Transfer-Encoding: chunked"],
    "chunked then content-length": [b"Transfer-Encoding: chunked", b"Content-Length: %d" % len(BODY)],
    "two differing content-lengths": [b"Content-Length: 5", b"Content-Length: %d" % len(BODY)],
    "a content-length list that differs": [b"Content-Length: 5, %d" % len(BODY)],
    "a content-length that is not a number": [b"Content-Length: 5x"],
    "a negative content-length": [b"Content-Length: -5"],
    "two transfer-encoding fields": [b"Transfer-Encoding: chunked", b"Transfer-Encoding: chunked"],
    "chunked twice in one field": [b"Transfer-Encoding: chunked, chunked"],
    "chunked not the final coding": [b"Transfer-Encoding: chunked, gzip"],
    "an unknown transfer coding": [b"Transfer-Encoding: xchunked"],
    "a transfer coding without chunked": [b"Transfer-Encoding: gzip"],
}


@pytest.mark.parametrize("case", sorted(CONFLICTING_FRAMING))
def test_ambiguous_body_framing_is_refused(proxy, upstream, case):
    data = head_with(upstream, *CONFLICTING_FRAMING[case]) + BODY
    assert_refused(proxy, upstream, data)


MALFORMED_HEADS = {
    "bare LF line endings": lambda u: f"GET {absolute(u, unique_path('/lf'))} HTTP/1.1\nHost: upstream.test:{u.port}\n\n".encode(),
    "bare CR inside a field": lambda u: head_with(u, b"X-A: a\rGET /smuggled HTTP/1.1", method="GET"),
    "bare CR ending a line": lambda u: head_with(u, b"X-A: a\r\rX-B: b", method="GET"),
    "a NUL byte in a field": lambda u: head_with(u, b"X-A: a\x00b", method="GET"),
    "a space before the colon": lambda u: head_with(u, b"Host : other.test", method="GET"),
    "a field without a colon": lambda u: head_with(u, b"no colon here", method="GET"),
    "a space inside the target": lambda u: (f"GET {absolute(u, unique_path('/a'))}%20b HTTP/1.1\r\nHost: upstream.test:{u.port}\r\n\r\n").encode().replace(b"%20", b" "),
    "an unknown HTTP version": lambda u: head_with(u, method="GET", version="HTTP/2.0"),
    "no HTTP version": lambda u: f"GET {absolute(u, unique_path('/noversion'))}\r\n\r\n".encode(),
}


@pytest.mark.parametrize("case", sorted(MALFORMED_HEADS))
def test_malformed_heads_are_refused(proxy, upstream, case):
    assert_refused(proxy, upstream, MALFORMED_HEADS[case](upstream))


def test_obsolete_line_folding_is_refused_or_unfolded(proxy, upstream):
    # A fold that would hide a framing field from a parser that does not unfold.
    data = head_with(upstream, b"X-Folded: first", b" Transfer-Encoding: chunked", method="GET", path="/fold")
    before = upstream.raw
    cursor = LogCursor(proxy)
    status, head, _ = exchange(proxy, data)
    line = cursor.wait()[0]
    new = upstream.raw[len(before):]
    if status == 400:
        assert line["refusedBy"] == "bad-request" and new == b""
    else:
        # Normalised: one field, one line, no continuation reaches the upstream.
        assert status == 200 and line["outcome"] == "allowed"
        assert b"\r\n " not in new and b"\r\n\t" not in new
        assert b"\r\ntransfer-encoding" not in new.lower()
        assert new.count(b"GET /fold") == 1


def test_equal_duplicate_content_lengths_are_normalised(proxy, upstream):
    data = head_with(upstream, b"Content-Length: 5", b"Content-Length: 5", path="/dupcl") + b"hello"
    before = upstream.raw
    status, head, body = exchange(proxy, data)
    assert status == 200 and body == b"ok /dupcl", head
    new = upstream.raw[len(before):]
    assert new.lower().count(b"content-length") == 1 and b"content-length: 5\r\n" in new.lower()


@pytest.mark.parametrize("what,fields", [
    ("request line", []),
    ("one header", [b"X-Long: " + b"a" * 9000]),
    ("many headers", [b"X-H%d: %s" % (i, b"b" * 90) for i in range(120)]),
])
def test_over_long_heads_get_431(proxy, upstream, what, fields):
    path = "/" + "p" * 9000 if what == "request line" else unique_path("/h")
    data = head_with(upstream, *fields, method="GET", path=path)
    assert_refused(proxy, upstream, data, statuses=(431,), reason="limit")


INVALID_CHUNKS = {
    "a size that is not hex": b"zz\r\nhello\r\n0\r\n\r\n",
    "a negative size": b"-5\r\nhello\r\n0\r\n\r\n",
    "a size that overflows 64 bits": b"1ffffffffffffffff\r\nhello\r\n0\r\n\r\n",
    "a size with a bare LF": b"5\nhello\r\n0\r\n\r\n",
    "data longer than its size": b"2\r\nhello\r\n0\r\n\r\n",
    "a size followed by a smuggled request": b"5\r\nhello\r\n0\r\n\r\n" + b"x" * 0 + b"3 \r\nGET /smuggled HTTP/1.1\r\n\r\n",
}


@pytest.mark.parametrize("case", sorted(INVALID_CHUNKS))
def test_invalid_chunk_sizes_never_complete_upstream(proxy, upstream, case):
    before = len(upstream.raw)
    cursor = LogCursor(proxy)
    path = unique_path("/chunks")
    data = head_with(upstream, b"Transfer-Encoding: chunked", path=path) + INVALID_CHUNKS[case]
    status, head, body = exchange(proxy, data)
    lines = cursor.wait()
    if case == "a size followed by a smuggled request":
        # A valid message then garbage: the message passes; the request said
        # Connection: close, so the garbage after it is never read.
        assert status == 200, head
        wait_until(lambda: upstream.received(path), what="the whole message upstream")
        raw = upstream.raw[before:]
        assert MARK not in raw and raw.count(b"POST " + path.encode() + b" ") == 1
        return
    settle(proxy, upstream)  # an absence: checked once every byte sent upstream was read
    raw = upstream.raw[before:]
    new = raw[raw.find(b"POST " + path.encode() + b" "):] if path.encode() in raw else b""
    new = new.split(b"\r\n\r\nPOST /", 1)[0] if new else new
    assert MARK not in raw
    # The upstream never saw a complete chunked body: the proxy re-frames what it
    # parsed, so it can only be a prefix without the last chunk.
    assert b"0\r\n\r\n" not in new.split(b"\r\n\r\n", 1)[-1]
    # The sandbox is told, and the log says why.
    assert status == 400, head
    assert lines[0]["outcome"] == "refused" and lines[0]["refusedBy"] == "bad-request"


def test_http10_is_forwarded_as_http11_with_a_host(proxy, upstream):
    before = upstream.raw
    data = f"GET {absolute(upstream, '/old')} HTTP/1.0\r\n\r\n".encode()
    status, head, body = exchange(proxy, data)
    assert status == 200 and head.startswith(b"HTTP/1.0 200") and body == b"ok /old"
    new = upstream.raw[len(before):]
    assert new.startswith(b"GET /old HTTP/1.1\r\n")
    assert f"host: upstream.test:{upstream.port}\r\n".encode() in new.lower()


def test_http10_without_host_inside_a_tunnel_goes_to_the_tunnel_host(proxy, upstream):
    before = upstream.raw
    with open_tunnel(proxy, "upstream.test", upstream.port, tls=False) as s:
        s.sendall(b"GET /old10 HTTP/1.0\r\n\r\n")
        status, head, body = read_response(s)
    assert status == 200 and body == b"ok /old10"
    assert upstream.raw[len(before):].startswith(b"GET /old10 HTTP/1.1\r\n")


@pytest.mark.parametrize("target,host_header", [
    ("http://other.test:{port}/" + MARK.decode(), "upstream.test:{port}"),
    ("http://other.test:{port}/" + MARK.decode(), "other.test:{port}"),
    ("http://upstream.test:1/" + MARK.decode(), "upstream.test:{port}"),
    ("http://user@other.test:{port}/" + MARK.decode(), "upstream.test:{port}"),
])
def test_absolute_form_inside_a_tunnel_naming_another_host_is_refused(proxy, upstream, target, host_header):
    before = upstream.raw
    cursor = LogCursor(proxy)
    with open_tunnel(proxy, "upstream.test", upstream.port, tls=False) as s:
        t, h = target.format(port=upstream.port), host_header.format(port=upstream.port)
        s.sendall(f"GET {t} HTTP/1.1\r\nHost: {h}\r\n\r\n".encode())
        status, head, _ = read_response(s)
    assert status == 403, head
    line = cursor.wait(lambda l: l["outcome"] == "refused")[0]
    assert line["refusedBy"] == "host-mismatch" and line["host"] == "upstream.test"
    settle(proxy, upstream)  # an absence: checked once every byte sent upstream was read
    assert MARK not in upstream.raw[len(before):]


def test_absolute_form_inside_a_tunnel_naming_its_host_becomes_origin_form(proxy, upstream):
    before = upstream.raw
    with open_tunnel(proxy, "upstream.test", upstream.port, tls=False) as s:
        s.sendall(f"GET http://upstream.test:{upstream.port}/abs?q=1 HTTP/1.1\r\n"
                  f"Host: upstream.test:{upstream.port}\r\n\r\n".encode())
        status, head, body = read_response(s)
    assert status == 200 and body == b"ok /abs?q=1"
    assert upstream.raw[len(before):].startswith(b"GET /abs?q=1 HTTP/1.1\r\n")


def test_a_pipelined_second_request_is_judged_on_its_own(proxy, upstream):
    # One allowed request, then one to a refused host on the same connection.
    before = upstream.raw
    cursor = LogCursor(proxy)
    data = (f"GET {absolute(upstream, '/first')} HTTP/1.1\r\nHost: upstream.test:{upstream.port}\r\n\r\n"
            f"GET http://denied.test/{MARK.decode()} HTTP/1.1\r\nHost: denied.test\r\nConnection: close\r\n\r\n"
            ).encode()
    with socket.create_connection(proxy_address(proxy), timeout=15) as s:
        s.sendall(data)
        got = read_until_close(s)
    statuses = [int(code) for code in re.findall(rb"HTTP/1\.1 (\d{3}) ", got)]
    assert statuses == [200, 403], got
    cursor.wait(lambda l: l.get("refusedBy") == "host-not-allowed")
    assert MARK not in upstream.raw[len(before):]


@pytest.mark.parametrize("connection", ["content-length", "keep-alive, Content-Length", "transfer-encoding",
                                        "Transfer-Encoding, keep-alive", "host"])
def test_connection_cannot_remove_framing_or_host(proxy, upstream, connection):
    # Found by the head fuzzer: Connection naming a framing field made the proxy drop
    # it and forward the body unframed, so the upstream read the body as a request.
    inner = b"GET /" + MARK + b" HTTP/1.1\r\nHost: upstream.test\r\n\r\n"
    if "transfer" in connection.lower():
        framing, body = b"Transfer-Encoding: chunked", b"%x\r\n%s\r\n0\r\n\r\n" % (len(inner), inner)
    else:
        framing, body = b"Content-Length: %d" % len(inner), inner
    heads_before = len(upstream.heads)
    path = unique_path("/conn")
    data = head_with(upstream, b"Connection: " + connection.encode(), framing, path=path).replace(
        b"Connection: close\r\n", b"")
    with socket.create_connection(proxy_address(proxy), timeout=15) as s:
        s.sendall(data + body)
        status, head, answer = read_response(s)
    assert status in (200, 400), head
    settle(proxy, upstream)  # an absence: checked once every byte sent upstream was read
    mine = upstream.received(path)
    assert not any(MARK in h for h in upstream.heads[heads_before:]), "the body was read upstream as a request"
    if status == 200:
        assert [b for _, b in mine] == [inner]
        assert f"host: upstream.test:{upstream.port}".encode() in mine[0][0].lower()


def test_absolute_form_with_an_empty_path_is_sent_as_origin_form(proxy, upstream):
    before = len(upstream.heads)
    status, head, body = exchange(proxy, f"GET http://upstream.test:{upstream.port}?q=1 HTTP/1.1\r\n"
                                         f"Host: upstream.test:{upstream.port}\r\nConnection: close\r\n\r\n".encode())
    assert status == 200, head
    assert upstream.heads[before].startswith(b"GET /?q=1 HTTP/1.1\r\n")
