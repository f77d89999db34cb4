"""Bypass suite, destination tricks: the allowlist is checked on the host as the
proxy will connect to it. Every spelling of a host is tried as a CONNECT target
and as an absolute-form URL; the refusals must name the canonical host in the
log, and nothing may reach the upstream."""
import socket
import subprocess
import time

import pytest

from osftest import Proxy
from test_bypass_smuggling import LogCursor, RawUpstream, exchange, open_tunnel, read_response

# upstream.test and ported.test are aliased to loopback on purpose (an alias is
# the explicit exemption); localhost is NOT aliased: the system resolver answers
# 127.0.0.1 for it, the one such name every machine has (no test relies on a
# name that only one machine's /etc/hosts holds).
ALIASES = {"upstream.test": "127.0.0.1", "ported.test": "127.0.0.1", "xn--bcher-kva.test": "127.0.0.1"}
EGRESS = ["upstream.test", "ported.test:8443", "xn--bcher-kva.test", "localhost",
          "127.0.0.1", "169.254.169.254", "0.0.0.0", "224.0.0.1"]


@pytest.fixture(scope="module")
def upstream():
    with RawUpstream() as u:
        yield u


@pytest.fixture(scope="module")
def proxy(tmp_path_factory, upstream):
    spec = {"template": "debian:12", "egress": EGRESS}
    with Proxy(spec, str(tmp_path_factory.mktemp("dest")), aliases=ALIASES,
               args=["--upstream-timeout", "5"]) as p:
        yield p


def connect(proxy, authority):
    return exchange(proxy, f"CONNECT {authority} HTTP/1.1\r\nHost: {authority}\r\n\r\n".encode())


def get(proxy, url, host_header):
    return exchange(proxy, f"GET {url} HTTP/1.1\r\nHost: {host_header}\r\nConnection: close\r\n\r\n".encode())


def assert_refused(proxy, upstream, send, reasons, log_host=None):
    before = len(upstream.raw), upstream.connections
    cursor = LogCursor(proxy)
    status, head, body = send()
    assert status in (400, 403), head
    line = cursor.wait(lambda l: l["outcome"] == "refused")[0]
    assert line["refusedBy"] in reasons, line
    if log_host is not None:
        assert line["host"] == log_host
    time.sleep(0.1)
    assert (len(upstream.raw), upstream.connections) == before, "the upstream was reached"
    return line


# --- spellings of an allowed name reach it, under its canonical name -------------

@pytest.mark.parametrize("spelling", ["upstream.test", "UPSTREAM.TEST", "Upstream.Test.", "upstream.test.",
                                      "xn--bcher-kva.test", "XN--BCHER-KVA.TEST"])
def test_spellings_of_an_allowed_name_are_one_host(proxy, upstream, spelling):
    cursor = LogCursor(proxy)
    canonical = spelling.lower().rstrip(".")
    with open_tunnel(proxy, spelling, upstream.port, tls=False) as s:
        s.sendall(f"GET /spell HTTP/1.1\r\nHost: {spelling}:{upstream.port}\r\nConnection: close\r\n\r\n".encode())
        status, head, body = read_response(s)
    assert status == 200 and body == b"ok /spell", head
    assert cursor.wait(lambda l: l["path"] == "/spell")[0]["host"] == canonical


# --- names that only look like an allowed one ------------------------------------

LOOKALIKES = {
    "two trailing dots": ("upstream.test..", ("bad-host",)),
    "a leading dot": (".upstream.test", ("bad-host",)),
    "a suffix": ("upstream.test.evil.test", ("host-not-allowed",)),
    "a prefix": ("evilupstream.test", ("host-not-allowed",)),
    "a bracketed name": ("[upstream.test]", ("bad-host",)),
    "UTF-8 instead of punycode": ("bücher.test", ("bad-host",)),
    "a percent-encoded dot": ("upstream%2etest", ("bad-host",)),
    "userinfo before the host": ("user@upstream.test", ("bad-host",)),
    "userinfo naming the host": ("upstream.test@evil.test", ("bad-host",)),
    "an underscore": ("upstream_test", ("bad-host",)),
    "a backslash": ("upstream.test\\@evil.test", ("bad-host",)),
    "a zone id": ("[fe80::1%25lo]", ("bad-host",)),
}


@pytest.mark.parametrize("case", sorted(LOOKALIKES))
def test_lookalike_names_are_refused_on_connect(proxy, upstream, case):
    host, reasons = LOOKALIKES[case]
    assert_refused(proxy, upstream, lambda: exchange(
        proxy, f"CONNECT {host}:{upstream.port} HTTP/1.1\r\nHost: x\r\n\r\n".encode("utf-8")), reasons)


ABSOLUTE_TRICKS = {
    "userinfo naming the allowed host": "http://upstream.test:{port}@evil.test/",
    "userinfo before the allowed host": "http://user:pw@upstream.test:{port}/",
    "a fragment hiding the real host": "http://evil.test#@upstream.test:{port}/",
    "a backslash before @": "http://evil.test\\@upstream.test:{port}/",
    "a suffix": "http://upstream.test.evil.test:{port}/",
    "a port on a ported host that is not its port": "http://ported.test:{port}/",
    "the default port on a ported host": "http://ported.test/",
    "an encoded host": "http://upstream%2etest:{port}/",
    "no host": "http:///x",
    "a scheme other than http": "ftp://upstream.test:{port}/",
}


@pytest.mark.parametrize("case", sorted(ABSOLUTE_TRICKS))
def test_absolute_form_tricks_are_refused(proxy, upstream, case):
    url = ABSOLUTE_TRICKS[case].format(port=upstream.port)
    assert_refused(proxy, upstream, lambda: get(proxy, url, f"upstream.test:{upstream.port}"),
                   ("bad-host", "bad-request", "host-not-allowed", "port-not-allowed", "host-mismatch"))


# --- addresses ---------------------------------------------------------------------

# Every one of these is 127.0.0.1. "127.0.0.1" is in the egress list, so each
# spelling passes the name check only once canonicalised, and then must be
# refused by the address check (loopback, no alias): the reason proves both.
LOOPBACK_SPELLINGS = ["127.0.0.1", "2130706433", "0x7f000001", "0177.0.0.1", "0x7f.0.0.1", "0x7F.0.0.01",
                      "127.1", "127.0.1", "017700000001", "127.0.0.1."]


@pytest.mark.parametrize("spelling", LOOPBACK_SPELLINGS)
def test_ipv4_spellings_are_checked_as_the_address(proxy, upstream, spelling):
    line = assert_refused(proxy, upstream, lambda: connect(proxy, f"{spelling}:{upstream.port}"),
                          ("destination-address",), log_host="127.0.0.1")
    assert line["method"] == "CONNECT"
    # Boost.URL reads "http://127.0.0.1.:N/" as host 127.0.0.1, port 80, path ".:N/":
    # the Host header then disagrees. Either way it is refused, on the address it names.
    assert_refused(proxy, upstream, lambda: get(proxy, f"http://{spelling}:{upstream.port}/",
                                                f"{spelling}:{upstream.port}"),
                   ("destination-address", "host-mismatch"), log_host="127.0.0.1")


@pytest.mark.parametrize("spelling", ["127.0.0.256", "0x100000000", "1.2.3.4.5", "08.0.0.1", "0x", "127.0.0.0x1g"])
def test_invalid_ipv4_spellings_are_refused(proxy, upstream, spelling):
    # "127.0.0.0x1g" ends in a label that is not a number: it is a (not allowed) DNS name.
    assert_refused(proxy, upstream, lambda: connect(proxy, f"{spelling}:{upstream.port}"),
                   ("bad-host", "host-not-allowed"))


# IPv6 forms that carry loopback, link-local or metadata IPv4 addresses.
IPV6_TRICKS = ["[::1]", "[::ffff:127.0.0.1]", "[::ffff:7f00:1]", "[::127.0.0.1]", "[::ffff:0:127.0.0.1]",
               "[64:ff9b::127.0.0.1]", "[64:ff9b::a9fe:a9fe]", "[64:ff9b:1::7f00:1]", "[2002:7f00:1::1]",
               "[2002:a9fe:a9fe::]", "[2001:0:4136:e378:8000:63bf:80ff:fffe]", "[fe80::1]", "[fd00:ec2::254]",
               "[0:0:0:0:0:0:0:1]", "[::]", "[ff02::1]"]


@pytest.mark.parametrize("spelling", IPV6_TRICKS)
def test_ipv6_with_embedded_ipv4_is_refused(proxy, upstream, spelling):
    # IPv6 literals cannot be listed in egress, so the name check refuses them;
    # the address classification of each is covered by the policy unit tests.
    line = assert_refused(proxy, upstream, lambda: connect(proxy, f"{spelling}:{upstream.port}"),
                          ("host-not-allowed", "destination-address"))
    assert line["host"] == spelling.strip("[]").lower() or ":" in line["host"]
    assert_refused(proxy, upstream, lambda: get(proxy, f"http://{spelling}:{upstream.port}/", f"{spelling}:{upstream.port}"),
                   ("host-not-allowed", "destination-address"))


@pytest.mark.parametrize("host,why", [
    ("localhost", "loopback"), ("LOCALHOST.", "loopback"),
    ("169.254.169.254", "link-local"), ("0.0.0.0", "unspecified"), ("224.0.0.1", "multicast"),
])
def test_allowed_names_resolving_to_local_addresses_are_refused(proxy, upstream, host, why):
    line = assert_refused(proxy, upstream, lambda: connect(proxy, f"{host}:{upstream.port}"),
                          ("destination-address",))
    assert line["host"] == host.lower().rstrip(".")
    assert_refused(proxy, upstream, lambda: get(proxy, f"http://{host}:{upstream.port}/", f"{host}:{upstream.port}"),
                   ("destination-address",))


def test_a_named_port_is_the_only_port(proxy, upstream):
    for authority in [f"ported.test:{upstream.port}", "ported.test:443", "ported.test:8444", "ported.test"]:
        assert_refused(proxy, upstream, lambda: connect(proxy, authority), ("port-not-allowed",),
                       log_host="ported.test")
    for authority in ["ported.test:0", "ported.test:65536", "ported.test:-1", "ported.test:84a3",
                      "ported.test:", "ported.test:8443:8443"]:
        assert_refused(proxy, upstream, lambda: connect(proxy, authority), ("bad-host",))


def test_the_proxy_itself_is_refused(proxy, upstream):
    host, port = proxy.listen.rsplit(":", 1)
    # By address: loopback, and no alias exempts it.
    assert_refused(proxy, upstream, lambda: connect(proxy, f"127.0.0.1:{port}"), ("destination-address",))
    assert_refused(proxy, upstream, lambda: connect(proxy, f"localhost:{port}"), ("destination-address",))
    # Through a name aliased to loopback: the alias exempts the address, not the proxy's own port.
    cursor = LogCursor(proxy)
    status, head, _ = connect(proxy, f"upstream.test:{port}")
    assert status == 403, head
    line = cursor.wait(lambda l: l["outcome"] == "refused")[0]
    assert line["refusedBy"] == "destination-address"
    admin_port = proxy.admin.rsplit(":", 1)[1]
    status, head, _ = connect(proxy, f"upstream.test:{admin_port}")
    assert status == 403, head


# --- a wildcard name resolving to a private address (issue 41) ---------------------------
# The proxy runs in user, mount and network namespaces of its own (unshare -rmn: as root, or
# as a user where unprivileged user namespaces are allowed): an /etc/hosts of the test's gives
# real name resolution (getaddrinfo) private addresses without touching the machine's files,
# and its only network is its own loopback, which also holds 192.168.255.1: whatever the proxy
# decides, a dial never leaves the machine. It listens on Unix sockets the test reaches.

WILD_HOSTS = """127.0.0.1 localhost
10.255.255.1 deep.wild.test
100.64.255.1 cgnat.wild.test
192.168.255.1 named.wild.test
fd00::1 ula.wild.test
"""
WILD_NAMESPACES = ('ip link set lo up && ip addr add 192.168.255.1/32 dev lo && '
                   'mount --bind "$0" /etc/hosts && exec "$@"')


def proxy_with_hosts(tmp_path, spec):
    hosts = tmp_path / "hosts"
    hosts.write_text(WILD_HOSTS)
    probe = subprocess.run(["unshare", "-rmn", "sh", "-c", WILD_NAMESPACES, str(hosts), "true"],
                           capture_output=True)
    if probe.returncode != 0:
        pytest.skip("no user, mount and network namespace for this user: " + probe.stderr.decode().strip())
    proxy = Proxy(spec, str(tmp_path / "p"), args=["--upstream-timeout", "3"], start=False)
    proxy.unix = str(tmp_path / "p" / "proxy.sock")
    proxy.argv[proxy.argv.index("--listen") + 1] = "unix:" + proxy.unix
    proxy.argv[proxy.argv.index("--admin-listen") + 1] = "unix:" + str(tmp_path / "p" / "admin.sock")
    proxy.argv = ["unshare", "-rmn", "sh", "-c", WILD_NAMESPACES, str(hosts)] + proxy.argv  # each execs
    return proxy.start()  # the next: the proxy keeps the pid


def unix_exchange(proxy, data):
    with socket.socket(socket.AF_UNIX) as s:
        s.settimeout(15)
        s.connect(proxy.unix)
        s.sendall(data)
        return read_response(s)


@pytest.mark.parametrize("host", ["deep.wild.test", "cgnat.wild.test", "ula.wild.test"])
def test_a_wildcard_name_resolving_to_a_private_address_is_refused(tmp_path, host):
    spec = {"template": "debian:12", "egress": ["*.wild.test", "named.wild.test"]}
    proxy = proxy_with_hosts(tmp_path, spec)
    try:
        cursor = LogCursor(proxy)
        status, head, _ = unix_exchange(proxy, f"GET http://{host}:8080/x HTTP/1.1\r\nHost: {host}:8080\r\n"
                                                   "Connection: close\r\n\r\n".encode())
        assert status == 403, head
        assert b"X-Osf-Refused-By: destination-address" in head
        line = cursor.wait(lambda l: l["host"] == host)[0]
        assert line["outcome"] == "refused" and line["refusedBy"] == "destination-address"
        status, head, _ = unix_exchange(proxy, f"CONNECT {host}:443 HTTP/1.1\r\nHost: {host}:443\r\n\r\n".encode())
        assert status == 403 and b"destination-address" in head, head
        # The host the spec names itself may reach its private address (in-cluster
        # services): it is dialled (the namespace's loopback holds it; nothing listens
        # there: an error, not a refusal).
        status, head, _ = unix_exchange(proxy, b"GET http://named.wild.test:8080/x HTTP/1.1\r\n"
                                             b"Host: named.wild.test:8080\r\nConnection: close\r\n\r\n")
        assert status != 403, head
        line = cursor.wait(lambda l: l["host"] == "named.wild.test")[0]
        assert line["outcome"] == "error", line
    finally:
        proxy.stop()
