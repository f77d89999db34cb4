"""The sandbox spec's two validators agree: ajv (the JSON Schema,
contracts/sandbox-spec.schema.json) and osf-spec-check (the C++ validator both
programs use) give the same verdict on every example in contracts/examples and
on a generated corpus of near misses; the egress log examples match
contracts/egress-log.schema.json; osf-spec-check behaves as its usage says."""

import json
import os
import random
import subprocess
import tempfile
from pathlib import Path

import pytest

REPO = Path(os.environ.get("OSF_REPO", Path(__file__).resolve().parents[2]))
SPEC_CHECK = os.environ.get("SPEC_CHECK_BIN", "")
AJV_DIR = REPO / "tests" / "tools" / "ajv"
AJV = AJV_DIR / "node_modules" / ".bin" / "ajv"
SPEC_SCHEMA = REPO / "contracts" / "sandbox-spec.schema.json"
LOG_SCHEMA = REPO / "contracts" / "egress-log.schema.json"
EXAMPLES = REPO / "contracts" / "examples"
TIMEOUT = 300


@pytest.fixture(scope="module", autouse=True)
def tools_present():
    assert SPEC_CHECK and Path(SPEC_CHECK).is_file(), "SPEC_CHECK_BIN must name the built osf-spec-check"
    assert AJV.exists(), f"ajv is not installed: run `npm ci` in {AJV_DIR}"


def ajv_verdicts(schema, data_glob):
    """{absolute file: True when valid} from one ajv-cli run over a glob."""
    # Into files, not pipes: ajv-cli calls process.exit(), which cuts piped output short.
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        run = subprocess.run(
            [str(AJV), "validate", "--spec=draft2020", "-c", "ajv-formats", "-c", "ajv-keywords",
             "--errors=line", "-s", str(schema), "-d", data_glob],
            cwd=AJV_DIR, stdout=out, stderr=err, timeout=TIMEOUT)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    assert run.returncode in (0, 1), f"ajv failed to run:\n{stderr}"
    verdicts = {}
    for line in (stdout + stderr).splitlines():
        for word, valid in ((" valid", True), (" invalid", False)):
            if line.endswith(word) and not line.startswith("["):
                verdicts[str(Path(line[: -len(word)]).resolve())] = valid
    return verdicts


def spec_check_verdicts(files):
    """{absolute file: True when valid} and the error lines, from one osf-spec-check run."""
    run = subprocess.run([SPEC_CHECK, *map(str, files)], capture_output=True, text=True, timeout=TIMEOUT)
    assert run.returncode in (0, 1), f"osf-spec-check failed to run:\n{run.stderr}"
    verdicts, errors = {}, {}
    for line in run.stdout.splitlines():
        name, _, rest = line.partition(": ")
        key = str(Path(name).resolve())
        if rest == "ok":
            verdicts[key] = True
        else:
            verdicts[key] = False
            errors.setdefault(key, []).append(rest)
    expected_rc = 0 if all(verdicts.values()) else 1
    assert run.returncode == expected_rc
    return verdicts, errors


def example_files(kind):
    files = sorted((EXAMPLES / kind).glob("*.json"))
    assert files, f"no examples in {EXAMPLES / kind}"
    return files


@pytest.mark.parametrize("kind,expected", [("valid", True), ("invalid", False)])
def test_examples_get_the_verdict_of_their_directory_from_both_validators(kind, expected):
    files = example_files(kind)
    ajv = ajv_verdicts(SPEC_SCHEMA, str(EXAMPLES / kind / "*.json"))
    cpp, errors = spec_check_verdicts(files)
    for file in files:
        key = str(file.resolve())
        assert key in ajv, f"ajv gave no verdict on {file.name}"
        assert key in cpp, f"osf-spec-check gave no verdict on {file.name}"
        assert ajv[key] == expected, f"ajv says {file.name} is {'valid' if ajv[key] else 'invalid'}"
        assert cpp[key] == expected, f"osf-spec-check says {file.name} is {'valid' if cpp[key] else 'invalid'}"
        for error in errors.get(key, []):
            assert error.startswith("$"), f"{file.name}: error without a JSONPath: {error}"


def test_counts_of_examples():
    assert len(example_files("valid")) >= 5
    assert len(example_files("invalid")) >= 18


def test_each_invalid_example_has_exactly_one_mistake():
    _, errors = spec_check_verdicts(example_files("invalid"))
    for file, lines in errors.items():
        assert len(lines) == 1, f"{Path(file).name} has {len(lines)} errors: {lines}"


# ---------------------------------------------------------------------------
# A corpus of near misses: each value alone in an otherwise valid spec.

EGRESS = [
    "example.com", "EXAMPLE.com", "example.com.", "example.com..", ".example.com", "example..com",
    "a", "localhost", "a-b.c", "-a.c", "a-.c", "a_b.c", "a b.c", "a.b.c.d.e.f.g", "x.y:1", "x.y:65535",
    "x.y:65536", "x.y:0", "x.y:00", "x.y:080", "x.y:", "x.y:1:2", "x.y:-1", "x.y: 80", "x.y:+80",
    "*.example.com", "*.example.com.", "*.example.com:443", "*.com", "*.com.", "*", "*.", "*.*.com",
    "**.x.com", "*x.com", "a.*.com", "x.*", "*.x-y.z", "*.1.2.3.4", "*.example.123", "*.a1",
    "1.2.3.4", "1.2.3.4:80", "1.2.3.4.", "0.0.0.0", "255.255.255.255", "256.1.1.1", "01.2.3.4",
    "1.2.3", "1.2.3.4.5", "123", "1.2.3.a", "a.123", "example.1com", "1-2", "0x7f.0.0.1",
    "https://x.com", "http://x.com:80/", "x.com/", "x.com/a", "x.com?q", "x.com#f", "u@x.com",
    "[::1]", "[::1]:443", "::1", "x.com\t", " x.com", "bücher.de", "xn--bcher-kva.de", "",
    "a" * 63 + ".com", "a" * 64 + ".com", ".".join(["a" * 63] * 3) + "." + "b" * 61,
    ".".join(["a" * 63] * 3) + "." + "b" * 61 + ".", ".".join(["a" * 63] * 3) + "." + "b" * 62,
    ".".join(["a" * 63] * 3) + "." + "b" * 61 + ":443", "*." + ".".join(["a" * 63] * 3) + "." + "b" * 59,
    "*." + ".".join(["a" * 63] * 3) + "." + "b" * 60,
]
CPU = [2, 0.5, 0.001, 0.0009, 0, -1, 1e3, 2.50, "2", "0.5", "500m", "0m", "0", "1.5", "1.234", "1.2345",
       "1e3", ".5", "1.", "01", "007m", " 1", "1m ", "1M", "1k", "0.000", "0.001", "0.0001", "1000000",
       "-1", "+1", "", True, None, [], {}, "9" * 32, "9" * 33]
MEMORY = ["4Gi", "512Mi", "1G", "1.5Gi", "0", "0Gi", "0.0Gi", "4GB", "4gi", "1.", "1e9", "1Ki", "1K", "1k",
          "1m", "", "10", "00", "0.5", "1Ei", "1EiB", "1 Gi", "Gi", "1.5.1Gi", "1Mi ", 4096, None,
          "9" * 32, "9" * 33]
TEMPLATES = ["node:24-alpine", "python-dev", "a", "A", "a.b", "a..b", "-a", "a-", "a_b", "a b:1", "x/y",
             "@", ":", "a" * 253, "a" * 254, "a/" + "b" * 1022, "a/" + "b" * 1023, "é/x", "", 1, None]
ENV_NAMES = ["CI", "ci", "_", "_1", "1A", "A-B", "A.B", "", "A B", "HTTP_PROXY", "http_proxy", "Http_Proxy",
             "NO_PROXY", "GIT_SSL_CAINFO", "A" * 128, "A" * 129, "é"]
ENV_VALUES = ["", "x", "a\u0000b", "é✓", "x" * 32768, "x" * 32769, 1, True, None, ["x"]]
SECRET_NAMES = ["TOKEN", "token", "_T", "1T", "T-1", "", "HTTPS_PROXY", "T" * 128, "T" * 129]
SECRET_REFS = [
    "ref:env/A", "ref:env/a", "ref:env/", "ref:env/1A", "ref:env/A-B", "ref:file/a", "ref:file/.a",
    "ref:file/.", "ref:file/..", "ref:file/...", "ref:file/", "ref:file/a/b", "ref:file/a b",
    "ref:file/" + "a" * 255, "ref:file/" + "a" * 256, "ref:openbao/a", "ref:openbao/a/b/c", "ref:openbao/",
    "ref:openbao//a", "ref:openbao/a/", "ref:openbao/a//b", "ref:openbao/../a", "ref:openbao/a/..",
    "ref:openbao/a/./b", "ref:openbao/.a/..b", "ref:openbao/a:b", "ref:openbao/" + "a" * 1012,
    "ref:openbao/" + "a" * 1013, "ref:vault/a", "ref:", "ref:ENV/A", "REF:env/A", "plain-value", "", 1,
]
URLS = [
    "https://w.com", "http://w.com", "https://w.com/", "https://w.com/mcp", "https://W.COM./mcp",
    "https://w.com:8443/mcp", "https://w.com:0/", "https://w.com:65536/", "https://w.com:/", "https://w.com:08/",
    "https://w.com?x", "https://w.com/a?b=c&d=%20", "https://w.com/a?b?c", "https://w.com/%7e", "https://w.com/%7",
    "https://w.com/%zz", "https://w.com/a b", "https://w.com/a|b", "https://w.com/a#f", "https://w.com#",
    "https://u@w.com/", "https://u:p@w.com/", "https://", "https:///x", "https://*.w.com/", "https://[::1]/",
    "https://1.2.3.4:80/x", "https://1.2.3/", "https://w_x.com/", "ftp://w.com", "HTTPS://w.com", "w.com",
    "//w.com", "https:/w.com", "https://w.com/é", "https://w.com/" + "a" * 2028, "https://w.com/" + "a" * 2035,
    "https://w.com/a\\b", "https://w.com/a;b=c,d(e)*+!$'@:", "https://w.com/a[b]",
]
PATH_PATTERNS = ["/", "/a", "/a/", "/a/*", "/*", "/a/*/b", "/a/*/", "*", "a", "", "//", "/a//b", "/.", "/..", "/a/.",
                 "/a/../b", "/...", "/a.b", "/a*", "/*a", "/a/**", "/%20", "/a b", "/a?b", "/a#b", "/a\\b", "/é",
                 "/~user/x", "/a:b@c;d=e,f+g!h$i&j'k(l)", "/a/" + "b" * 1021, "/a/" + "b" * 1022, 1, None]
METHODS = [["GET"], ["get"], ["Get"], [], ["GET", "GET"], ["M-SEARCH"], ["-X"], ["G" * 32], ["G" * 33], ["GET", 1],
           "read-only", "readonly", "GET", 1, None, [f"M{i}" for i in range(16)], [f"M{i}" for i in range(17)]]
QUERIES = [{"service": "git-upload-pack"}, {}, {"a": ""}, {"": "a"}, {"a&b": "c"}, {"a": "b=c"}, {"a": "%20"},
           {"a": "b c"}, {"a": 1}, {"a/?:@": "b/?:@"}, {f"p{i}": "v" for i in range(8)},
           {f"p{i}": "v" for i in range(9)}, [], "service=x"]
RULE_SHAPES = [{"allow": True}, {"deny": True}, {"allow": False}, {"deny": False}, {"allow": True, "deny": True}, {},
               {"allow": 1}, {"allow": True, "name": "r-1"}, {"allow": True, "name": "R"}, {"allow": True, "name": "-r"},
               {"allow": True, "reason": "x"}, {"allow": True, "reason": ""}, {"allow": True, "reason": "a\nb"},
               {"allow": True, "reason": "x" * 512}, {"allow": True, "reason": "x" * 513}, {"allow": True, "extra": 1}]
ENTRY_SHAPES = [{"host": "a.com", "rules": [{"allow": True}]}, {"host": "a.com", "rules": []}, {"host": "a.com"},
                {"rules": [{"allow": True}]}, {"host": "a.com/x", "rules": [{"allow": True}]},
                {"host": "a.com", "rules": [{"allow": True}], "mode": "audit"},
                {"host": "a.com", "rules": [{"allow": True}], "mode": "warn"},
                {"host": "a.com", "rules": [{"allow": True}], "reason": "r"},
                {"host": "a.com", "rules": [{"allow": True}], "other": 1}, {"host": 1, "rules": [{"allow": True}]},
                {"host": "a.com", "rules": {"allow": True}}, {"host": "a.com", "rules": [{"allow": True}] * 257}]
TOOLS = ["search", "", "a b", "a\nb", "é", "x" * 128, "x" * 129, 1, None, "\u007f"]
MCP_NAMES = ["wiki", "Wiki", "w-1", "-w", "w-", "0", "a" * 63, "a" * 64, "w_x", "", 1]


def corpus():
    """(name, document) pairs, one doubtful value each."""
    base = {"template": "node:24-alpine"}
    docs = []
    for i, entry in enumerate(EGRESS):
        docs.append((f"egress-{i}", {**base, "egress": [entry]}))
    for i, cpu in enumerate(CPU):
        docs.append((f"cpu-{i}", {**base, "cpu": cpu}))
    for i, memory in enumerate(MEMORY):
        docs.append((f"memory-{i}", {**base, "memory": memory}))
    for i, template in enumerate(TEMPLATES):
        docs.append((f"template-{i}", {"template": template}))
    for i, name in enumerate(ENV_NAMES):
        docs.append((f"env-name-{i}", {**base, "env": {name: "x"}}))
    for i, value in enumerate(ENV_VALUES):
        docs.append((f"env-value-{i}", {**base, "env": {"V": value}}))
    for i, name in enumerate(SECRET_NAMES):
        docs.append((f"secret-name-{i}", {**base, "secrets": {name: "ref:env/X"}}))
    for i, ref in enumerate(SECRET_REFS):
        docs.append((f"secret-ref-{i}", {**base, "secrets": {"S": ref}}))
    for i, url in enumerate(URLS):
        docs.append((f"url-{i}", {**base, "mcp": [{"name": "w", "url": url, "tools": []}]}))
    for i, tool in enumerate(TOOLS):
        docs.append((f"tool-{i}", {**base, "mcp": [{"name": "w", "url": "https://w.com", "tools": [tool]}]}))
    for i, name in enumerate(MCP_NAMES):
        docs.append((f"mcp-name-{i}", {**base, "mcp": [{"name": name, "url": "https://w.com", "tools": []}]}))
    for i, pattern in enumerate(PATH_PATTERNS):
        docs.append((f"rule-path-{i}", {**base, "egress": [{"host": "a.com", "rules": [
            {"paths": [pattern], "allow": True}]}]}))
    for i, methods in enumerate(METHODS):
        docs.append((f"rule-methods-{i}", {**base, "egress": [{"host": "a.com", "rules": [
            {"methods": methods, "allow": True}]}]}))
    for i, query in enumerate(QUERIES):
        docs.append((f"rule-query-{i}", {**base, "egress": [{"host": "a.com", "rules": [
            {"query": query, "allow": True}]}]}))
    for i, rule in enumerate(RULE_SHAPES):
        docs.append((f"rule-shape-{i}", {**base, "egress": [{"host": "a.com", "rules": [rule]}]}))
    for i, entry in enumerate(ENTRY_SHAPES):
        docs.append((f"entry-shape-{i}", {**base, "egress": [entry]}))
    for i, mode in enumerate(["audit", "enforce", "Audit", "", 1, None]):
        docs.append((f"mode-{i}", {**base, "mode": mode}))
    # Random near misses: host-like and URL-like strings from risky pieces.
    pieces = ["a", "b", "Z", "1", "0", "9", "-", ".", "*", ":", "/", "?", "#", "@", "_", "%", "%2f", "255",
              "256", "example", "com", "80", "65535", "65536", "..", "*.", "xn--"]
    rng = random.Random(20261129)
    for i in range(400):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 8)))
        docs.append((f"random-egress-{i}", {**base, "egress": [text]}))
        docs.append((f"random-url-{i}", {**base, "mcp": [{"name": "w", "url": "https://" + text, "tools": []}]}))
    # Structure: duplicates that JSON Schema sees (uniqueItems, uniqueItemProperties).
    docs.append(("dup-egress", {**base, "egress": ["a.com", "a.com"]}))
    docs.append(("case-dup-egress", {**base, "egress": ["a.com", "A.com"]}))
    docs.append(("dup-tools", {**base, "mcp": [{"name": "w", "url": "https://w.com", "tools": ["t", "t"]}]}))
    docs.append(("dup-mcp-url", {**base, "mcp": [{"name": "w", "url": "https://w.com", "tools": []},
                                                 {"name": "v", "url": "https://w.com", "tools": []}]}))
    docs.append(("too-many-egress", {**base, "egress": [f"h{i}.com" for i in range(257)]}))
    docs.append(("most-egress", {**base, "egress": [f"h{i}.com" for i in range(256)]}))
    docs.append(("too-many-tools", {**base, "mcp": [{"name": "w", "url": "https://w.com",
                                                     "tools": [f"t{i}" for i in range(257)]}]}))
    docs.append(("too-many-mcp", {**base, "mcp": [{"name": f"w{i}", "url": f"https://w{i}.com", "tools": []}
                                                  for i in range(33)]}))
    docs.append(("too-many-secrets", {**base, "secrets": {f"S{i}": "ref:env/X" for i in range(65)}}))
    docs.append(("too-many-env", {**base, "env": {f"E{i}": "" for i in range(257)}}))
    docs.append(("most-env", {**base, "env": {f"E{i}": "" for i in range(256)}}))
    return docs


def test_both_validators_agree_on_a_corpus_of_near_misses(tmp_path):
    docs = corpus()
    for name, doc in docs:
        (tmp_path / f"{name}.json").write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    files = sorted(tmp_path.glob("*.json"))
    ajv = ajv_verdicts(SPEC_SCHEMA, str(tmp_path / "*.json"))
    cpp, errors = spec_check_verdicts(files)
    disagreements = []
    for file in files:
        key = str(file.resolve())
        if ajv.get(key) != cpp.get(key):
            disagreements.append(f"{file.name}: ajv {ajv.get(key)}, osf-spec-check {cpp.get(key)} "
                                 f"{errors.get(key, [])} {file.read_text(encoding='utf-8')[:200]}")
    assert not disagreements, "\n".join(disagreements)
    # The corpus is worth something only if it holds both verdicts in number.
    assert sum(cpp.values()) > 100 and sum(not v for v in cpp.values()) > 300


# ---------------------------------------------------------------------------
# osf-spec-check as a command.

def run_spec_check(*args, stdin=None):
    return subprocess.run([SPEC_CHECK, *args], input=stdin, capture_output=True, text=True, timeout=60)


def test_spec_check_prints_ok_or_one_line_per_error(tmp_path):
    good = EXAMPLES / "valid" / "design-example.json"
    bad = tmp_path / "bad.json"
    bad.write_text('{"template": "", "egress": ["https://x.com", "ok.com", "y.com/a"]}')
    run = run_spec_check(str(good), str(bad))
    assert run.returncode == 1
    assert run.stdout.splitlines() == [
        f"{good}: ok",
        f'{bad}: $.template: is empty: name an image ("node:24-alpine") or a SandboxTemplate',
        f'{bad}: $.egress[0]: "https://x.com" is not a host name: write the host alone, as "x.com"',
        f'{bad}: $.egress[2]: "y.com/a" is not a host name: egress allows whole hosts, not paths; write "y.com"',
    ]


def test_spec_check_exit_codes(tmp_path):
    good = str(EXAMPLES / "valid" / "design-example.json")
    assert run_spec_check(good).returncode == 0
    assert run_spec_check(good, good).returncode == 0
    run = run_spec_check()
    assert run.returncode == 2 and "usage" in run.stderr
    missing = str(tmp_path / "missing.json")
    run = run_spec_check(good, missing)
    assert run.returncode == 2
    assert f"{missing}: cannot read" in run.stderr
    assert f"{good}: ok" in run.stdout
    run = run_spec_check(str(tmp_path))  # a directory is not a spec
    assert run.returncode == 2


def test_spec_check_reads_standard_input():
    run = run_spec_check("-", stdin='{"template": "python-dev"}')
    assert (run.returncode, run.stdout) == (0, "-: ok\n")
    run = run_spec_check("-", stdin='{"template": "a", "template": "b"}')
    assert run.returncode == 1
    assert "-: $.template: duplicate key" in run.stdout


def test_spec_check_never_repeats_a_pasted_secret(tmp_path):
    spec = tmp_path / "pasted.json"
    spec.write_text('{"template": "a", "secrets": {"T": "ghp_SECRET0123"}, "env": {"X": ["ghp_SECRET0123"]},'
                    ' "oops": "ghp_SECRET0123')
    run = run_spec_check(str(spec))
    assert run.returncode == 1
    assert "SECRET" not in run.stdout + run.stderr


# ---------------------------------------------------------------------------
# The egress log line.

def validate_jsonl(schema, data):
    return subprocess.run(["node", str(AJV_DIR / "validate-jsonl.mjs"), str(schema), str(data)],
                          cwd=AJV_DIR, capture_output=True, text=True, timeout=TIMEOUT)


def test_egress_log_examples_are_valid_lines():
    files = sorted((EXAMPLES / "egress-log").glob("valid*.jsonl"))
    assert files
    for file in files:
        run = validate_jsonl(LOG_SCHEMA, file)
        assert run.returncode == 0, run.stdout + run.stderr
        lines = [json.loads(line) for line in file.read_text().splitlines()]
        assert len(lines) >= 3
        outcomes = {line["outcome"] for line in lines if "kind" not in line}
        assert outcomes == {"allowed", "refused", "error"}
        assert {line.get("kind") for line in lines} == {None, "start", "checkpoint"}


def test_every_invalid_egress_log_line_is_reported_by_number():
    file = EXAMPLES / "egress-log" / "invalid.jsonl"
    run = validate_jsonl(LOG_SCHEMA, file)
    assert run.returncode == 1
    count = len(file.read_text().splitlines())
    reported = {int(line.split(":")[1]) for line in run.stdout.splitlines() if line.startswith(str(file) + ":")}
    assert reported == set(range(1, count + 1))


def test_validate_jsonl_reports_a_bad_line_among_good_ones(tmp_path):
    good = (EXAMPLES / "egress-log" / "valid.jsonl").read_text().splitlines()
    log = tmp_path / "egress.jsonl"
    log.write_text("\n".join([good[0], good[1], '{"time": "yesterday"}', good[2], "not json"]) + "\n")
    run = validate_jsonl(LOG_SCHEMA, log)
    assert run.returncode == 1
    lines = run.stdout.splitlines()
    assert [line.split(":")[1] for line in lines] == ["3", "5"]
    assert "time" in lines[0]
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert validate_jsonl(LOG_SCHEMA, empty).returncode == 0
    assert validate_jsonl(LOG_SCHEMA, tmp_path / "missing.jsonl").returncode == 2


def test_spec_check_json_output_lists_errors_per_file(tmp_path):
    good = EXAMPLES / "valid" / "design-example.json"
    bad = tmp_path / "bad.json"
    bad.write_text('{"template": "a", "cpu": "lots", "env": {"A-B": "1"}}')
    run = run_spec_check("--json", str(good), str(bad))
    assert run.returncode == 1
    lines = [json.loads(line) for line in run.stdout.splitlines()]
    assert lines[0] == {"file": str(good), "valid": True, "errors": []}
    assert lines[1]["file"] == str(bad) and lines[1]["valid"] is False
    assert [error["path"] for error in lines[1]["errors"]] == ["$.cpu", "$.env['A-B']"]
    assert "millicores (\"500m\")" in lines[1]["errors"][0]["message"]
