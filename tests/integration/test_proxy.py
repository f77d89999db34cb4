"""egress-proxy with real clients (curl, openssl s_client, python urllib, git)
against real HTTPS upstreams on loopback."""
import contextlib
import json
import os
import re
import signal
import socket
import ssl
import subprocess
import threading
import time
import urllib.request

import pytest

from osftest import Proxy, ProxyExited, TestCA, Upstream, repo
from osftest.clients import body_of, curl, status_of
from osftest.proxy import run_proxy
from osftest.waiting import wait_until

ALIASES = {"upstream.test": "127.0.0.1", "other.test": "127.0.0.1", "sub.wild.test": "127.0.0.1"}


@pytest.fixture
def ca(tmp_path):
    return TestCA(str(tmp_path / "upstream-ca"))


@pytest.fixture
def upstream(ca):
    with Upstream(ca, ["upstream.test", "other.test", "sub.wild.test"]) as u:
        yield u


@pytest.fixture
def proxy(tmp_path, ca):
    spec = {"template": "debian:12", "egress": ["upstream.test", "*.wild.test", "localhost"]}
    with Proxy(spec, str(tmp_path / "proxy"), aliases=ALIASES, upstream_ca=ca.cert_path) as p:
        yield p


def test_allowed_host_through_intercepted_tls(proxy, upstream):
    res = curl(proxy, upstream.url(path="/hello?token=abc"), "-H", "X-Custom: visible-header-value")
    assert status_of(res) == 200, res.stderr
    echo = json.loads(body_of(res))
    assert echo["path"] == "/hello" and echo["query"] == "token=abc"
    assert echo["sni"] == "upstream.test"  # the proxy sends SNI upstream
    line = proxy.wait_for_log(lambda l: l["path"] == "/hello")[0]
    assert line["outcome"] == "allowed" and line["status"] == 200 and line["method"] == "GET"
    assert line["host"] == "upstream.test" and line["scheme"] == "https"


def test_certificate_is_minted_by_the_proxy_ca(proxy, upstream):
    out = subprocess.run(
        ["openssl", "s_client", "-proxy", proxy.listen, "-connect", f"upstream.test:{upstream.port}",
         "-servername", "upstream.test", "-CAfile", proxy.ca_path, "-verify_return_error",
         "-verify_hostname", "upstream.test", "-brief", "-ign_eof"],
        input="GET / HTTP/1.1\r\nHost: upstream.test:%d\r\nConnection: close\r\n\r\n" % upstream.port,
        capture_output=True, text=True, timeout=30)
    assert "Verification: OK" in out.stderr, out.stderr
    assert "HTTP/1.1 200" in out.stdout
    # The leaf is valid for well under 200 days.
    pem = subprocess.run(
        ["openssl", "s_client", "-proxy", proxy.listen, "-connect", f"upstream.test:{upstream.port}",
         "-servername", "upstream.test", "-showcerts"], input="", capture_output=True, text=True, timeout=30).stdout
    leaf = pem[pem.index("-----BEGIN CERTIFICATE-----"):pem.index("-----END CERTIFICATE-----") + 25]
    dates = subprocess.run(["openssl", "x509", "-noout", "-startdate", "-enddate"], input=leaf,
                           capture_output=True, text=True).stdout
    start = re.search(r"notBefore=(.*)", dates).group(1)
    end = re.search(r"notAfter=(.*)", dates).group(1)
    fmt = "%b %d %H:%M:%S %Y %Z"
    days = (time.mktime(time.strptime(end, fmt)) - time.mktime(time.strptime(start, fmt))) / 86400
    assert days < 200


def test_ca_is_name_constrained_to_the_spec_hosts(proxy):
    text = subprocess.run(["openssl", "x509", "-noout", "-text", "-in", proxy.ca_path],
                          capture_output=True, text=True).stdout
    assert "Name Constraints: critical" in text
    assert "DNS:upstream.test" in text and "DNS:wild.test" in text


def test_refused_host_gets_403_with_reason_and_log_line(proxy):
    res = curl(proxy, "https://denied.test/secret?key=1")
    assert "CONNECT tunnel failed, response 403" in res.stderr
    line = proxy.wait_for_log(lambda l: l["host"] == "denied.test")[0]
    assert line["outcome"] == "refused" and line["refusedBy"] == "host-not-allowed"
    assert line["status"] == 403 and line["method"] == "CONNECT"
    # Plain HTTP: the body and a header name the reason.
    out = subprocess.run(["curl", "-sS", "-i", "--proxy", proxy.url, "http://denied.test/x?y=2"],
                         capture_output=True, text=True, timeout=30).stdout
    assert out.startswith("HTTP/1.1 403")
    assert re.search(r"(?i)^x-osf-refused-by: host-not-allowed", out, re.M)
    assert "denied.test" in out


def test_wildcards_match_subdomains_only(proxy, upstream):
    assert status_of(curl(proxy, upstream.url("sub.wild.test", "/"))) == 200
    res = curl(proxy, f"https://wild.test:{upstream.port}/")
    assert "403" in res.stderr


def test_loopback_destination_is_refused_after_resolution(proxy):
    # "localhost" is allowed by name but resolves to loopback, and no alias names it.
    res = curl(proxy, "https://localhost:1/")
    assert "403" in res.stderr
    line = proxy.wait_for_log(lambda l: l["host"] == "localhost")[0]
    assert line["refusedBy"] == "destination-address"


def test_host_header_must_match_the_tunnel(proxy, upstream):
    res = curl(proxy, upstream.url(path="/x"), "-H", f"Host: other.test:{upstream.port}")
    assert status_of(res) == 403
    assert proxy.wait_for_log(lambda l: l.get("refusedBy") == "host-mismatch")
    assert not [r for r in upstream.requests if r["path"] == "/x"]


def test_sni_must_match_the_tunnel(proxy, upstream):
    # CONNECT to upstream.test, but TLS names other.test.
    with socket.create_connection(tuple(proxy.listen.rsplit(":", 1))) as s:
        s.sendall(f"CONNECT upstream.test:{upstream.port} HTTP/1.1\r\nHost: upstream.test\r\n\r\n".encode())
        assert s.recv(1024).startswith(b"HTTP/1.1 200")
        ctx = ssl.create_default_context(cafile=proxy.ca_path)
        ctx.check_hostname = False
        with ctx.wrap_socket(s, server_hostname="other.test") as t:
            t.sendall(f"GET /sni HTTP/1.1\r\nHost: upstream.test:{upstream.port}\r\n\r\n".encode())
            assert t.recv(4096).startswith(b"HTTP/1.1 403")
    assert proxy.wait_for_log(lambda l: l.get("refusedBy") == "host-mismatch" and l["path"] == "/sni")


def test_bad_upstream_certificate_gives_502_and_error_line(tmp_path, ca):
    wrong_ca = TestCA(str(tmp_path / "wrong-ca"))
    with Upstream(wrong_ca, ["upstream.test"]) as bad, \
            Proxy({"template": "x:1", "egress": ["upstream.test"]}, str(tmp_path / "p"),
                  aliases=ALIASES, upstream_ca=ca.cert_path) as p:
        res = curl(p, bad.url(path="/"))
        assert status_of(res) == 502
        line = p.wait_for_log(lambda l: l["outcome"] == "error")[0]
        assert line["error"] == "upstream-tls" and line["status"] == 502
        assert bad.requests == []  # nothing was sent to it


def test_upstream_hostname_is_verified(tmp_path, ca):
    cert = ca.issue(["someone-else.test"])
    with Upstream(cert=cert) as u, Proxy({"template": "x:1", "egress": ["upstream.test"]}, str(tmp_path / "p"),
                                         aliases=ALIASES, upstream_ca=ca.cert_path) as p:
        assert status_of(curl(p, u.url(path="/"))) == 502


def test_keep_alive_reuses_one_tunnel_and_one_upstream_connection(proxy, upstream):
    urls = [upstream.url(path=f"/k{i}") for i in range(5)]
    res = subprocess.run(["curl", "-sS", "--proxy", proxy.url, "--cacert", proxy.ca_path, *urls],
                         capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    wait_until(lambda: len([l for l in proxy.log_lines() if l["path"].startswith("/k")]) >= 5, 30,
               "a line for each of the five requests")
    proxy.wait_connections_closed()
    lines = [l for l in proxy.log_lines() if l["path"].startswith("/k")]
    assert len(lines) == 5
    assert len({l["connection"] for l in lines}) == 1  # one client connection, one tunnel
    assert upstream.connections == 1  # one pooled upstream connection


@contextlib.contextmanager
def _tunnel_to(tmp_path, ca, route):
    """An upstream with `route` and a proxy in front of it, and one intercepted
    tunnel through them: yields (TLS socket, "host:port"), for tests that need
    the exact bytes on the wire."""
    spec = {"template": "debian:12", "egress": ["upstream.test"]}
    with Upstream(ca, ["upstream.test"], route=route) as up, \
            Proxy(spec, str(tmp_path / "proxy"), aliases=ALIASES, upstream_ca=ca.cert_path) as p:
        target = f"upstream.test:{up.port}"
        host, port = p.listen.rsplit(":", 1)
        raw = socket.create_connection((host, int(port)), timeout=20)
        try:
            raw.sendall(f"CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n\r\n".encode())
            head = b""
            while not head.endswith(b"\r\n\r\n"):
                head += raw.recv(1)
            assert head.startswith(b"HTTP/1.1 200"), head
            yield ssl.create_default_context(cafile=p.ca_path).wrap_socket(
                raw, server_hostname="upstream.test"), target
        finally:
            raw.close()


def _recv_until(tls, data, done):
    """Reads from `tls` onto `data` until done(data); fails if the peer closes first."""
    while not done(data):
        more = tls.recv(4096)
        assert more, data
        data += more
    return data


def test_a_streamed_answer_head_is_not_held_for_its_first_chunk(tmp_path, ca):
    # The upstream sends its head and a chunk's size line in one write, then
    # waits until the client has the head: a proxy that held the head back for
    # the chunk's data would wait here until the upstream gave up.
    release = threading.Event()

    def route(handler, url, body):
        if url.path != "/paused":
            return False
        handler.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"
                            b"Transfer-Encoding: chunked\r\n\r\n5\r\n")
        release.wait(60)
        handler.wfile.write(b"hello\r\n0\r\n\r\n")
        handler.close_connection = True
        return True

    with _tunnel_to(tmp_path, ca, route) as (tls, target):
        try:
            tls.sendall(f"GET /paused HTTP/1.1\r\nHost: {target}\r\n\r\n".encode())
            # times out (20 s) if the head is held back
            answer = _recv_until(tls, b"", lambda a: b"\r\n\r\n" in a)
            assert answer.startswith(b"HTTP/1.1 200"), answer
            assert b"hello" not in answer  # the upstream has not sent it yet
            release.set()
            answer = _recv_until(tls, answer, lambda a: a.endswith(b"0\r\n\r\n"))
            assert b"\r\n5\r\nhello\r\n0\r\n\r\n" in answer
        finally:
            release.set()


def test_a_head_answer_with_chunked_framing_carries_no_body(tmp_path, ca):
    # An answer to HEAD keeps the upstream's "Transfer-Encoding: chunked" but has
    # no body: the next answer on the connection must follow its head directly,
    # with no last chunk ("0\r\n\r\n") in between, or the client reads that as
    # the start of its next answer.
    def route(handler, url, body):
        if url.path != "/chunked-head":
            return False
        handler.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"
                            b"Transfer-Encoding: chunked\r\n\r\n")
        if handler.command != "HEAD":
            handler.wfile.write(b"5\r\nhello\r\n0\r\n\r\n")
        return True

    with _tunnel_to(tmp_path, ca, route) as (tls, target):
        tls.sendall(f"HEAD /chunked-head HTTP/1.1\r\nHost: {target}\r\n\r\n".encode())
        answer = _recv_until(tls, b"", lambda a: b"\r\n\r\n" in a)
        first, rest = answer.split(b"\r\n\r\n", 1)
        assert first.startswith(b"HTTP/1.1 200"), answer
        assert b"transfer-encoding: chunked" in first.lower()
        tls.sendall(f"GET /chunked-head HTTP/1.1\r\nHost: {target}\r\n\r\n".encode())
        rest = _recv_until(tls, rest, lambda a: a.endswith(b"0\r\n\r\n"))
        assert rest.startswith(b"HTTP/1.1 200"), rest  # not "0\r\n\r\n" first
        assert rest.endswith(b"\r\n\r\n5\r\nhello\r\n0\r\n\r\n"), rest


@pytest.mark.parametrize("method", ["GET", "POST"])
def test_a_pooled_connection_the_upstream_closed_is_not_an_error(tmp_path, ca, method):
    # The upstream answers without "Connection: close" and then closes the
    # connection the proxy has pooled. The next request must still get its
    # answer: a GET taken on the recently used connection without a look at its
    # socket is sent again on a fresh one; a POST is never sent on it (the proxy
    # looks first, since it would not send a POST twice).
    def route(handler, url, body):
        if url.path != "/then-close":
            return False
        handler.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        handler.close_connection = True
        return True

    with _tunnel_to(tmp_path, ca, route) as (tls, target):
        for i in range(3):
            body = b"x" * 5 if method == "POST" else b""
            head = f"{method} /then-close HTTP/1.1\r\nHost: {target}\r\n"
            if body:
                head += f"Content-Length: {len(body)}\r\n"
            tls.sendall(head.encode() + b"\r\n" + body)
            answer = _recv_until(tls, b"", lambda a: a.endswith(b"\r\n\r\nok"))
            assert answer.startswith(b"HTTP/1.1 200"), answer
            time.sleep(0.3)  # the upstream's close has arrived; still "recently used"


def test_python_urllib_with_https_proxy_and_ssl_cert_file(proxy, upstream):
    code = ("import urllib.request,json,sys;"
            "print(json.load(urllib.request.urlopen(sys.argv[1]))['path'])")
    env = dict(os.environ, https_proxy=proxy.url, SSL_CERT_FILE=proxy.ca_path)
    out = subprocess.run(["/usr/bin/python3", "-c", code, upstream.url(path="/from-python")],
                         env=env, capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "/from-python", out.stderr


def test_post_body_streams_both_ways(proxy, upstream, tmp_path):
    data = tmp_path / "big.bin"
    data.write_bytes(os.urandom(3 * 1024 * 1024))
    res = curl(proxy, upstream.url(path="/upload"), "--data-binary", f"@{data}")
    assert status_of(res) == 200
    assert json.loads(body_of(res))["bodyLength"] == 3 * 1024 * 1024
    line = proxy.wait_for_log(lambda l: l["path"] == "/upload")[0]
    assert line["bytesUp"] == 3 * 1024 * 1024


def test_chunked_request_body_is_forwarded(proxy, upstream):
    res = curl(proxy, upstream.url(path="/chunked"), "-H", "Transfer-Encoding: chunked", "--data-binary", "abc" * 1000)
    assert json.loads(body_of(res))["bodyLength"] == 3000


def test_websocket_echo_through_the_proxy(proxy, upstream):
    code = r'''
import asyncio, ssl, sys, websockets
async def main(url, proxy_host, proxy_port, ca):
    import socket
    host = url.split("/")[2]
    sock = socket.create_connection((proxy_host, int(proxy_port)))
    sock.sendall(f"CONNECT {host} HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
    head = b""
    while not head.endswith(b"\r\n\r\n"):  # byte by byte: nothing of the TLS stream is read here
        head += sock.recv(1)
    assert head.startswith(b"HTTP/1.1 200"), head
    ctx = ssl.create_default_context(cafile=ca)
    async with websockets.connect(url, sock=sock, ssl=ctx, server_hostname=host.split(":")[0]) as ws:
        for msg in ["hello", "x" * 70000]:
            await ws.send(msg)
            got = await ws.recv()
            assert got == msg
    print("ok")
asyncio.run(main(*sys.argv[1:]))
'''
    host, port = proxy.listen.rsplit(":", 1)
    out = subprocess.run(["/usr/bin/python3", "-c", code, f"wss://upstream.test:{upstream.port}/ws", host, port,
                          proxy.ca_path], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "ok", out.stderr
    line = proxy.wait_for_log(lambda l: l["path"] == "/ws")[0]
    assert line["status"] == 101 and line["upgrade"] == "websocket"


def test_git_clone_over_https_through_the_proxy(tmp_path, ca):
    # A bare repository served by git http-backend (smart HTTP) behind the test upstream.
    src = tmp_path / "src"
    subprocess.run(["git", "init", "-q", "-b", "main", str(src)], check=True)
    (src / "README").write_text("hello through the proxy\n")
    subprocess.run(["git", "-C", str(src), "add", "."], check=True)
    subprocess.run(["git", "-C", str(src), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init"],
                   check=True)
    bare = tmp_path / "repos" / "demo.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(src), str(bare)], check=True)

    def route(handler, url, body):
        if not url.path.startswith("/demo.git"):
            return False
        env = {"GIT_PROJECT_ROOT": str(tmp_path / "repos"), "GIT_HTTP_EXPORT_ALL": "1",
               "PATH_INFO": url.path, "QUERY_STRING": url.query, "REQUEST_METHOD": handler.command,
               "CONTENT_TYPE": handler.headers.get("Content-Type", ""), "CONTENT_LENGTH": str(len(body)),
               "GIT_HTTP_MAX_REQUEST_BUFFER": "100M"}
        if handler.headers.get("Git-Protocol"):
            env["GIT_PROTOCOL"] = handler.headers["Git-Protocol"]
        out = subprocess.run(["git", "http-backend"], input=body, env=env, capture_output=True).stdout
        head, _, payload = out.partition(b"\r\n\r\n")
        status = 200
        headers = []
        for h in head.split(b"\r\n"):
            k, _, v = h.decode().partition(":")
            if k.lower() == "status":
                status = int(v.split()[0])
            elif k:
                headers.append((k, v.strip()))
        handler.send_response(status)
        for k, v in headers:
            handler.send_header(k, v)
        handler.send_header("Content-Length", str(len(payload)))
        handler.end_headers()
        handler.wfile.write(payload)
        return True

    with Upstream(ca, ["upstream.test"], route=route) as u, \
            Proxy({"template": "x:1", "egress": ["upstream.test"]}, str(tmp_path / "p"), aliases=ALIASES,
                  upstream_ca=ca.cert_path) as p:
        env = dict(os.environ, https_proxy=p.url, GIT_SSL_CAINFO=p.ca_path, GIT_TERMINAL_PROMPT="0")
        out = subprocess.run(["git", "clone", "-q", u.url(path="/demo.git"), str(tmp_path / "clone")], env=env,
                             capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        assert (tmp_path / "clone" / "README").read_text() == "hello through the proxy\n"
        assert p.wait_for_log(lambda l: l["path"] == "/demo.git/git-upload-pack" and l["status"] == 200)


def test_admin_endpoints(proxy, upstream):
    curl(proxy, upstream.url(path="/m"))
    curl(proxy, "https://denied.test/")
    assert urllib.request.urlopen(proxy.admin_url + "/healthz").read() == b"ok\n"
    assert urllib.request.urlopen(proxy.admin_url + "/readyz").status == 200
    proxy.wait_for_log(lambda l: l["host"] == "denied.test")
    metrics = urllib.request.urlopen(proxy.admin_url + "/metrics").read().decode()
    assert re.search(r'egress_requests_total\{outcome="allowed",reason=""\} [1-9]', metrics)
    assert re.search(r'egress_requests_total\{outcome="refused",reason="host-not-allowed"\} 1', metrics)
    assert re.search(r'egress_certificate_cache_total\{result="miss"\} 1', metrics)
    assert "egress_upstream_latency_seconds_bucket" in metrics and "egress_open_connections" in metrics
    # The admin port is not a proxy port.
    res = subprocess.run(["curl", "-sS", "-o", "/dev/null", "-w", "%{http_code}", "--proxy", proxy.admin_url,
                          "http://upstream.test/"], capture_output=True, text=True, timeout=30)
    assert res.stdout == "404"


def test_sigterm_drains_a_request_in_flight(tmp_path, ca):
    def slow(handler, url, body):
        if url.path != "/slow":
            return False
        time.sleep(1.5)
        handler._send(200, b"finished")
        return True

    with Upstream(ca, ["upstream.test"], route=slow) as u:
        p = Proxy({"template": "x:1", "egress": ["upstream.test"]}, str(tmp_path / "p"), aliases=ALIASES,
                  upstream_ca=ca.cert_path)
        result = {}
        t = threading.Thread(target=lambda: result.update(res=curl(p, u.url(path="/slow"))))
        t.start()
        wait_until(lambda: u.requests, 30, "the slow request to reach the upstream", interval=0.02)
        p.proc.send_signal(signal.SIGTERM)
        t.join(30)
        assert p.proc.wait(30) == 0
        assert body_of(result["res"]) == "finished" and status_of(result["res"]) == 200
        assert [l for l in p.log_lines() if l["path"] == "/slow"][0]["status"] == 200
        p.stop()


def test_log_lines_match_the_schema_and_hold_no_header_values_or_queries(proxy, upstream):
    curl(proxy, upstream.url(path="/q?private-query=1"), "-H", "X-Token: header-value-never-logged")
    curl(proxy, "https://denied.test/?private-query=2")
    curl(proxy, upstream.url("sub.wild.test", "/ok"))
    proxy.wait_for_log(lambda l: l["path"] == "/ok")
    text = open(proxy.log_path).read()
    assert "private-query" not in text and "header-value-never-logged" not in text
    validator = os.path.join(repo(), "tests", "tools", "ajv", "validate-jsonl.mjs")
    schema = os.path.join(repo(), "contracts", "egress-log.schema.json")
    out = subprocess.run(["node", validator, schema, proxy.log_path], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr


def test_bad_configuration_exits_2_with_one_line(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"template": "x:1", "egress": ["https://x.com"]}')
    res = run_proxy(["--spec", str(bad), "--listen", "127.0.0.1:0", "--state-dir", str(tmp_path / "s")])
    assert res.returncode == 2
    assert res.stderr.count("\n") == 1 and "$.egress[0]" in res.stderr
    res = run_proxy(["--spec", str(tmp_path / "missing.json")])
    assert res.returncode == 2 and "missing.json" in res.stderr
    good = tmp_path / "good.json"
    good.write_text('{"template": "x:1"}')
    res = run_proxy(["--spec", str(good), "--listen", "nonsense"])
    assert res.returncode == 2 and "--listen" in res.stderr
    env = dict(os.environ, OSF_SANDBOX_HOST_ALIASES="broken")
    res = run_proxy(["--spec", str(good), "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0",
                     "--state-dir", str(tmp_path / "s")], env=env)
    assert res.returncode == 2 and "OSF_SANDBOX_HOST_ALIASES" in res.stderr
    # The variable is named once: the parser's message already starts with it.
    assert res.stderr.count("OSF_SANDBOX_HOST_ALIASES") == 1, res.stderr
    assert 'bad entry "broken": expected host=ip' in res.stderr
    res = run_proxy(["--bogus-flag"])
    assert res.returncode == 2


def test_exit_codes_say_usage_or_runtime_failure(tmp_path):
    """0 done; 1 a runtime failure (nothing to print); 2 bad flags, configuration or
    input, one line on stderr, before anything listens (README "Exit codes")."""
    good = tmp_path / "good.json"
    good.write_text('{"template": "x:1"}')
    not_pem = tmp_path / "not.pem"
    not_pem.write_text("not a certificate\n")
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    blocked = tmp_path / "blocked"
    (blocked / "listen.json").mkdir(parents=True)
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen(1)
    serve = ["--spec", str(good), "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0",
             "--state-dir", str(tmp_path / "s")]
    cases = [
        (["--version"], 0, None),
        (["ca", "--state-dir", str(tmp_path / "none")], 1, "ca.crt"),
        (["ca", "--log-key", "--state-dir", str(tmp_path / "none")], 1, "log-key.pub"),
        (["log", "--state-dir", str(tmp_path / "none")], 1, "egress.jsonl"),
        (["--bogus-flag"], 2, "--bogus-flag"),
        (["--log-level", "loud", *serve], 2, "--log-level"),
        ([*serve, "--idle-timeout", "0"], 2, "--idle-timeout"),
        ([*serve, "--grace", "-1"], 2, "--grace"),
        ([*serve, "--upstream-ca", str(not_pem)], 2, "cannot load upstream CA bundle"),
        ([*serve[:-1], str(a_file)], 2, "a-file"),
        (["--spec", str(good), "--listen", "127.0.0.1:%d" % taken.getsockname()[1],
          "--admin-listen", "127.0.0.1:0", "--state-dir", str(tmp_path / "s")], 2, "cannot listen on"),
        # A failure after the listeners and workers started (listen.json cannot be
        # written): one line and exit 1, not an abort.
        (["--spec", str(good), "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0",
          "--state-dir", str(blocked)], 1, "listen.json"),
    ]
    try:
        for argv, code, says in cases:
            res = run_proxy(argv)
            assert res.returncode == code, (argv, res.returncode, res.stderr)
            if says:
                assert says in res.stderr, (argv, res.stderr)
            if code == 2:
                assert res.stderr.count("\n") == 1, (argv, res.stderr)
    finally:
        taken.close()


def test_ca_and_log_subcommands(proxy, upstream):
    curl(proxy, upstream.url(path="/sub"))
    proxy.wait_for_log(lambda l: l["path"] == "/sub")
    ca_out = run_proxy(["ca", "--state-dir", proxy.state_dir])
    assert ca_out.returncode == 0 and ca_out.stdout == open(proxy.ca_path).read()
    assert "PRIVATE KEY" not in ca_out.stdout
    log_out = run_proxy(["log", "--state-dir", proxy.state_dir])
    assert '"path":"/sub"' in log_out.stdout
    # One JSON line per request by default: no chain lines; --raw is the file as written.
    lines = [json.loads(line) for line in log_out.stdout.splitlines()]
    assert lines and all("kind" not in line and "host" in line for line in lines)
    raw = run_proxy(["log", "--raw", "--state-dir", proxy.state_dir]).stdout
    with open(os.path.join(proxy.state_dir, "egress.jsonl")) as f:
        assert raw == f.read()
    assert json.loads(raw.splitlines()[0])["kind"] == "start"
    missing = run_proxy(["ca", "--state-dir", "/nonexistent-state"])
    assert missing.returncode == 1 and "ca.crt" in missing.stderr


def test_ca_key_is_never_written_to_disk(proxy):
    for root, _, files in os.walk(proxy.dir):
        for f in files:
            with open(os.path.join(root, f), "rb") as fh:
                assert b"PRIVATE KEY" not in fh.read(), f
    assert sorted(os.listdir(proxy.state_dir)) == ["admin-token", "ca.crt", "egress.jsonl",
                                                   "listen.json", "log-key.pub"]
    # The admin token: the proxy's user alone may read it.
    assert os.stat(os.path.join(proxy.state_dir, "admin-token")).st_mode & 0o777 == 0o600


def test_listens_on_a_unix_listener_it_was_started_with(tmp_path):
    """--listen fd:N: sandbox-local's supervisor binds the socket its sandbox reaches and
    hands it to the proxy as descriptor 3, so the sandbox's connections need no relay. The
    proxy serves it and names its path in listen.json; a descriptor that is not a listening
    Unix stream socket, or none at all, is a configuration error (exit 2) before anything
    listens."""
    from osftest.paths import proxy_bin
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"egress": ["allowed.test"]}))
    path = str(tmp_path / "egress.sock")

    def start(fd, state):
        # The shell moves the descriptor to 3, as the supervisor's spawn does.
        return subprocess.Popen(["bash", "-c", f'exec 3<&{fd}; exec "$@"', "bash", proxy_bin(),
                                 "--spec", str(spec), "--listen", "fd:3", "--admin-listen",
                                 "127.0.0.1:0", "--state-dir", str(state)],
                                pass_fds=(fd,), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                text=True)

    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as listener:
        listener.bind(path)
        listener.listen(8)
        proc = start(listener.fileno(), tmp_path / "state")
    try:
        listen_file = tmp_path / "state" / "listen.json"
        wait_until(lambda: listen_file.exists() or proc.poll() is not None, 30,
                   "the proxy to listen")
        assert proc.poll() is None, proc.stderr.read()
        assert json.loads(listen_file.read_text())["proxy"] == "unix:" + path
        with socket.socket(socket.AF_UNIX) as client:
            client.settimeout(15)
            client.connect(path)
            client.sendall(b"GET http://denied.test/ HTTP/1.1\r\nHost: denied.test\r\n\r\n")
            assert client.recv(64).startswith(b"HTTP/1.1 403 ")
    finally:
        proc.terminate()
        proc.wait(timeout=30)

    with open(spec, "rb") as not_a_socket:
        proc = start(not_a_socket.fileno(), tmp_path / "state2")
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 2
    assert "not a listening Unix stream socket" in err
    assert not (tmp_path / "state2" / "listen.json").exists()
    res = run_proxy(["--spec", str(spec), "--listen", "fd:9", "--state-dir", str(tmp_path / "s3")])
    assert res.returncode == 2 and "fd:9" in res.stderr


def test_serves_sockets_another_process_hands_over(tmp_path):
    """--handoff-fd N: sandbox-local's agent hands the proxy its listeners on 127.0.0.1:8080 and
    :1080 inside the sandbox's network namespace (SCM_RIGHTS on a SOCK_SEQPACKET socket), so
    the sandbox's connections reach the proxy with no process between. A handed TCP listener
    is accepted on, a handed connection served; anything else (a datagram socket, a Unix
    listener) is closed unused, and the proxy goes on."""
    from osftest.paths import proxy_bin
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"egress": ["allowed.test"]}))
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    proc = subprocess.Popen(["bash", "-c", f'exec 4<&{theirs.fileno()}; exec "$@"', "bash",
                             proxy_bin(), "--spec", str(spec), "--listen", "127.0.0.1:0",
                             "--admin-listen", "127.0.0.1:0", "--handoff-fd", "4", "--state-dir",
                             str(tmp_path / "state")],
                            pass_fds=(theirs.fileno(),), stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    theirs.close()

    def refused(client):
        client.settimeout(15)
        client.sendall(b"GET http://denied.test/ HTTP/1.1\r\nHost: denied.test\r\n\r\n")
        return client.recv(64).startswith(b"HTTP/1.1 403 ")

    try:
        listen_file = tmp_path / "state" / "listen.json"
        wait_until(lambda: listen_file.exists() or proc.poll() is not None, 30,
                   "the proxy to listen")
        assert proc.poll() is None, proc.stderr.read()
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as datagram, \
                socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as unix_listener:
            unix_listener.bind(str(tmp_path / "l.sock"))
            unix_listener.listen(1)
            socket.send_fds(ours, [b"c"], [datagram.fileno(), unix_listener.fileno()])
        # A TCP listener: the proxy accepts on it; this process no longer does.
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        port = listener.getsockname()[1]
        socket.send_fds(ours, [b"l"], [listener.fileno()])
        listener.close()
        for _ in range(3):
            with socket.create_connection(("127.0.0.1", port), timeout=15) as client:
                assert refused(client)
        # A connection: served as if the proxy had accepted it.
        client, handed = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        with client:
            socket.send_fds(ours, [b"c"], [handed.fileno()])
            handed.close()
            assert refused(client)
        log = tmp_path / "state" / "egress.jsonl"
        wait_until(lambda: log.read_text().count('"denied.test"') >= 4, 30, "four log lines")
        assert all(json.loads(line).get("client") == "unix"
                   for line in log.read_text().splitlines() if '"denied.test"' in line)
    finally:
        ours.close()
        proc.terminate()
        proc.wait(timeout=30)
    assert proc.returncode == 0, proc.stderr.read()
    res = run_proxy(["--spec", str(spec), "--listen", "127.0.0.1:0", "--admin-listen",
                     "127.0.0.1:0", "--handoff-fd", "9", "--state-dir", str(tmp_path / "s2")])
    assert res.returncode == 2 and "--handoff-fd 9" in res.stderr
    res = run_proxy(["--spec", str(spec), "--handoff-fd", "1", "--state-dir", str(tmp_path / "s3")])
    assert res.returncode == 2 and "3 or more" in res.stderr
