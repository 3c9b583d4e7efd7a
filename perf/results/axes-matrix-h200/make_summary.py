#!/usr/bin/env python3
"""Prints summary.md from this folder's rk_bench_axes JSONs and PyTorch table (run from here)."""
import sys

sys.path.insert(0, "../..")
import bench_summary as b  # noqa: E402


load = b.axes_cells


c5 = load(["call5_run1.json.gz", "call5_run2.json.gz"])
c8 = load(["call8_run1.json.gz", "call8_run2.json.gz"])
# Double outputs of at most two lanes read as vectors: the column kernel the library keeps ran in
# call 8 (its row-engine change, dropped, runs none of these shapes).
VECTOR = {("first axis, 8 x 2^23", "right"), ("last axis, 2^23 x 8", "left"), ("last axis, 2^23 x 8", "stride"),
          ("last axis, 2^24 x 4", "left"), ("last axis, 2^24 x 4", "stride")}
torch = b.axes_torch("call5_torch_axes.md")
cols = b.AXES_COLUMNS


def final(case, c):
    from_8 = c[0] == "double" and (case, c[2]) in VECTOR
    return (c8 if from_8 else c5)[case][c], from_8


def table(title, cell):
    b.axes_table(title, c5, cell)


def ratio(case, c):
    v, m = final(case, c)
    return f"{max(a / p for a, p in v):.2f}{'*' if m else ''}"


def against_torch(case, c):
    v, _ = final(case, c)
    t = torch.get((case, c[0], c[1], c[2]))
    return f"{t / sorted(a for a, _ in v)[0]:.2f}" if t else "—"


def times(case, c):
    v, _ = final(case, c)
    return f"{v[0][0]:.0f} / {v[0][1]:.0f}"


print("# Axis reductions over every type, size and layout (issue 33): H200, 2026-11-29\n")
print("`rk_bench_axes --no-batch --min-time 0.2 --max-noise 1 --timeout 0.5 --json F` twice in one call, and")
print("`python3 perf/torch_axes.py` in the same call (call 5: the library with this session's column finish). Cells")
print("marked * come from call 8, whose column kernel reads two lanes of each of two double outputs as vectors (the")
print("library keeps it; call 8's row-engine change, dropped, runs none of those shapes). `python3 make_summary.py`")
print("prints this page.")
table("rk::device / probe, the larger of the two runs (the probe reads x and writes out once, 16-byte loads)", ratio)
table("torch µs / rk::device µs (above 1: rk faster; rk's faster run)", against_torch)
table("rk::device µs / probe µs (first run)", times)
