#!/usr/bin/env python3
"""Prints summary.md from this folder's rk_bench_axes JSONs and PyTorch table (run from here).

Two runs of the whole matrix in one call (the library of the working tree on c0b8432 that became
the commit after it: one block body per long-row kernel, rk::mean_var's long rows a warp per chunk
of windows, double sums' a warp each only where rows fill the GPU), PyTorch between them. In
parentheses: the last session's figure (../axes-runs-h200, the larger of its runs) where it
differs by more than 0.04."""
import sys

sys.path.insert(0, "../..")
import bench_summary as b  # noqa: E402

now = b.axes_cells(["run1.json.gz", "run2.json.gz"])
before = b.axes_cells(["../axes-runs-h200/call3_3454ed3_run1.json.gz", "../axes-runs-h200/call4_85d9feb_run2.json.gz"])
WINDOWS_F32 = {("axes 0 and 2, 32 x 256 x 8192", ("float", 28, "right")),
               ("axes 0 and 2, 256 x 512 x 512", ("float", 28, "stride"))}
torch = b.axes_torch("torch_axes.md")
cols = b.AXES_COLUMNS


def worst(v):
    return max(a / p for a, p in v)


def ratio(case, c):
    r = worst(now[case][c])
    s = f"{r:.2f}"
    o = before.get(case, {}).get(c)
    if o:
        # 3454ed3 ran float sums' long rows on the windows; 85d9feb, the last commit, did not.
        ro = worst(o[1:] if (case, c) in WINDOWS_F32 else o)
        if abs(ro - r) > 0.04:
            s += f" ({ro:.2f})"
    return s


def against_torch(case, c):
    t = torch.get((case, c[0], c[1], c[2]))
    return f"{t / min(a for a, _ in now[case][c]):.2f}" if t else "—"


print("# Axis reductions with one block body per long-row kernel (issues 33, 28): H200, 2026-11-29")
print(__doc__.split("\n\n", 1)[1])
b.axes_table("rk::device / probe, the larger of the two runs", now, ratio)
b.axes_table("torch µs / rk::device µs (faster run); above 1: rk faster", now, against_torch)
over = [(case, c) for case in now for c in cols if worst(now[case][c]) > 1.10]
misses = [(case, c) for case, c in over if worst(now[case][c]) > (1.15 if "norm" in case else 1.10)]
print(f"\nCells above 1.10x the probe: {len(over)} of {len(now) * len(cols)}; above the issue's targets (1.10x,")
print(f"1.15x for rk::mean_var's layer and batch norm): {len(misses)}.")
slower = [(case, c) for case in now for c in cols if torch.get((case, c[0], c[1], c[2]))
          and torch[(case, c[0], c[1], c[2])] / min(a for a, _ in now[case][c]) < 1.0]
print(f"Cells where PyTorch is faster: {len(slower)} of {len(now) * len(cols)}.")
