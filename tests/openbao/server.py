#!/usr/bin/python3
"""A small OpenBao server for tests: the KV version 2 read endpoint only.

    server.py --secrets secrets.json (--cert C --key K | --self-signed DIR | --plain-http)

Implements `GET /v1/<mount>/data/<path>[?version=N]` the way OpenBao
documents it (api-docs/secret/kv/kv-v2, "Read secret version"):
  - the token comes from `X-Vault-Token` or `Authorization: Bearer <token>`;
    none, an unknown one, or one whose policy does not cover
    `<mount>/data/<path>` gets 403 {"errors":["permission denied"]};
  - a path on no mount: 404 {"errors":["no handler for route ..."]};
  - a secret that does not exist: 404 {"errors":[]};
  - a deleted secret (null in the file): 404 with its metadata and
    "data": null, as OpenBao answers for a soft-deleted latest version;
  - otherwise 200 with the full response envelope (request_id, lease_id,
    renewable, lease_duration, data {data, metadata}, wrap_info, warnings,
    auth).
`GET /v1/sys/health` answers like an unsealed active node. Any other method
on a KV path gets 405.

secrets.json:
    {"tokens": {"root-token": ["*"], "app-token": ["secret/data/app/*"]},
     "mounts": {"secret": {"app/linear": {"value": "..."}, "gone": null}}}
`tokens` may also be a list of tokens allowed everything. Policies are
fnmatch patterns over "<mount>/data/<path>".

Listens on 127.0.0.1 (port 0 unless --port), prints the port on stdout, and
logs one line per request to stderr: method, path, whether a token was
given and valid, status. Never a token or a secret value.
"""
import argparse
import datetime
import fnmatch
import http.server
import json
import os
import ssl
import sys
import urllib.parse
import uuid

CREATED = "2024-01-01T00:00:00.000000000Z"


def load_store(path):
    with open(path) as f:
        document = json.load(f)
    tokens = document.get("tokens", {})
    if isinstance(tokens, list):
        tokens = {token: ["*"] for token in tokens}
    return tokens, document.get("mounts", {})


def envelope(data):
    return {
        "request_id": str(uuid.uuid4()), "lease_id": "", "renewable": False,
        "lease_duration": 0, "data": data, "wrap_info": None, "warnings": None, "auth": None,
    }


def metadata(deleted=False):
    return {"created_time": CREATED, "custom_metadata": None,
            "deletion_time": CREATED if deleted else "", "destroyed": False, "version": 1}


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "osf-test-openbao"

    def log_message(self, fmt, *args):  # replaced by log_request's own line
        pass

    def _log(self, status, token_state):
        path = urllib.parse.urlsplit(self.path).path
        sys.stderr.write(f"openbao-test: {self.command} {path} token={token_state} -> {status}\n")
        sys.stderr.flush()

    def _send(self, status, document, token_state):
        body = json.dumps(document).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        self._log(status, token_state)

    def _token(self):
        token = self.headers.get("X-Vault-Token")
        if token is None:
            auth = self.headers.get("Authorization", "")
            if auth[:7].lower() == "bearer ":
                token = auth[7:].strip()
        return token

    def _route(self):
        url = urllib.parse.urlsplit(self.path)
        path = urllib.parse.unquote(url.path)
        if self.command == "GET" and path == "/v1/sys/health":
            return self._send(200, {"initialized": True, "sealed": False, "standby": False,
                                    "server_time_utc": int(datetime.datetime.now().timestamp()),
                                    "version": "test"}, "-")
        token = self._token()
        policies = self.server.tokens.get(token) if token else None
        state = "absent" if token is None else ("valid" if policies is not None else "invalid")
        if not path.startswith("/v1/"):
            return self._send(404, {"errors": []}, state)
        request_path = path[len("/v1/"):]
        if policies is None or not any(fnmatch.fnmatchcase(request_path, p) for p in policies):
            return self._send(403, {"errors": ["permission denied"]}, state)
        mount, found, secret_path = None, False, None
        for name in sorted(self.server.mounts, key=len, reverse=True):
            prefix = name + "/data/"
            if request_path.startswith(prefix):
                mount, secret_path = name, request_path[len(prefix):]
                break
        if mount is None:
            return self._send(404, {"errors": [
                f'no handler for route "{request_path}". route entry not found.']}, state)
        if self.command != "GET":
            return self._send(405, {"errors": ["1 error occurred:\n\t* unsupported operation\n\n"]}, state)
        secrets = self.server.mounts[mount]
        found = secret_path in secrets
        version = urllib.parse.parse_qs(url.query).get("version", ["0"])[0]
        if not found or version not in ("0", "1"):
            return self._send(404, {"errors": []}, state)
        data = secrets[secret_path]
        if data is None:
            return self._send(404, envelope({"data": None, "metadata": metadata(deleted=True)}), state)
        return self._send(200, envelope({"data": data, "metadata": metadata()}), state)

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _route

    def do_LIST(self):
        self._route()


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True


def self_signed(directory, names):
    """Writes a CA (ca.crt) and a leaf for `names` (DNS names or IP addresses)
    into `directory`; returns the leaf's (cert, key) paths."""
    import ipaddress
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    def san(name):
        try:
            return x509.IPAddress(ipaddress.ip_address(name))
        except ValueError:
            return x509.DNSName(name)

    os.makedirs(directory, exist_ok=True)
    now = datetime.datetime.now(datetime.timezone.utc)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "openbao test CA")])
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name)
          .public_key(ca_key.public_key()).serial_number(x509.random_serial_number())
          .not_valid_before(now - datetime.timedelta(hours=1))
          .not_valid_after(now + datetime.timedelta(days=2))
          .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
          .sign(ca_key, hashes.SHA256()))
    key = ec.generate_private_key(ec.SECP256R1())
    leaf = (x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")]))
            .issuer_name(ca_name).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(hours=1))
            .not_valid_after(now + datetime.timedelta(days=2))
            .add_extension(x509.SubjectAlternativeName([san(name) for name in names]),
                           critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .sign(ca_key, hashes.SHA256()))
    paths = {name: os.path.join(directory, name) for name in ("ca.crt", "server.crt", "server.key")}
    with open(paths["ca.crt"], "wb") as f:
        f.write(ca.public_bytes(serialization.Encoding.PEM))
    with open(paths["server.crt"], "wb") as f:
        f.write(leaf.public_bytes(serialization.Encoding.PEM))
    with open(paths["server.key"], "wb") as f:
        f.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                  serialization.NoEncryption()))
    return paths["server.crt"], paths["server.key"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--secrets", required=True, help="JSON file with tokens and mounts")
    parser.add_argument("--cert", help="server certificate chain (PEM)")
    parser.add_argument("--key", help="server private key (PEM)")
    parser.add_argument("--self-signed", metavar="DIR",
                        help="make a CA (DIR/ca.crt) and a server certificate in DIR")
    parser.add_argument("--self-signed-names", default="localhost,127.0.0.1,::1",
                        help="names in the --self-signed certificate (comma-separated)")
    parser.add_argument("--plain-http", action="store_true", help="serve without TLS")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()

    server = Server(("127.0.0.1", args.port), Handler)
    server.tokens, server.mounts = load_store(args.secrets)
    if not args.plain_http:
        cert, key = (args.cert, args.key)
        if args.self_signed:
            cert, key = self_signed(args.self_signed, args.self_signed_names.split(","))
        if not cert or not key:
            parser.error("give --cert and --key, --self-signed DIR, or --plain-http")
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, key)
        server.socket = context.wrap_socket(server.socket, server_side=True,
                                            do_handshake_on_connect=False)
    print(server.server_address[1], flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
