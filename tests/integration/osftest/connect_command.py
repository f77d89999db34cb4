"""An ssh ProxyCommand: `python3 connect_command.py PROXY HOST PORT` opens an
HTTP CONNECT tunnel to HOST:PORT through the proxy at PROXY (ip:port) and
relays standard input and output through it (what `nc -X connect` does)."""
import os
import select
import socket
import sys


def main():
    proxy, host, port = sys.argv[1], sys.argv[2], sys.argv[3]
    address, proxy_port = proxy.rsplit(":", 1)
    sock = socket.create_connection((address, int(proxy_port)), timeout=30)
    sock.sendall(f"CONNECT {host}:{port} HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(1)
        if not chunk:
            break
        head += chunk
    status = head.split(b" ", 2)[1] if head.count(b" ") >= 2 else b"?"
    if status != b"200":
        sys.stderr.write(f"connect_command: proxy answered {head.decode(errors='replace')!r}\n")
        return 1
    sock.settimeout(None)
    stdin, stdout = sys.stdin.fileno(), sys.stdout.fileno()
    open_in = True
    while True:
        readable, _, _ = select.select([sock] + ([stdin] if open_in else []), [], [])
        if sock in readable:
            data = sock.recv(65536)
            if not data:
                return 0
            os.write(stdout, data)
        if open_in and stdin in readable:
            data = os.read(stdin, 65536)
            if not data:
                sock.shutdown(socket.SHUT_WR)
                open_in = False
            else:
                sock.sendall(data)


if __name__ == "__main__":
    sys.exit(main())
