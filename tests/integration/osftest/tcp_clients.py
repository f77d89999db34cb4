"""Raw TCP through the proxy, by hand: SOCKS5 (RFC 1928) and HTTP CONNECT on
plain sockets, for the edge cases no packaged client sends, and a TCP echo
server on loopback."""
import ipaddress
import socket
import struct
import threading

from .upstream import RawServer
from .waiting import scaled


def _address(listen):
    host, port = listen.rsplit(":", 1)
    return host, int(port)


def recv_exactly(sock, n):
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise ConnectionError(f"closed after {len(data)} of {n} bytes")
        data += chunk
    return data


def recv_all(sock):
    """Everything until the peer's end of stream."""
    data = b""
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            return data
        data += chunk


def socks5_request(listen, host, port, command=1, methods=(0,)):
    """Greets the proxy at `listen`, then sends one request: a domain, or an
    IPv4/IPv6 address when `host` is one. Returns (method, reply code, socket):
    the reply code is None when the method was refused (the socket is then at
    the proxy's end). The caller closes the socket."""
    sock = socket.create_connection(_address(listen), timeout=scaled(30))
    sock.sendall(bytes([5, len(methods), *methods]))
    version, method = recv_exactly(sock, 2)
    assert version == 5
    if method == 0xFF:
        return method, None, sock
    try:
        ip = ipaddress.ip_address(host)
        address = (bytes([1]) if ip.version == 4 else bytes([4])) + ip.packed
    except ValueError:
        name = host.encode()
        address = bytes([3, len(name)]) + name
    sock.sendall(bytes([5, command, 0]) + address + struct.pack(">H", port))
    reply = recv_exactly(sock, 10)  # the proxy always binds 0.0.0.0:0 (IPv4)
    assert reply[0] == 5 and reply[3] == 1, reply
    return method, reply[1], sock


def http_connect(listen, authority):
    """Sends `CONNECT authority`; returns (status, socket) once the answer's head is read."""
    sock = socket.create_connection(_address(listen), timeout=scaled(30))
    sock.sendall(f"CONNECT {authority} HTTP/1.1\r\nHost: {authority}\r\n\r\n".encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(1)
        if not chunk:
            raise ConnectionError("closed before the answer's head ended: %r" % head)
        head += chunk
    return int(head.split(b" ", 2)[1]), sock


class EchoServer(RawServer):
    """A TCP server on 127.0.0.1 (kernel-chosen port) sending back what it reads,
    and passing on the client's end of stream. `connections` counts them."""

    def __init__(self):
        self.connections = 0
        self.lock = threading.Lock()
        super().__init__()

    def serve(self, conn):
        with self.lock:
            self.connections += 1
        with conn:
            try:
                while True:
                    data = conn.recv(65536)
                    if not data:
                        conn.shutdown(socket.SHUT_WR)
                        return
                    conn.sendall(data)
            except OSError:
                return

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()
