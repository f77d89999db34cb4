"""The reviewer's HTML report of an egress log (`egress-proxy log report`, `egress-log <ID>
--report` on both CLIs), from logs the built proxy wrote while a client chose hostile names:
the page as headless Chromium builds it (a screenshot of the expected size that is not blank,
the DOM read back) heads with verify's verdict word for word, shows the hosts and counts of
`log summary --json`, links each row to the lines it counts, and holds no element or event
handler a name could have injected. Where Chromium cannot run, the rendering tests skip with
the reason; the command's own behaviour is tested regardless."""
import json
import os
import subprocess

import pytest

from osftest import chromium
from osftest.chromium import Element
from osftest.egress_log import display_label, shown_name
from osftest.proxy import run_proxy
from test_bypass_mcp import call, post
from test_bypass_smuggling import LogCursor, exchange
from test_egress_log import API, MCP, servers, start, traffic  # noqa: F401 (servers: a fixture)

WIDTH, HEIGHT = 1280, 2000
# Names a sandbox chooses: as MCP tools (any string) and as CONNECT targets (one word).
HOSTILE_TOOLS = [
    "<script>alert(1)</script>",
    "\"><img src=x onerror=alert(1)>",
    "' onmouseover='alert(1)' x='",
    "</svg></td></tr></table><iframe src=javascript:alert(1)>",
    "x\x1b[2J\x1b[1;1Htools: search called 99",
    "w\u202e search called 4",
    "t" * 1500,
]
HOSTILE_HOSTS = [
    "<script>alert(1)</script>",
    "\"><img/src=x/onerror=alert(1)>",
    "</svg><svg/onload=alert(1)>",
    "\u202etset.elpmaxe.ipa",
    "a" * 2000 + ".test",
]
# Every element the report may hold: anything else was injected.
PAGE_ELEMENTS = {"#document", "html", "head", "meta", "title", "style", "body", "header", "p", "pre",
                 "code", "main", "section", "h2", "table", "tbody", "tr", "th", "td", "a", "em", "span",
                 "br", "svg", "g", "rect", "text", "line", "footer"}

needs_chromium = pytest.mark.skipif(chromium.unavailable() is not None,
                                    reason=chromium.unavailable() or "")


def report(*args):
    run = run_proxy(["log", "report", *args], timeout=120)
    return run.returncode, run.stdout, run.stderr


def verify(*args):
    run = run_proxy(["log", "verify", *args], timeout=120)
    return run.returncode, run.stdout + run.stderr


def summary_json(*args):
    return json.loads(run_proxy(["log", "summary", "--json", *args], timeout=120).stdout)


def rows(dom, section):
    """The cells' texts of each row of the table in <section id=section>."""
    out = []
    for tr in dom.by_id(section).find_all("tr"):
        cells = [c for c in tr.children if isinstance(c, Element) and c.tag in ("td", "th")]
        out.append([c.text() for c in cells])
    return out


def number(n):
    return f"{n:,}"


def assert_nothing_injected(dom):
    tags = {e.tag for e in dom.iter()}
    assert tags <= PAGE_ELEMENTS, tags - PAGE_ELEMENTS
    assert len(dom.find_all("svg")) == 1
    for e in dom.iter():
        handlers = [a for a in e.attrs if a.lower().startswith("on")]
        assert not handlers, (e.tag, e.attrs)
        for a in ("href", "src", "xlink:href"):
            assert not e.attrs.get(a) or e.attrs[a].startswith("#L"), (e.tag, e.attrs)
    csp = [m.attrs["content"] for m in dom.find_all("meta") if m.attrs.get("http-equiv") == "Content-Security-Policy"]
    assert len(csp) == 1 and csp[0].startswith("default-src 'none'; style-src 'sha256-"), csp


def check_screenshot(page, png, banner_rgb):
    from PIL import Image  # python3-pil; only where Chromium runs

    chromium.screenshot(page, png, WIDTH, HEIGHT)
    with Image.open(png) as image:
        assert image.format == "PNG" and image.size == (WIDTH, HEIGHT)
        rgb = image.convert("RGB")
        colours = rgb.getcolors(maxcolors=WIDTH * HEIGHT)
        assert len(colours) > 50, "a blank or nearly blank screenshot"
        # The verdict banner, top left, in the verdict's colour.
        assert rgb.getpixel((4, 4)) == banner_rgb
        # The timeline's bars: the allowed colour and the refused colour are drawn.
        seen = {c for _, c in colours}
        assert (0x4a, 0x78, 0xb5) in seen and (0xc6, 0x28, 0x28) in seen


@pytest.fixture(scope="module")
def hostile_log(servers, tmp_path_factory):  # noqa: F811
    """A log the proxy wrote while a client chose hostile tool and host names; ended by the
    final checkpoint."""
    _, _, mcp = servers
    proxy = start(servers, tmp_path_factory.mktemp("report-proxy"), "--checkpoint-lines", "7")
    try:
        traffic(servers, proxy)
        cursor = LogCursor(proxy)
        for name in HOSTILE_TOOLS:
            status, head, body = post(proxy, mcp, MCP, "/mcp", json.dumps(call(name)))
            assert status == 200 and b"-32602" in body, head + body
        for host in HOSTILE_HOSTS:
            status, _, _ = exchange(proxy, f"CONNECT {host}:443 HTTP/1.1\r\nHost: x\r\n\r\n".encode())
            assert status in (400, 403)
        cursor.wait(lambda _: len(cursor.new()) >= len(HOSTILE_TOOLS) + len(HOSTILE_HOSTS))
    finally:
        assert proxy.stop() == 0
    return proxy.log_path, os.path.join(proxy.state_dir, "log-key.pub"), proxy.state_dir


def test_the_command_writes_the_page_and_exits_as_verify_does(hostile_log, tmp_path):
    log, key, state_dir = hostile_log
    page = tmp_path / "report.html"
    assert report("--pubkey", key, log, "-o", str(page)) == (0, "", "")
    html = page.read_text()
    assert html.startswith("<!DOCTYPE html>") and "<script" not in html
    # --state-dir names the directory (its egress.jsonl) or the log itself; -o - is stdout.
    code, out, err = report("--pubkey", key, "--state-dir", state_dir, "-o", "-")
    assert code == 0 and err == "" and out == html.replace(log, os.path.join(state_dir, "egress.jsonl"))
    assert report("--pubkey", key, "--state-dir", log, "-o", "-")[1] == html
    # A log that does not verify: the page is written, verify's words go to stderr, exit 1.
    lines = open(log, "rb").read().split(b"\n")[:-1]
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b"".join(l + b"\n" for l in lines[:3] + lines[4:]))
    code, out, err = report("--pubkey", key, str(bad), "-o", str(tmp_path / "bad.html"))
    assert code == 1 and out == ""
    assert err == verify("--pubkey", key, str(bad))[1] and err.startswith(f"{bad}:4: line 4 does not follow")
    assert "NOT VERIFIED" in (tmp_path / "bad.html").read_text()
    # Usage errors: exit 2 with one line, nothing written.
    assert report(log)[0] == 2  # no -o
    assert report(str(tmp_path / "missing.jsonl"), "-o", str(tmp_path / "x.html"))[::2] == \
        (2, f"egress-proxy: cannot read {tmp_path / 'missing.jsonl'}\n")
    assert report(log, "-o", str(tmp_path / "no" / "such" / "dir.html"))[::2] == \
        (2, f"egress-proxy: cannot write {tmp_path / 'no' / 'such' / 'dir.html'}\n")
    assert report("--pubkey", log, log, "-o", str(tmp_path / "y.html"))[0] == 2
    assert not (tmp_path / "x.html").exists() and not (tmp_path / "y.html").exists()


@needs_chromium
def test_chromium_shows_the_verdict_hosts_and_counts_and_no_injected_element(hostile_log, tmp_path):
    log, key, _ = hostile_log
    page = tmp_path / "report.html"
    assert report("--pubkey", key, log, "-o", str(page))[0] == 0
    dom = chromium.parse(chromium.dump_dom(page))
    assert_nothing_injected(dom)

    # The verdict, first, in the words of verify.
    code, said = verify("--pubkey", key, log)
    assert code == 0
    verdict = dom.by_id("verdict")
    assert verdict.attrs["class"] == "verdict ok"
    body = dom.find_all("body")[0]
    assert next(c for c in body.children if isinstance(c, Element)) is verdict
    assert verdict.find_all("p")[0].text() == "VERIFIED"
    assert dom.by_id("verify").text() == said
    assert dom.find_all("head")[0].find_all("title")[0].text() == f"VERIFIED: egress log report of {log}"

    # The hosts table says what `log summary --json` counts, names as the summary shows them.
    summary = summary_json("--pubkey", key, log)
    hosts = rows(dom, "hosts")
    assert hosts[0] == ["requests", "allowed", "refused", "failed", "bytes up", "bytes down", "host", "lines"]
    shown = {r[6]: r[:6] for r in hosts[1:]}
    assert len(shown) == len(summary["hosts"])
    for h in summary["hosts"]:
        label = shown_name(h["host"]) if h["host"] else "(no host)"
        assert shown[label] == [number(h[k]) for k in ("requests", "allowed", "refused", "errors",
                                                       "bytesUp", "bytesDown")], label
    for host in HOSTILE_HOSTS:
        logged = host if len(host) <= 1024 else host[:1019] + "[cut]"
        assert shown_name(logged) in shown, logged
    assert '"\\u{202e}tset.elpmaxe.ipa"' in shown
    # Refused tools, one row each, with the summary's display rule.
    tools = {(r[0], r[1]): r[2:5] for r in rows(dom, "mcp")[1:]}
    for name in HOSTILE_TOOLS:
        logged = name if len(name.encode()) <= 1024 else name[:1019] + "[cut]"
        assert tools[("tools", shown_name(logged))] == ["0", "1", "0"], name
    assert tools[("tools", "search")] == ["2", "0", "0"]  # a name did not add calls to it
    assert tools[("tools", '"x\\x1b[2J\\x1b[1;1Htools: search called 99"')] == ["0", "1", "0"]
    # Refusals by reason and host: every refused line is counted once.
    refusals = rows(dom, "refusals")[1:]
    assert sum(int(r[0].replace(",", "")) for r in refusals) == summary["requests"]["refused"]

    # Each row's links lead to lines shown at the end, and those are the host's lines.
    ids = {e.attrs["id"]: e for e in dom.iter() if e.attrs.get("id", "").startswith("L")}
    raw = open(log, encoding="utf-8").read().splitlines()
    for tr in dom.by_id("hosts").find_all("tr")[1:]:
        cells = [c for c in tr.children if isinstance(c, Element)]
        links = cells[-1].find_all("a")
        assert links, cells[6].text()
        for a in links:
            line = int(a.attrs["href"][2:])
            assert a.attrs["href"][1:] in ids
            logged = json.loads(raw[line - 1])["host"]
            assert (shown_name(logged) if logged else "(no host)") == cells[6].text()
    # The timeline: one lane per host here (fewer than twelve), refusals marked.
    svg = dom.find_all("svg")[0]
    lanes = [g for g in svg.find_all("g") if g.attrs.get("class") == "lane"]
    assert len(lanes) == len(summary["hosts"])
    assert any(r.attrs.get("fill") == "#c62828" and r.attrs.get("height") == "3.0" for r in svg.find_all("rect"))

    check_screenshot(page, str(tmp_path / "report.png"), (0xe6, 0xf4, 0xea))


@needs_chromium
def test_a_tampered_log_is_headed_not_verified_in_red(hostile_log, tmp_path):
    log, key, _ = hostile_log
    lines = open(log, "rb").read().split(b"\n")[:-1]
    bad = tmp_path / "tampered.jsonl"
    at = next(i for i, l in enumerate(lines) if b'"path":"/plain"' in l)  # someone edits a path
    edited = list(lines)
    edited[at] = lines[at].replace(b'"/plain"', b'"/other"')
    bad.write_bytes(b"".join(l + b"\n" for l in edited))
    page = tmp_path / "tampered.html"
    code, _, err = report("--pubkey", key, str(bad), "-o", str(page))
    assert code == 1
    dom = chromium.parse(chromium.dump_dom(page))
    assert_nothing_injected(dom)
    verdict = dom.by_id("verdict")
    assert verdict.attrs["class"] == "verdict bad"
    assert verdict.find_all("p")[0].text() == "NOT VERIFIED"
    assert dom.by_id("verify").text() == err == verify("--pubkey", key, str(bad))[1]
    n = at + 2  # the line after the edited one no longer follows it
    assert verdict.find_all("p")[1].text().startswith(f"line {n}: line {n} does not follow line {n - 1}")
    check_screenshot(page, str(tmp_path / "tampered.png"), (0xb0, 0x00, 0x20))


# --- both CLIs: egress-log <ID> --report, and a log saved by destroy --save-log ----------------

def report_dom(path):
    """The page's DOM as Chromium builds it where it runs, else as the file holds it."""
    with open(path, encoding="utf-8") as f:
        html = f.read()
    assert "<script" not in html
    return chromium.parse(chromium.dump_dom(path) if chromium.unavailable() is None else html)


def check_adapter_report(path, verify_said, log_text, css_class="verdict ok"):
    dom = report_dom(path)
    assert_nothing_injected(dom)
    assert dom.by_id("verdict").attrs["class"] == css_class
    assert dom.by_id("verify").text() == verify_said
    requests = [json.loads(l) for l in log_text.splitlines() if "kind" not in json.loads(l)]
    hosts = {r[6]: r[0] for r in rows(dom, "hosts")[1:]}
    for host in {r["host"] for r in requests}:
        assert hosts[display_label(host)] == number(sum(r["host"] == host for r in requests))
    return dom


@pytest.fixture(scope="module")
def kube_adapter():
    """test_adapter's test API server and helpers (imported here only when this test runs)."""
    import test_adapter
    if not os.path.exists(test_adapter.ADAPTER):
        pytest.skip(f"{test_adapter.ADAPTER} is not built")
    return test_adapter


def test_sandbox_kubernetes_egress_log_report(kube_adapter, pinned_kubectl, tmp_path_factory, tmp_path):
    t = kube_adapter
    from kube_api_fixture import KubeApiServer
    with KubeApiServer(tmp_path_factory.mktemp("report-kube-api")) as kube:
        kube.set_exec(handlers=t.EXEC_HANDLERS)
        sandbox, _ = t.create(kube, tmp_path, {"template": "node:24-alpine"})
        page = tmp_path / "report.html"
        result = t.adapter(kube, "egress-log", sandbox, "--report", str(page), check=0)
        assert result.stdout == "" and result.stderr == ""
        said = t.adapter(kube, "egress-log", sandbox, "--verify", check=0).stdout
        dom = check_adapter_report(page, said, t.EGRESS_LOG)
        assert said.startswith(f"egress log of {sandbox}: verified: 7 lines") and "by the given key" in said
        tools = {(r[0], r[1]): r[2:4] for r in rows(dom, "mcp")[1:]}
        assert tools == {("wiki", "search"): ["1", "0"], ("wiki", "delete_page"): ["0", "1"]}
        # To standard output, and options that do not combine with it.
        assert t.adapter(kube, "egress-log", sandbox, "--report", "-", check=0).stdout == page.read_text()
        for other in (["--verify"], ["--summary"], ["--follow"], ["--json"]):
            t.adapter(kube, "egress-log", sandbox, "--report", str(tmp_path / "x.html"), *other, check=2)
        result = t.adapter(kube, "egress-log", sandbox, "--report", str(tmp_path / "no" / "x.html"), check=2)
        assert result.stderr == f"sandbox-kubernetes: cannot write {tmp_path / 'no' / 'x.html'}\n"
        # A log that does not verify against the key create stored: exit 1, written anyway.
        lines = t.EGRESS_LOG.splitlines(keepends=True)
        t.set_log(kube, "".join(lines[:2] + lines[3:]))
        result = t.adapter(kube, "egress-log", sandbox, "--report", str(page), check=1)
        said = t.adapter(kube, "egress-log", sandbox, "--verify", check=1).stderr
        assert result.stderr == said and said.startswith(f"egress log of {sandbox}:3: line 3 does not follow")
        dom = report_dom(page)
        assert dom.by_id("verdict").attrs["class"] == "verdict bad"
        assert dom.by_id("verify").text() == said


@pytest.fixture(scope="module")
def local_cli():
    """test_local_lifetime's sandbox-local fixtures (bubblewrap, the built CLIs)."""
    import shutil
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap is not installed")
    import test_local_lifetime
    return test_local_lifetime


def test_sandbox_local_egress_log_report_and_a_saved_log(local_cli, tmp_path):
    t = local_cli
    import tempfile
    from osftest import TestCA, Upstream
    from test_local_sandbox import local_state, spec_for
    with tempfile.TemporaryDirectory(prefix="osrp-ca-") as d:
        ca = TestCA(d)
        with Upstream(ca, ["allowed.test", "tools.test", "refused.test"]) as upstream, \
                local_state(ca, "osrp-") as local:
            sandbox_id = local.create(spec_for(upstream), name="report.json")
            try:
                assert t.request_through(local, sandbox_id, upstream, "allowed.test", "/report-a") == "200"
                assert t.request_through(local, sandbox_id, upstream, "refused.test", "/report-b") == "403"
                page = tmp_path / "report.html"
                res = local.run("egress-log", sandbox_id, "--report", str(page))
                assert res.returncode == 0 and res.stdout == "" and res.stderr == "", res.stderr
                said = local.run("egress-log", sandbox_id, "--verify").stdout
                assert "by the given key" in said
                check_adapter_report(page, said, t.read_log(local, sandbox_id))
                # destroy --save-log, then the report of the saved copy with its key.
                saved = tmp_path / "saved.jsonl"
                assert local.run("destroy", sandbox_id, "--save-log", str(saved)).returncode == 0
                code, out, err = report("--pubkey", f"{saved}.pub", str(saved), "-o", str(tmp_path / "saved.html"))
                assert (code, out, err) == (0, "", "")
                said = verify("--pubkey", f"{saved}.pub", str(saved))[1]
                assert "by the given key" in said
                check_adapter_report(tmp_path / "saved.html", said, saved.read_text())
            finally:
                local.run("destroy", sandbox_id)
