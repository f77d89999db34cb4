#!/usr/bin/env python3
"""Medians of several rounds of bench/run.sh (each a directory with the shared harness's
metrics.tsv), with every peer's req/s as a ratio to `direct` and to Squid (`squid-bump1`, else
`squid`) of the same rounds, and the proxy CPU per 1,000 requests.

usage: bench/rounds_summary.py ROUND_DIR [ROUND_DIR ...]
"""
import csv
import statistics
import sys


def number(text):
    try:
        return float(text)
    except ValueError:
        return None


def main(dirs):
    rows = {}  # (workload, peer) -> {"rps": [...], "cpu": [...]}
    order = []
    for d in dirs:
        with open(f"{d.rstrip('/')}/metrics.tsv", encoding="utf-8") as f:
            for row in csv.DictReader(f, delimiter="\t"):
                key = (row["workload"], row["peer"])
                if key not in rows:
                    rows[key] = {"rps": [], "cpu": []}
                    order.append(key)
                for field, name in (("rps", "rps"), ("cpu_s_per_1k", "cpu")):
                    value = number(row.get(field, "-"))
                    if value is not None:
                        rows[key][name].append(value)
    median = {k: {n: statistics.median(v) if v else None for n, v in m.items()} for k, m in rows.items()}
    print(f"rounds: {len(dirs)}")
    print()
    print("| workload | peer | req/s (median) | of direct | of Squid | proxy CPU ms/req | rounds |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for workload, peer in order:
        rps = median[(workload, peer)]["rps"]
        if rps is None:
            continue
        direct = (median.get((workload, "direct")) or {}).get("rps")
        squid = ((median.get((workload, "squid-bump1")) or median.get((workload, "squid")) or {})
                 .get("rps"))
        cpu = median[(workload, peer)]["cpu"]
        cells = [f"{rps:.0f}",
                 f"{100 * rps / direct:.0f} %" if direct else "-",
                 f"{rps / squid:.2f}x" if squid else "-",
                 f"{cpu:.3f}" if cpu is not None else "-",
                 str(len(rows[(workload, peer)]["rps"]))]
        print(f"| {workload} | {peer} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__.strip())
    main(sys.argv[1:])
