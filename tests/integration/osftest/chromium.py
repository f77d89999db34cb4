"""Debian's headless Chromium for tests of pages the project writes: a
screenshot and the DOM as the browser built it (`--dump-dom`), each run in a
new empty profile, offline, bounded in time, its whole process group ended
when it overruns. `unavailable()` says why Chromium cannot run here (the
tests then skip with that reason)."""
import os
import shutil
import signal
import subprocess
import tempfile
from html.parser import HTMLParser

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars"]


def binary():
    return shutil.which("chromium")


def _run(args, timeout):
    """Chromium with `args` in a new profile; (exit code, stdout, stderr)."""
    profile = tempfile.mkdtemp(prefix="osf-chromium-")
    proc = subprocess.Popen([binary(), *FLAGS, f"--user-data-dir={profile}", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # its own group: the zygote and renderers too
        out, err = proc.communicate()
        raise AssertionError(f"chromium ran over {timeout} s: {err.decode(errors='replace')[-2000:]}")
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    return proc.returncode, out.decode(errors="replace"), err.decode(errors="replace")


_probe = None


def unavailable():
    """None when Chromium renders a page here, else why not (one line)."""
    global _probe
    if _probe is None:
        if not binary():
            _probe = "chromium is not installed (apt-get install chromium)"
        else:
            with tempfile.TemporaryDirectory() as d:
                page = os.path.join(d, "probe.html")
                with open(page, "w") as f:
                    f.write("<!DOCTYPE html><p id=probe>rendered</p>")
                try:
                    code, out, err = _run(["--dump-dom", f"file://{page}"], 120)
                except AssertionError as e:
                    code, out, err = 1, "", str(e)
                lines = [line for line in err.splitlines() if line.strip()]
                _probe = "" if code == 0 and 'id="probe"' in out else \
                    f"chromium cannot render here (exit {code}): {lines[-1] if lines else 'no output'}"
    return _probe or None


def dump_dom(path, timeout=180):
    code, out, err = _run(["--dump-dom", f"file://{os.path.abspath(path)}"], timeout)
    assert code == 0, err[-2000:]
    return out


def screenshot(path, png, width, height, timeout=180):
    code, _, err = _run([f"--screenshot={png}", f"--window-size={width},{height}",
                         f"file://{os.path.abspath(path)}"], timeout)
    assert code == 0 and os.path.exists(png), err[-2000:]


class Element:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent, self.children = tag, dict(attrs), parent, []

    def text(self):
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def iter(self):
        yield self
        for c in self.children:
            if isinstance(c, Element):
                yield from c.iter()

    def find_all(self, tag):
        return [e for e in self.iter() if e.tag == tag]

    def by_id(self, id):
        return next((e for e in self.iter() if e.attrs.get("id") == id), None)


class _TreeBuilder(HTMLParser):
    VOID = {"meta", "br", "link", "img", "input", "hr", "area", "base", "col", "embed", "source",
            "track", "wbr", "param"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Element("#document", {}, None)
        self.at = self.root

    def handle_starttag(self, tag, attrs):
        e = Element(tag, attrs, self.at)
        self.at.children.append(e)
        if tag not in self.VOID:
            self.at = e

    def handle_startendtag(self, tag, attrs):
        self.at.children.append(Element(tag, attrs, self.at))

    def handle_endtag(self, tag):
        e = self.at
        while e is not None and e.tag != tag:
            e = e.parent
        if e is not None and e.parent is not None:
            self.at = e.parent

    def handle_data(self, data):
        self.at.children.append(data)


def parse(html):
    """The DOM Chromium serialised, as a tree of Element (tag, attrs, children)."""
    builder = _TreeBuilder()
    builder.feed(html)
    builder.close()
    return builder.root
