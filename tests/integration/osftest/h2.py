"""HTTP/2 through the proxy's intercepted tunnels, for tests: curl asking for h2, a
CONNECT tunnel with TLS offering ALPN h2, a small client on Debian's python3-h2
(`H2Client`), raw frames written with struct for what h2's state machine refuses to
send (floods), a raw frame reader for what comes back, and the proxy's RSS.

Every read has a deadline and every loop a count: a proxy that never answers or
never closes makes a test fail, never hang."""
import json
import socket
import ssl
import struct
import subprocess
import threading
import time

import h2.config
import h2.connection
import h2.events
import h2.exceptions

from osftest.proxy import rss_bytes

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

# Frame types and flags (RFC 9113, section 6).
DATA, HEADERS, PRIORITY, RST_STREAM, SETTINGS, PUSH_PROMISE, PING, GOAWAY, WINDOW_UPDATE, CONTINUATION = range(10)
END_STREAM = 0x1
ACK = 0x1
END_HEADERS = 0x4
# Settings and error codes used here.
SETTINGS_ENABLE_PUSH = 0x2
SETTINGS_MAX_CONCURRENT_STREAMS = 0x3
NO_ERROR, PROTOCOL_ERROR, REFUSED_STREAM, CANCEL, ENHANCE_YOUR_CALM = 0x0, 0x1, 0x7, 0x8, 0xB
FRAME_NAMES = {DATA: "DATA", HEADERS: "HEADERS", PRIORITY: "PRIORITY", RST_STREAM: "RST_STREAM",
               SETTINGS: "SETTINGS", PUSH_PROMISE: "PUSH_PROMISE", PING: "PING", GOAWAY: "GOAWAY",
               WINDOW_UPDATE: "WINDOW_UPDATE", CONTINUATION: "CONTINUATION"}


def curl_h2(proxy, url, *args, version="--http2", ca=None, timeout=30):
    """curl through `proxy` (a Proxy) trusting its CA, asking for `version` (a curl
    flag: --http2, --http1.1, --http2-prior-knowledge...). Returns (status, the HTTP
    version curl used as it prints it: "2", "1.1", "0" when none, body text,
    CompletedProcess)."""
    cmd = ["curl", "-sS", "--max-time", str(timeout), "--proxy", proxy.url, "--cacert", ca or proxy.ca_path,
           version, *args, "-w", "\n%{http_code} %{http_version}", url]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout + 10)
    body, _, last = res.stdout.rpartition("\n")
    code, _, http_version = last.partition(" ")
    return int(code or 0), http_version, body, res


def proxy_address(proxy):
    host, port = proxy.listen.rsplit(":", 1)
    return host, int(port)


def connect_tunnel(proxy, authority, timeout=15):
    """A TCP connection to the proxy with `CONNECT authority` answered 200."""
    s = socket.create_connection(proxy_address(proxy), timeout=timeout)
    s.sendall(f"CONNECT {authority} HTTP/1.1\r\nHost: {authority}\r\n\r\n".encode())
    head = b""
    deadline = time.monotonic() + timeout
    while b"\r\n\r\n" not in head and time.monotonic() < deadline and len(head) < 65536:
        more = s.recv(1)  # byte by byte: nothing of the TLS handshake is read here
        if not more:
            break
        head += more
    if not head.startswith(b"HTTP/1.1 200"):
        s.close()
        raise AssertionError(f"CONNECT {authority} answered {head!r}")
    return s


def tls_tunnel(proxy, host, port, alpn=("h2",), timeout=15):
    """CONNECT host:port, then TLS trusting the proxy's CA offering `alpn`; returns the
    TLS socket (its selected_alpn_protocol() says what the proxy chose)."""
    raw = connect_tunnel(proxy, f"{host}:{port}", timeout)
    ctx = ssl.create_default_context(cafile=proxy.ca_path)
    ctx.set_alpn_protocols(list(alpn))
    try:
        return ctx.wrap_socket(raw, server_hostname=host)
    except Exception:
        raw.close()
        raise


def frame(kind, flags, stream_id, payload=b""):
    """One raw HTTP/2 frame."""
    return struct.pack("!I", len(payload))[1:] + struct.pack("!BBI", kind, flags, stream_id & 0x7FFFFFFF) + payload


def settings_frame(pairs=(), ack=False):
    return frame(SETTINGS, ACK if ack else 0, 0, b"".join(struct.pack("!HI", k, v) for k, v in pairs))


class Frame:
    def __init__(self, kind, flags, stream_id, payload):
        self.kind, self.flags, self.stream_id, self.payload = kind, flags, stream_id, payload

    @property
    def name(self):
        return FRAME_NAMES.get(self.kind, f"type-{self.kind}")

    def settings(self):
        return {k: v for k, v in (struct.unpack("!HI", self.payload[i:i + 6])
                                  for i in range(0, len(self.payload) - 5, 6))}

    def goaway(self):
        """(last stream id, error code)"""
        last, code = struct.unpack("!II", self.payload[:8])
        return last & 0x7FFFFFFF, code

    def error_code(self):  # RST_STREAM
        return struct.unpack("!I", self.payload[:4])[0]

    def __repr__(self):
        extra = ""
        if self.kind == GOAWAY:
            extra = " last=%d code=%d" % self.goaway()
        elif self.kind == RST_STREAM:
            extra = f" code={self.error_code()}"
        elif self.kind == SETTINGS:
            extra = f" {self.settings()}"
        return f"<{self.name} flags={self.flags:#x} stream={self.stream_id} len={len(self.payload)}{extra}>"


def parse_frames(data):
    """Complete frames at the start of `data`; returns (frames, the bytes left)."""
    frames = []
    while len(data) >= 9:
        length = int.from_bytes(data[:3], "big")
        if len(data) < 9 + length:
            break
        frames.append(Frame(data[3], data[4], int.from_bytes(data[5:9], "big") & 0x7FFFFFFF, data[9:9 + length]))
        data = data[9 + length:]
    return frames, data


def read_frames_until(sock, done, timeout=15, limit=16 * 1024 * 1024):
    """Reads raw frames from `sock` until done(frames) or the peer closes, at most
    `timeout` seconds and `limit` bytes. Returns (frames, every byte read)."""
    raw, rest, frames = b"", b"", []
    deadline = time.monotonic() + timeout
    while not done(frames) and time.monotonic() < deadline and len(raw) < limit:
        sock.settimeout(max(0.05, deadline - time.monotonic()))
        try:
            more = sock.recv(65536)
        except (socket.timeout, OSError):
            break
        if not more:
            break
        raw += more
        got, rest = parse_frames(rest + more)
        frames += got
    return frames, raw


class Closing:
    """What `read_until_closed` saw: every frame's type counted, the GOAWAY frames,
    and how the reading ended ("eof", "reset", "tls-error: ...", "timeout", "limit")."""

    def __init__(self):
        self.counts, self.goaways, self.resets, self.ended, self.bytes = {}, [], [], None, 0

    @property
    def closed(self):
        return self.ended in ("eof", "reset") or (self.ended or "").startswith("tls-error")

    def __repr__(self):
        return (f"<ended={self.ended} bytes={self.bytes} frames={self.counts} goaways={self.goaways} "
                f"rst_streams={self.resets[:10]}{'...' if len(self.resets) > 10 else ''}>")


def read_until_closed(sock, timeout=20, limit=64 * 1024 * 1024):
    """Reads and parses frames until the proxy closes the connection (EOF or reset),
    at most `timeout` seconds and `limit` bytes. Returns a Closing."""
    seen, rest = Closing(), b""
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            seen.ended = "timeout"
            return seen
        if seen.bytes >= limit:
            seen.ended = "limit"
            return seen
        sock.settimeout(min(left, 1.0))
        try:
            more = sock.recv(65536)
        except socket.timeout:
            continue
        except (ssl.SSLEOFError, ssl.SSLZeroReturnError):
            seen.ended = "eof"
            return seen
        except ssl.SSLError as e:
            seen.ended = f"tls-error: {e}"
            return seen
        except ConnectionError:
            seen.ended = "reset"
            return seen
        except OSError as e:
            seen.ended = f"tls-error: {e}"
            return seen
        if not more:
            seen.ended = "eof"
            return seen
        seen.bytes += len(more)
        frames, rest = parse_frames(rest + more)
        for f in frames:
            seen.counts[f.name] = seen.counts.get(f.name, 0) + 1
            if f.kind == GOAWAY:
                seen.goaways.append(f.goaway())
            elif f.kind == RST_STREAM:
                seen.resets.append((f.stream_id, f.error_code()))


def flood(sock, batch, batches, seconds=60, write_timeout=5):
    """Writes `batch` (raw bytes, or a function of the batch's index returning them) up
    to `batches` times within `seconds`, never reading.
    Returns (batches written, why it stopped: "done", "time", "stalled" (a write made
    no progress for `write_timeout` s: the proxy stopped reading) or "closed")."""
    sock.settimeout(write_timeout)
    deadline = time.monotonic() + seconds
    for i in range(batches):
        if time.monotonic() > deadline:
            return i, "time"
        try:
            sock.sendall(batch(i) if callable(batch) else batch)
        except socket.timeout:
            return i, "stalled"
        except (OSError, ssl.SSLError):
            return i, "closed"
    return batches, "done"


class H2Client:
    """An HTTP/2 client on python3-h2 over a socket that already negotiated h2.

    `request()` sends a request and returns its stream id; `pump(done)` reads and
    handles frames until done() or the peer closes or the deadline. Per stream,
    `streams[id]` holds status, headers, body, ended and reset (an error code);
    `terminated` is (error code, last stream id) once a GOAWAY came, `closed` true
    once the peer closed."""

    def __init__(self, sock, authority, send_preface=True):
        self.sock, self.authority = sock, authority
        self.conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
        self.streams = {}
        self.terminated = None
        self.closed = False
        self.protocol_error = None
        self.remote_settings_seen = False
        if send_preface:
            self.conn.initiate_connection()
            self.flush()

    def flush(self):
        data = self.conn.data_to_send()
        if data:
            self.sock.sendall(data)

    def request(self, path, method="GET", headers=(), body=None, flush=True, authority=None):
        sid = self.conn.get_next_available_stream_id()
        fields = [(":method", method), (":scheme", "https"), (":authority", authority or self.authority),
                  (":path", path), *headers]
        self.conn.send_headers(sid, fields, end_stream=body is None)
        if body is not None:  # small bodies only: within the initial windows
            self.conn.send_data(sid, body, end_stream=True)
        self.streams[sid] = {"path": path, "status": None, "headers": [], "body": b"", "ended": False,
                             "reset": None}
        if flush:
            self.flush()
        return sid

    def feed(self, data):
        try:
            events = self.conn.receive_data(data)
        except h2.exceptions.ProtocolError as e:
            self.protocol_error = e
            return
        for event in events:
            stream = self.streams.get(getattr(event, "stream_id", None))
            if isinstance(event, h2.events.ResponseReceived) and stream is not None:
                stream["headers"] = list(event.headers)
                stream["status"] = int(dict(event.headers)[":status"])
            elif isinstance(event, h2.events.DataReceived):
                if stream is not None:
                    stream["body"] += event.data
                self.conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            elif isinstance(event, h2.events.StreamEnded) and stream is not None:
                stream["ended"] = True
            elif isinstance(event, h2.events.StreamReset) and stream is not None:
                stream["reset"] = event.error_code
            elif isinstance(event, h2.events.ConnectionTerminated):
                self.terminated = (event.error_code, event.last_stream_id)
            elif isinstance(event, h2.events.RemoteSettingsChanged):
                self.remote_settings_seen = True
        try:
            self.flush()
        except OSError:
            self.closed = True

    def pump(self, done, timeout=15):
        deadline = time.monotonic() + timeout
        while not done() and not self.closed and self.protocol_error is None and time.monotonic() < deadline:
            self.sock.settimeout(max(0.05, min(1.0, deadline - time.monotonic())))
            try:
                data = self.sock.recv(65536)
            except socket.timeout:
                continue
            except (OSError, ssl.SSLError):
                self.closed = True
                break
            if not data:
                self.closed = True
                break
            self.feed(data)
        return done()

    def finished(self, sid):
        s = self.streams[sid]
        return s["ended"] or s["reset"] is not None

    def wait(self, *sids, timeout=15):
        """Pumps until every stream in `sids` ended or was reset; returns their records."""
        self.pump(lambda: all(self.finished(s) for s in sids), timeout)
        return [self.streams[s] for s in sids]

    def advertised_max_streams(self, timeout=15):
        self.pump(lambda: self.remote_settings_seen, timeout)
        assert self.remote_settings_seen, "no SETTINGS from the proxy"
        return self.conn.remote_settings.max_concurrent_streams



class RssPeak:
    """Samples a process's RSS every 20 ms while in the `with` block: `baseline`
    (at entry) and `peak`."""

    def __init__(self, pid):
        self.pid = pid
        self.baseline = self.peak = rss_bytes(pid)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self):
        while not self._stop.is_set():
            try:
                self.peak = max(self.peak, rss_bytes(self.pid))
            except (OSError, AssertionError):  # the process is gone: the test says so
                return
            time.sleep(0.02)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join(5)
        try:
            self.peak = max(self.peak, rss_bytes(self.pid))
        except (OSError, AssertionError):
            pass


def answer_when_all_arrived(handler, url, gate):
    """An Upstream route's answer for /together/...: held until `gate["barrier"]` (a
    threading.Barrier) has every request of the round, then 200; 504 when the barrier
    broke (its timeout: the requests were not in flight at once)."""
    try:
        gate["barrier"].wait()
        together = True
    except threading.BrokenBarrierError:
        together = False
    handler._send(200 if together else 504, json.dumps({"path": url.path, "together": together}).encode())
    return True
