"""Real clients, run as subprocesses."""
import subprocess


def curl(proxy, url, *args, ca=None, timeout=30, check=False):
    """Runs curl through `proxy` (a Proxy) trusting its CA; returns CompletedProcess
    with stdout as text. `-w '\\n%{http_code}'` is appended so the last line is the status."""
    cmd = ["curl", "-sS", "--max-time", str(timeout), "--proxy", proxy.url,
           "--cacert", ca or proxy.ca_path, "-w", "\n%{http_code}", *args, url]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout + 10)
    if check and res.returncode != 0:
        raise AssertionError(f"curl failed: {res.stderr}")
    return res


def status_of(res) -> int:
    """The HTTP status printed by curl() (0 when there was none)."""
    return int(res.stdout.rsplit("\n", 1)[-1] or 0)


def body_of(res) -> str:
    return res.stdout.rsplit("\n", 1)[0]
