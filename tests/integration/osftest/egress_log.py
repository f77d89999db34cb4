"""The egress log's evidence format written again in Python, from
contracts/README.md ("Tamper evidence"), independently of the C++ writer and
verifier: builds signed logs for tests (canned adapter answers, examples) and
counts what a summary should say from raw lines."""
import base64
import hashlib
import json
import os
from collections import Counter, defaultdict

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def checkpoint_message(log_id, lines, time, chain, final) -> bytes:
    return ("osf-egress-log-checkpoint-v1\n"
            f"{log_id}\n{lines}\n{time}\n{chain}\n{'final' if final else 'interim'}\n").encode()


class SignedLog:
    """A run of the proxy, written line by line like the proxy writes it."""

    def __init__(self, time="2026-11-29T19:00:00.000Z", key=None, log_id=None):
        self.key = key or Ed25519PrivateKey.generate()
        self.log_id = log_id or os.urandom(16).hex()
        self.lines = []  # bytes, each ending in b"\n"
        self.run_lines = 0
        public = self.key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        self.chain = sha256_hex(self.log_id.encode())
        self._append({"time": time, "kind": "start", "logId": self.log_id,
                      "publicKey": base64.b64encode(public).decode()})

    @property
    def public_pem(self) -> str:
        return self.key.public_key().public_bytes(serialization.Encoding.PEM,
                                                  serialization.PublicFormat.SubjectPublicKeyInfo).decode()

    def _append(self, record):
        body = json.dumps(record, separators=(",", ":"))
        line = (body[:-1] + f',"chain":"{self.chain}"}}\n').encode()
        self.lines.append(line)
        self.chain = sha256_hex(line)
        self.run_lines += 1

    def request(self, record):
        self._append(record)

    def checkpoint(self, time="2026-11-29T19:10:00.000Z", final=False):
        lines = self.run_lines
        signature = self.key.sign(checkpoint_message(self.log_id, lines, time, self.chain, final))
        record = {"time": time, "kind": "checkpoint", "logId": self.log_id, "lines": lines}
        if final:
            record["final"] = True
        record["signature"] = base64.b64encode(signature).decode()
        self._append(record)

    def text(self) -> str:
        return b"".join(self.lines).decode()


def expected_summary(text: str) -> dict:
    """What `log summary --json` must count, from the raw lines."""
    requests = [json.loads(l) for l in text.splitlines() if l.strip()]
    requests = [r for r in requests if "kind" not in r]
    hosts = defaultdict(Counter)
    refusals, errors, secrets = Counter(), Counter(), Counter()
    called, refused, removed = defaultdict(Counter), defaultdict(Counter), Counter()
    for r in requests:
        n = r.get("count", 1)  # a folded line stands for `count` requests
        h = hosts[r["host"]]
        h["requests"] += n
        h[{"allowed": "allowed", "refused": "refused"}.get(r["outcome"], "errors")] += n
        h["bytesUp"] += r["bytesUp"]
        h["bytesDown"] += r["bytesDown"]
        if r["outcome"] == "refused":
            refusals[(r["refusedBy"], r["host"])] += n
        elif r["outcome"] != "allowed":
            errors[(r["error"], r["host"])] += n
        for s in r.get("secrets", []):
            secrets[(s, r["host"])] += n
        if "mcpServer" in r:
            removed[r["mcpServer"]] += r.get("toolsRemoved", 0)
            if "tool" in r:
                (refused if r["outcome"] == "refused" else called)[r["mcpServer"]][r["tool"]] += n
    times = sorted([r["time"] for r in requests] + [r["since"] for r in requests if "since" in r])
    def total(pick):
        return sum(r.get("count", 1) for r in requests if pick(r["outcome"]))
    return {
        "requests": {"total": total(lambda o: True),
                     "allowed": total(lambda o: o == "allowed"),
                     "refused": total(lambda o: o == "refused"),
                     "errors": total(lambda o: o not in ("allowed", "refused"))},
        "time": {"first": times[0], "last": times[-1]} if times else {},
        "hosts": {host: {k: c[k] for k in ("requests", "allowed", "refused", "errors", "bytesUp", "bytesDown")}
                  for host, c in hosts.items()},
        "refusals": dict(refusals), "errors": dict(errors), "secrets": dict(secrets),
        "mcp": {server: {"called": dict(called[server]), "refused": dict(refused[server]),
                         "toolsRemoved": removed[server]} for server in removed},
    }


def summary_as_expected(summary: dict) -> dict:
    """`log summary --json` output in expected_summary()'s shape."""
    return {
        "requests": summary["requests"],
        "time": summary["time"],
        "hosts": {h["host"]: {k: h[k] for k in ("requests", "allowed", "refused", "errors", "bytesUp", "bytesDown")}
                  for h in summary["hosts"]},
        "refusals": {(r["reason"], r["host"]): r["count"] for r in summary["refusals"]},
        "errors": {(r["error"], r["host"]): r["count"] for r in summary["errors"]},
        "secrets": {(r["secret"], r["host"]): r["count"] for r in summary["secrets"]},
        "mcp": {m["server"]: {"called": m["called"], "refused": m["refused"], "toolsRemoved": m["toolsRemoved"]}
                for m in summary["mcp"]},
    }


def display_label(name: str) -> str:
    """A name from the log as `log summary` and the HTML report show it (written again from
    contracts/egress_log/log_summary.hpp): bare when every character is printable ASCII other
    than space, `"`, `\\` and `;`, else quoted with `"` and `\\` escaped, control characters as
    `\\xNN` and every non-ASCII character as `\\u{X}`."""
    if name and all(0x20 < ord(c) < 0x7f and c not in '"\\;' for c in name):
        return name
    out = []
    for c in name:
        o = ord(c)
        if c in '"\\':
            out.append("\\" + c)
        elif o < 0x20 or o == 0x7f:
            out.append(f"\\x{o:02x}")
        elif o < 0x80:
            out.append(c)
        else:
            out.append(f"\\u{{{o:x}}}")
    return '"' + "".join(out) + '"'


def shown_name(name: str, max_chars: int = 512) -> str:
    """display_label() as the HTML report shows it: cut after `max_chars` characters (never
    inside an escape), then "… (N bytes)"."""
    shown = display_label(name)
    if len(shown) <= max_chars:
        return shown
    units, i = [], 0
    while i < len(shown):  # one escape or one character per unit
        if shown[i] == "\\" and i + 1 < len(shown):
            end = {"x": i + 4, "u": shown.find("}", i) + 1}.get(shown[i + 1], i + 2)
        else:
            end = i + 1
        units.append(shown[i:end])
        i = end
    kept = ""
    for unit in units:
        if len(kept) + len(unit) > max_chars:
            break
        kept += unit
    return kept + f"\u2026 ({len(name.encode())} bytes)"
