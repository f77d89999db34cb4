"""A small HTTP/1.1 server on asyncio streams: keep-alive, chunked request bodies, streamed
(chunked) responses for watches, and WebSocket upgrades (RFC 6455 framing) for pods/exec.

HTTP/2 is not offered (ALPN says http/1.1), so kubectl's Go client speaks HTTP/1.1."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import logging
import os
import struct
import urllib.parse
from dataclasses import dataclass, field

log = logging.getLogger("kube-api.http")

WS_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
MAX_BODY = 64 * 1024 * 1024

REASONS = {
    101: "Switching Protocols", 200: "OK", 201: "Created", 202: "Accepted", 204: "No Content",
    400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed",
    406: "Not Acceptable", 409: "Conflict", 410: "Gone", 415: "Unsupported Media Type",
    422: "Unprocessable Entity", 500: "Internal Server Error",
}


@dataclass
class Request:
    method: str
    target: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes = b""

    def param(self, name: str, default: str | None = None) -> str | None:
        values = self.query.get(name)
        return values[0] if values else default

    def params(self, name: str) -> list[str]:
        return self.query.get(name, [])

    def header(self, name: str, default: str = "") -> str:
        return self.headers.get(name.lower(), default)

    @property
    def is_websocket(self) -> bool:
        return "websocket" in self.header("upgrade").lower()


@dataclass
class Response:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class StreamResponse:
    """A chunked response whose body is produced by an async iterator of byte strings."""
    chunks: object
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class WebSocketResponse:
    """Accept a WebSocket upgrade with one of `protocols` and run `handler(ws)`."""
    handler: object
    protocol: str | None = None


class WebSocketClosed(Exception):
    pass


class WebSocket:
    """Server side of RFC 6455: unmasked frames out, masked frames in."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, protocol: str | None):
        self.reader = reader
        self.writer = writer
        self.protocol = protocol
        self._write_lock = asyncio.Lock()
        self.closed = False

    async def _send_frame(self, opcode: int, payload: bytes) -> None:
        header = bytearray([0x80 | opcode])
        n = len(payload)
        if n < 126:
            header.append(n)
        elif n < 65536:
            header.append(126)
            header += struct.pack("!H", n)
        else:
            header.append(127)
            header += struct.pack("!Q", n)
        async with self._write_lock:
            if self.writer.is_closing():
                raise WebSocketClosed()
            self.writer.write(bytes(header) + payload)
            await self.writer.drain()

    async def send_binary(self, data: bytes) -> None:
        await self._send_frame(0x2, data)

    async def send_text(self, text: str) -> None:
        await self._send_frame(0x1, text.encode())

    async def close(self, code: int = 1000, reason: str = "") -> None:
        if self.closed:
            return
        self.closed = True
        try:
            await self._send_frame(0x8, struct.pack("!H", code) + reason.encode())
        except (ConnectionError, WebSocketClosed, RuntimeError):
            pass

    async def _read_frame(self) -> tuple[bool, int, bytes]:
        b1, b2 = await self.reader.readexactly(2)
        fin = bool(b1 & 0x80)
        opcode = b1 & 0x0F
        masked = bool(b2 & 0x80)
        n = b2 & 0x7F
        if n == 126:
            (n,) = struct.unpack("!H", await self.reader.readexactly(2))
        elif n == 127:
            (n,) = struct.unpack("!Q", await self.reader.readexactly(8))
        if n > MAX_BODY:
            raise WebSocketClosed()
        mask = await self.reader.readexactly(4) if masked else b""
        data = await self.reader.readexactly(n)
        if masked:
            data = bytes(b ^ mask[i % 4] for i, b in enumerate(data)) if n < 4096 else _unmask(data, mask)
        return fin, opcode, data

    async def recv(self) -> bytes | None:
        """The next data message, or None once the peer closed."""
        message = b""
        try:
            while True:
                fin, opcode, data = await self._read_frame()
                if opcode == 0x8:  # close
                    if not self.closed:
                        await self.close()
                    return None
                if opcode == 0x9:  # ping
                    await self._send_frame(0xA, data)
                    continue
                if opcode == 0xA:  # pong
                    continue
                message += data
                if fin:
                    return message
        except (asyncio.IncompleteReadError, ConnectionError, WebSocketClosed):
            return None


def _unmask(data: bytes, mask: bytes) -> bytes:
    n = len(data)
    key = (mask * (n // 4 + 1))[:n]
    return (int.from_bytes(data, "big") ^ int.from_bytes(key, "big")).to_bytes(n, "big")


async def _read_head(reader: asyncio.StreamReader) -> tuple[str, str, dict[str, str]] | None:
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except (asyncio.IncompleteReadError, ConnectionError):
        return None
    except asyncio.LimitOverrunError:
        return None
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3:
        return None
    headers: dict[str, str] = {}
    for line in lines[1:]:
        if not line:
            continue
        name, _, value = line.partition(":")
        name = name.strip().lower()
        value = value.strip()
        headers[name] = f"{headers[name]},{value}" if name in headers else value
    return parts[0], parts[1], headers


async def _read_body(reader: asyncio.StreamReader, headers: dict[str, str]) -> bytes:
    if "chunked" in headers.get("transfer-encoding", "").lower():
        body = bytearray()
        while True:
            size_line = await reader.readuntil(b"\r\n")
            size = int(size_line.split(b";")[0].strip() or b"0", 16)
            if size == 0:
                while (await reader.readuntil(b"\r\n")) != b"\r\n":
                    pass
                return bytes(body)
            body += await reader.readexactly(size)
            await reader.readexactly(2)
            if len(body) > MAX_BODY:
                raise ValueError("body too large")
    length = int(headers.get("content-length", "0") or "0")
    if length > MAX_BODY:
        raise ValueError("body too large")
    return await reader.readexactly(length) if length else b""


def _head_bytes(status: int, headers: dict[str, str]) -> bytes:
    lines = [f"HTTP/1.1 {status} {REASONS.get(status, 'Status')}"]
    lines += [f"{k}: {v}" for k, v in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


class HttpServer:
    """Calls `app(request)` for every request; the app returns one of the response types."""

    def __init__(self, app, ssl_context=None):
        self.app = app
        self.ssl_context = ssl_context
        self.server: asyncio.base_events.Server | None = None
        self.port = 0

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> int:
        self.server = await asyncio.start_server(self._serve, host, port, ssl=self.ssl_context,
                                                 limit=1024 * 1024)
        self.port = self.server.sockets[0].getsockname()[1]
        return self.port

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await _read_head(reader)
                if head is None:
                    return
                method, target, headers = head
                try:
                    body = await _read_body(reader, headers)
                except (ValueError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
                    return
                parsed = urllib.parse.urlsplit(target)
                request = Request(method, target, urllib.parse.unquote(parsed.path),
                                  urllib.parse.parse_qs(parsed.query, keep_blank_values=True), headers, body)
                try:
                    response = await self.app(request)
                except Exception:  # a bug in a handler must not kill the server
                    log.exception("handler failed for %s %s", method, parsed.path)
                    response = Response(500, b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",'
                                             b'"message":"internal error","reason":"InternalError","code":500}',
                                        {"Content-Type": "application/json"})
                if isinstance(response, WebSocketResponse):
                    await self._upgrade(request, response, reader, writer)
                    return
                if isinstance(response, StreamResponse):
                    await self._stream(response, reader, writer)
                    return
                headers_out = {"Content-Type": "application/json", **response.headers,
                               "Content-Length": str(len(response.body))}
                writer.write(_head_bytes(response.status, headers_out) + (b"" if method == "HEAD" else response.body))
                await writer.drain()
                if headers.get("connection", "").lower() == "close":
                    return
        except (ConnectionError, asyncio.CancelledError):
            pass
        except Exception:
            log.exception("connection failed")
        finally:
            try:
                writer.close()
            except Exception:
                pass

    async def _stream(self, response: StreamResponse, reader, writer: asyncio.StreamWriter) -> None:
        headers = {"Content-Type": "application/json", **response.headers, "Transfer-Encoding": "chunked"}
        writer.write(_head_bytes(response.status, headers))
        await writer.drain()
        # The client going away ends the stream (and so the watch) even when no event comes.
        eof = asyncio.ensure_future(_drain_until_eof(reader))
        chunks = response.chunks.__aiter__()
        try:
            while True:
                step = asyncio.ensure_future(chunks.__anext__())
                done, _ = await asyncio.wait({step, eof}, return_when=asyncio.FIRST_COMPLETED)
                if step not in done:
                    step.cancel()
                    try:
                        await step
                    except (asyncio.CancelledError, StopAsyncIteration):
                        pass
                    return
                try:
                    chunk = step.result()
                except StopAsyncIteration:
                    writer.write(b"0\r\n\r\n")
                    await writer.drain()
                    return
                if chunk:
                    writer.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
                    await writer.drain()
        finally:
            eof.cancel()
            aclose = getattr(response.chunks, "aclose", None)
            if aclose:
                try:
                    await aclose()
                except RuntimeError:
                    pass

    async def _upgrade(self, request: Request, response: WebSocketResponse, reader, writer) -> None:
        key = request.header("sec-websocket-key")
        accept = base64.b64encode(hashlib.sha1((key + WS_GUID).encode()).digest()).decode()
        headers = {"Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Accept": accept}
        if response.protocol:
            headers["Sec-WebSocket-Protocol"] = response.protocol
        writer.write(_head_bytes(101, headers))
        await writer.drain()
        ws = WebSocket(reader, writer, response.protocol)
        try:
            await response.handler(ws)
        finally:
            await ws.close()
            # Give the client a moment to answer the close frame before the TCP close.
            try:
                await asyncio.wait_for(_drain_until_eof(reader), timeout=2)
            except (asyncio.TimeoutError, Exception):
                pass

    async def stop(self) -> None:
        if self.server:
            self.server.close()


async def _drain_until_eof(reader: asyncio.StreamReader) -> None:
    while await reader.read(65536):
        pass


def random_token(nbytes: int = 24) -> str:
    return base64.urlsafe_b64encode(os.urandom(nbytes)).decode().rstrip("=")
