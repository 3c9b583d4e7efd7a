#!/usr/bin/env python3
"""Puts the targets of two (or more) rk_perf runs side by side and says whether they agree:
issue 7 asks that two runs of the suite give the same targets table.

    python3 perf/compare_runs.py run1.json run2.json

A target agrees when every run gives it the same status and the runs' quartile intervals of its
worst case overlap. Exit status 0 when all agree, 1 otherwise. Needs only the standard library.
"""

import argparse
import json
import sys


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="+", help="JSON files rk_perf --json wrote")
    args = parser.parse_args()
    runs = []
    for path in args.runs:
        with open(path) as f:
            runs.append({t["name"]: t for t in json.load(f)["targets"]})

    names = list(dict.fromkeys(name for run in runs for name in run))
    header = ["target"] + [f"run {i + 1}" for i in range(len(runs))] + ["agree"]
    rows = []
    disagreements = 0
    for name in names:
        entries = [run.get(name) for run in runs]
        cells = []
        for t in entries:
            if t is None or t.get("value") is None:
                cells.append("no data")
            else:
                cells.append(f"{t['value']:.3f} [{t['low']:.3f}-{t['high']:.3f}] {t['status']} ({t['where']})")
        present = [t for t in entries if t is not None and t.get("value") is not None]
        same_status = len({t["status"] for t in present}) <= 1
        overlap = not present or max(t["low"] for t in present) <= min(t["high"] for t in present)
        agree = len(present) == len(entries) and same_status and overlap
        disagreements += not agree
        rows.append([name] + cells + ["yes" if agree else "NO"])

    widths = [max(len(str(r[c])) for r in [header] + rows) for c in range(len(header))]
    for i, row in enumerate([header] + rows):
        print("| " + " | ".join(str(cell).ljust(widths[c]) for c, cell in enumerate(row)) + " |")
        if i == 0:
            print("| " + " | ".join("-" * w for w in widths) + " |")
    print(f"\n{len(names) - disagreements} of {len(names)} targets agree")
    sys.exit(1 if disagreements else 0)


if __name__ == "__main__":
    main()
