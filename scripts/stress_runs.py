#!/usr/bin/python3
"""The runs behind scripts/stress-tests.sh (which starts the load around them).

Reads CTest's own description of the integration tests (command, environment,
timeout), so a test runs exactly as CTest runs it, plus a JUnit report and a
random order: the files in a new order each run, and the tests of each file in
a new order (OSF_TEST_SHUFFLE_SEED, which tests/integration/conftest.py reads). Prints one row per
test that failed at least once: how often, and the first line of each distinct
failure. Exits 1 when any run of any test failed, 0 when none did.
"""
import argparse
import collections
import concurrent.futures
import json
import os
import random
import re
import subprocess
import sys
import time
import xml.etree.ElementTree as ElementTree


def integration_tests(build):
    """CTest's integration tests: name -> (command, environment, timeout, cwd)."""
    shown = subprocess.run(["ctest", "--test-dir", build, "--show-only=json-v1"],
                           check=True, capture_output=True, text=True).stdout
    tests = {}
    for test in json.loads(shown)["tests"]:
        properties = {p["name"]: p["value"] for p in test.get("properties", [])}
        if "integration" not in properties.get("LABELS", []) or "command" not in test:
            continue
        environment = dict(os.environ)
        environment.update(v.split("=", 1) for v in properties.get("ENVIRONMENT", []))
        tests[test["name"]] = (test["command"], environment, float(properties.get("TIMEOUT", 1500)),
                               properties.get("WORKING_DIRECTORY", build))
    return tests


def select(tests, words, skipped):
    """The tests whose CTest name holds one of the words (all when none is given),
    less those named exactly in `skipped` (with or without "integration.")."""
    skipped = {s if s.startswith("integration.") else "integration." + s for s in skipped}
    chosen = sorted(n for n in tests if (not words or any(w in n for w in words)) and n not in skipped)
    if not chosen:
        print("stress-tests: no integration test matches " + " ".join(words), file=sys.stderr)
        sys.exit(2)
    return chosen


def first_line(text):
    for line in (text or "").splitlines():
        if line.strip():
            return line.strip()[:200]
    return "(no message)"


def failures_in(report):
    """(test id, first line of its failure) for every failed or erroring case of a JUnit file."""
    found = []
    root = ElementTree.parse(report).getroot()
    for case in root.iter("testcase"):
        for kind in ("failure", "error"):
            for problem in case.findall(kind):
                name = "{}::{}".format(case.get("classname", ""), case.get("name", ""))
                found.append((name, first_line(problem.get("message") or problem.text)))
    return found


def run_one(name, test, run_dir, seed):
    """Runs one test file; returns (name, failures, seconds)."""
    command, environment, timeout, cwd = test
    report = os.path.join(run_dir, name + ".xml")
    log = os.path.join(run_dir, name + ".log")
    arguments = command + ["--junitxml=" + report]
    environment = dict(environment, OSF_TEST_SHUFFLE_SEED=str(seed))
    started = time.monotonic()
    with open(log, "wb") as output:
        try:
            finished = subprocess.run(arguments, env=environment, cwd=cwd, stdout=output,
                                      stderr=subprocess.STDOUT, timeout=timeout)
            code = finished.returncode
        except subprocess.TimeoutExpired:
            code = None
    seconds = time.monotonic() - started
    failures = []
    if os.path.exists(report):
        failures = failures_in(report)
    if code is None:
        failures.append((name, "the file did not finish within CTest's {:.0f} s".format(timeout)))
    elif code not in (0, 5) and not failures:
        failures.append((name, "pytest exited {} (see {})".format(code, log)))
    return name, failures, seconds


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--skip", default="", help="CTest names to leave out, space-separated")
    parser.add_argument("words", nargs="*", help="run only the CTest names holding one of these")
    options = parser.parse_args()
    options.out = os.path.abspath(options.out)  # each test runs in its own working directory

    tests = integration_tests(options.build)
    names = select(tests, options.words, options.skip.split())
    failed = collections.defaultdict(lambda: collections.OrderedDict())  # test -> first line -> count
    ran = collections.Counter()
    seconds = collections.defaultdict(list)
    for run in range(options.runs):
        seed = options.seed + run
        order = list(names)
        random.Random(seed).shuffle(order)
        run_dir = os.path.join(options.out, "run-{}".format(run + 1))
        os.makedirs(run_dir, exist_ok=True)
        started = time.monotonic()
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, options.jobs)) as pool:
            done = [pool.submit(run_one, n, tests[n], run_dir, seed) for n in order]
            for future in done:
                name, failures, took = future.result()
                seconds[name].append(took)
                ran[name] += 1
                for test_id, line in failures:
                    failed[test_id][line] = failed[test_id].get(line, 0) + 1
        print("run {} of {} (seed {}): {:.0f} s, {} failing tests so far".format(
            run + 1, options.runs, seed, time.monotonic() - started, len(failed)), flush=True)

    table = ["| test | failed runs | first line of each distinct failure |", "| --- | ---: | --- |"]
    for test_id in sorted(failed):
        lines = failed[test_id]
        count = sum(lines.values())
        text = "<br>".join("{}× {}".format(n, re.sub(r"\|", "\\|", line)) for line, n in lines.items())
        table.append("| `{}` | {} of {} | {} |".format(test_id, count, options.runs, text))
    slowest = sorted(((max(s), n) for n, s in seconds.items()), reverse=True)[:5]
    summary = "{} test files, {} runs each: {} tests failed at least once".format(
        len(names), options.runs, len(failed))
    with open(os.path.join(options.out, "table.md"), "w") as out:
        out.write(summary + "\n\n" + "\n".join(table) + "\n")
    print()
    print(summary)
    if failed:
        print("\n".join(table))
    print("slowest files (longest run): " + ", ".join("{} {:.0f} s".format(n, s) for s, n in slowest))
    print("reports and logs: " + options.out)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
