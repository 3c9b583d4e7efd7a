#!/usr/bin/env python3
"""Prints summary.md from this folder's rk_bench_axes JSONs (run from here).

The column nodes kernel's occupancy bound of one (base, the library of a8a2986), two (cm2) and three (cm3) blocks
an SM for every state, over rk::mean_var and float sums in layout_left; two runs each,
interleaved, in one call. Each cell: rk::device / probe, run 1 / run 2."""
import sys

sys.path.insert(0, "../..")
import bench_summary as b  # noqa: E402

VARIANTS = ("base", "cm2", "cm3")
print("# The column nodes kernel's occupancy bound (issue 33): H200, 2026-11-29")
print(__doc__.split("\n\n", 1)[1])
for kind, title in (("mv", "rk::mean_var, layout_left"), ("sum", "float sums at 2^26, layout_left")):
    cells = {}
    for v in VARIANTS:
        for r in (1, 2):
            for case, cols in b.axes_cells([f"{kind}_{v}_{r}.json.gz"]).items():
                for col, pairs in cols.items():
                    cells.setdefault((case, col), {}).setdefault(v, []).extend(pairs)
    print(f"\n## {title}\n")
    print("| case | T | n | " + " | ".join(VARIANTS) + " |")
    print("|---|---|---|" + "---:|" * len(VARIANTS))
    for (case, (T, n, _)), runs in sorted(cells.items()):
        row = " | ".join("/".join(f"{a / p:.2f}" for a, p in runs[v]) for v in VARIANTS)
        print(f"| {case} | {T} | 2^{n} | {row} |")
