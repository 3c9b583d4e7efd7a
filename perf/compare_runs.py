#!/usr/bin/env python3
"""Puts the targets of two (or more) rk_perf runs side by side and says whether they agree:
issue 7 asks that two runs of the suite give the same targets table.

    python3 perf/compare_runs.py run1.json run2.json

A target's verdict flips when one run says PASS and another MISS ("within noise" is compatible
with either: that run could not tell). A second column says whether the runs' quartile intervals
of the worst case overlap, which is stricter: the figure itself, not only the verdict, repeated.
Exit status 0 when no verdict flips, 1 otherwise. Needs only the standard library.
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
    header = ["target"] + [f"run {i + 1}" for i in range(len(runs))] + ["verdict", "intervals overlap"]
    rows = []
    flips = overlapping = 0
    for name in names:
        entries = [run.get(name) for run in runs]
        cells = []
        for t in entries:
            if t is None or t.get("value") is None:
                cells.append("no data")
            else:
                cells.append(f"{t['value']:.3f} [{t['low']:.3f}-{t['high']:.3f}] {t['status']} ({t['where']})")
        present = [t for t in entries if t is not None and t.get("value") is not None]
        statuses = {t["status"] for t in present}
        flipped = len(present) != len(entries) or {"PASS", "MISS"} <= statuses
        overlap = bool(present) and max(t["low"] for t in present) <= min(t["high"] for t in present)
        flips += flipped
        overlapping += overlap
        rows.append([name] + cells + ["FLIPS" if flipped else "same", "yes" if overlap else "no"])

    widths = [max(len(str(r[c])) for r in [header] + rows) for c in range(len(header))]
    for i, row in enumerate([header] + rows):
        print("| " + " | ".join(str(cell).ljust(widths[c]) for c, cell in enumerate(row)) + " |")
        if i == 0:
            print("| " + " | ".join("-" * w for w in widths) + " |")
    print(f"\n{len(names) - flips} of {len(names)} verdicts agree across the runs; "
          f"{overlapping} of {len(names)} worst-case intervals overlap")
    sys.exit(1 if flips else 0)


if __name__ == "__main__":
    main()
