#!/usr/bin/python3
"""The HTTPS origin of scripts/run-local-sandbox.sh: serves on 127.0.0.1 (a
kernel-chosen port, written to --port-file) and answers every request with a
JSON account of what it received: method, path, and which Authorization
reached it: the placeholder, or a real value, named by its SHA-256 prefix only,
so that the answer (which the sandbox reads) never carries the secret itself."""
import argparse
import hashlib
import http.server
import json
import ssl


def describe(value):
    if value is None:
        return None
    if "osf-secret-placeholder-" in value:
        return "the placeholder (not substituted)"
    return "a real value, sha256 " + hashlib.sha256(value.encode()).hexdigest()[:12]


class Echo(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def do_GET(self):
        body = json.dumps({"origin": "api.demo.test", "method": self.command, "path": self.path,
                           "authorization": describe(self.headers.get("Authorization"))}).encode() + b"\n"
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_POST = do_GET


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cert", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--port-file", required=True)
    args = parser.parse_args()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Echo)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(args.cert, args.key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    with open(args.port_file, "w") as f:
        f.write(str(server.server_address[1]))
    server.serve_forever()


if __name__ == "__main__":
    main()
