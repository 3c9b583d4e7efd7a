#!/usr/bin/env python3
"""Prints summary.md from this folder's rk_bench_axes JSONs and PyTorch table (run from here).

Call 3 ran the library of 3454ed3 (the column engine over runs, long rows a warp each for every
state), call 4 that of 85d9feb (a warp a long row for states of 8 bytes or more only): the two
differ only where a float sum's rows are longer than a window and numerous (marked +), where the
table takes call 4 alone. The earlier library's figures (call 5 of ../axes-matrix-h200) are in
parentheses where they differ by more than 0.04."""
import sys

sys.path.insert(0, "../..")
import bench_summary as b  # noqa: E402


load = b.axes_cells


old = load(["../axes-matrix-h200/call5_run1.json.gz", "../axes-matrix-h200/call5_run2.json.gz"])
c3 = load(["call3_3454ed3_run1.json.gz"])
c4 = load(["call4_85d9feb_run2.json.gz"])
WINDOWS_F32 = {("axes 0 and 2, 32 x 256 x 8192", ("float", 28, "right")),
               ("axes 0 and 2, 256 x 512 x 512", ("float", 28, "stride"))}
torch = b.axes_torch("call4_torch_axes.md")
cols = b.AXES_COLUMNS


def runs(case, c):
    if (case, c) in WINDOWS_F32:
        return c4[case][c], True
    return c3[case][c] + c4[case][c], False


def table(title, cell):
    b.axes_table(title, c4, cell)


def ratio(case, c):
    v, alone = runs(case, c)
    r = max(a / p for a, p in v)
    s = f"{r:.2f}{'+' if alone else ''}"
    o = old.get(case, {}).get(c)
    if o:
        ro = max(a / p for a, p in o)
        if abs(ro - r) > 0.04:
            s += f" ({ro:.2f})"
    return s


def against_torch(case, c):
    v, _ = runs(case, c)
    t = torch.get((case, c[0], c[1], c[2]))
    return f"{t / min(a for a, _ in v):.2f}" if t else "—"


print("# Axis reductions after the column engine over runs (issue 33): H200, 2026-11-29")
print(__doc__.split("\n\n", 1)[1])
table("rk::device / probe, the larger of the two runs", ratio)
table("torch µs (call 4) / rk::device µs (faster run); above 1: rk faster", against_torch)
misses = [(case, c) for case in c4 for c in cols if max(a / p for a, p in runs(case, c)[0]) > 1.10]
print(f"\nCells above 1.10x the probe: {len(misses)} of {len(c4) * len(cols)}.")
slower = [(case, c) for case in c4 for c in cols if torch.get((case, c[0], c[1], c[2]))
          and torch[(case, c[0], c[1], c[2])] / min(a for a, _ in runs(case, c)[0]) < 1.0]
print(f"Cells where PyTorch is faster: {len(slower)} of {len(c4) * len(cols)}.")
