"""HTTP(S) upstream servers on 127.0.0.1 for the proxy to reach.

The default handler answers:
  /bytes/<n>       n bytes of 'x'
  /status/<code>   an empty answer with that status
  /ws              a WebSocket echo (RFC 6455, text and binary frames)
  anything else    a JSON echo: method, path, query, headers, body length
Every request head and body the server receives is kept in `received`, so a
test can search every byte an upstream saw."""
import base64
import hashlib
import http.server
import json
import socket
import ssl
import struct
import threading
import urllib.parse

_WS_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


class EchoHandler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):  # keep test output quiet
        pass

    def _record(self, body: bytes):
        head = self.raw_requestline + bytes(self.headers)
        with self.server.lock:
            self.server.received.append(head + body)
            self.server.requests.append({
                "method": self.command, "path": self.path,
                "headers": [(k, v) for k, v in self.headers.items()],
                "body": body, "connection": id(self.connection),
            })

    def _body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            data = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0], 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return data
                data += self.rfile.read(size)
                self.rfile.readline()
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def _send(self, status, body: bytes, ctype="application/json", extra=()):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in extra:
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def handle_any(self):
        body = self._body()
        self._record(body)
        url = urllib.parse.urlsplit(self.path)
        custom = getattr(self.server, "route", None)
        if custom and custom(self, url, body):
            return
        if url.path.startswith("/bytes/"):
            return self._send(200, b"x" * int(url.path.split("/")[2]), "application/octet-stream")
        if url.path.startswith("/status/"):
            return self._send(int(url.path.split("/")[2]), b"", "text/plain")
        if url.path == "/ws" and self.headers.get("Upgrade", "").lower() == "websocket":
            return self._websocket()
        echo = {
            "method": self.command, "path": url.path, "query": url.query,
            "headers": {k.lower(): v for k, v in self.headers.items()},
            "bodyLength": len(body), "sni": getattr(self.connection, "osf_sni", None),
        }
        self._send(200, json.dumps(echo).encode())

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = do_OPTIONS = handle_any

    def _websocket(self):
        accept = base64.b64encode(hashlib.sha1((self.headers["Sec-WebSocket-Key"] + _WS_GUID).encode()).digest())
        self.send_response(101)
        self.send_header("Upgrade", "websocket")
        self.send_header("Connection", "Upgrade")
        self.send_header("Sec-WebSocket-Accept", accept.decode())
        self.end_headers()
        self.wfile.flush()
        while True:
            head = self.rfile.read(2)
            if len(head) < 2:
                return
            opcode, length = head[0] & 0x0F, head[1] & 0x7F
            if length == 126:
                length = struct.unpack("!H", self.rfile.read(2))[0]
            elif length == 127:
                length = struct.unpack("!Q", self.rfile.read(8))[0]
            mask = self.rfile.read(4) if head[1] & 0x80 else b"\0\0\0\0"
            data = bytes(b ^ mask[i % 4] for i, b in enumerate(self.rfile.read(length)))
            if opcode == 8:  # close: answer and stop
                self.wfile.write(b"\x88\x00")
                self.wfile.flush()
                self.close_connection = True
                return
            out = bytes([0x80 | opcode])
            if len(data) < 126:
                out += bytes([len(data)])
            elif len(data) < 65536:
                out += bytes([126]) + struct.pack("!H", len(data))
            else:
                out += bytes([127]) + struct.pack("!Q", len(data))
            self.wfile.write(out + data)
            self.wfile.flush()


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def get_request(self):
        sock, addr = super().get_request()
        with self.lock:
            self.connections += 1
        return sock, addr


class Upstream:
    """`Upstream(ca, ["upstream.test"])` serves HTTPS with a leaf from `ca`;
    `Upstream(None)` serves plain HTTP. `port`, `url(host)`, `received`,
    `requests`, `connections`. Use as a context manager or call stop()."""

    def __init__(self, ca=None, names=("upstream.test",), handler=EchoHandler, route=None,
                 cert=None, tls_versions=None):
        self.server = _Server(("127.0.0.1", 0), handler)
        self.server.lock = threading.Lock()
        self.server.received = []
        self.server.requests = []
        self.server.connections = 0
        self.server.route = route
        self.tls = ca is not None or cert is not None
        if self.tls:
            cert_path, key_path = cert or ca.issue(list(names))
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(cert_path, key_path)
            ctx.set_alpn_protocols(["http/1.1"])

            def remember_sni(sslobj, server_name, _ctx):
                sslobj.osf_sni = server_name
            ctx.sni_callback = remember_sni
            self.server.socket = ctx.wrap_socket(self.server.socket, server_side=True,
                                                 do_handshake_on_connect=False)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def url(self, host="upstream.test", path="/"):
        return f"{'https' if self.tls else 'http'}://{host}:{self.port}{path}"

    @property
    def received(self):
        with self.server.lock:
            return list(self.server.received)

    @property
    def requests(self):
        with self.server.lock:
            return list(self.server.requests)

    @property
    def connections(self):
        with self.server.lock:
            return self.server.connections

    def stop(self):
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


class RawServer:
    """A TCP server on 127.0.0.1 that hands each connection to `serve(conn)` on a
    thread of its own (for upstreams that misbehave in ways no HTTP library will)."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self.serve, args=(conn,), daemon=True).start()

    def serve(self, conn):
        raise NotImplementedError

    def stop(self):
        self.sock.close()

