#!/usr/bin/env python3
"""Prints summary.md from this folder's runs (run from here): issue 33's axes matrix at 1dbdfd1, two runs
(calls 8 and 10, each on its own H100, 2^26 and 2^28, every layout), each against PyTorch timed on the
same card in the same call, and the counts against the issue's targets."""
import sys

sys.path.insert(0, "../..")
import bench_summary as b  # noqa: E402

STATISTICS = ("layer norm, 65536 x 1024", "batch norm, 32 x 256 x 8192")
runs = [b.axes_cells([f"call{c}_axes.json.gz"]) for c in (8, 10)]
both = b.axes_cells(["call8_axes.json.gz", "call10_axes.json.gz"])
torch = [b.axes_torch(f"call{c}_torch_axes.md") for c in (8, 10)]


def worst(case, c):
    v = both[case].get(c)
    return max(a / p for a, p in v) if v else None


def ratio(case, c):
    r = worst(case, c)
    return f"{r:.2f}" if r else "—"


def against_torch(run, case, c):
    v = runs[run][case].get(c)
    t = torch[run].get((case, c[0], c[1], c[2]))
    return t / v[0][0] if v and t else None


def torch_cell(case, c):
    r = [against_torch(i, case, c) for i in (0, 1)]
    return " / ".join(f"{x:.2f}" for x in r) if None not in r else "—"


def times(case, c):
    v = both[case].get(c)
    return " / ".join(f"{a:.0f}" for a, _ in v) + f" ({v[0][1]:.0f})" if v else "—"


print("# The axes matrix at 1dbdfd1 against PyTorch, two runs: H100, 2026-12-06\n")
print("Nineteenth session. rk_bench_axes built here for sm_90 from 1dbdfd1's tree (the library at the head of main)")
print("ran as `rk_bench_axes --no-batch --max-noise 1 --timeout 0.3`: 2^26 and 2^28, every layout, sums and")
print("rk::mean_var. `python3 perf/torch_axes.py` (PyTorch 2.11.0+cu130) followed it on the same card. Call 8 ran on")
print("GPU-6fa7f7ba, call 10 on GPU-f3f1412c, both NVIDIA H100 80GB HBM3. `python3 make_summary.py` prints this page.")
print("call9_ncu_mean_var.tgz holds Nsight Compute's sections for the rk::mean_var kernels (GPU-9e3effb1).\n")

sums = [(case, c) for case in both if case not in STATISTICS for c in b.AXES_COLUMNS if both[case].get(c)]
stats = [(case, c) for case in STATISTICS for c in b.AXES_COLUMNS if both[case].get(c)]
print("## Against the targets (the worse of the two runs)\n")
print(f"- sums at most 1.10x the probe: {sum(worst(*k) <= 1.10 for k in sums)} of {len(sums)}"
      f" (largest {max(worst(*k) for k in sums):.3f})")
over = sorted((worst(*k), k) for k in stats if worst(*k) > 1.15)
print(f"- rk::mean_var at most 1.15x the probe: {len(stats) - len(over)} of {len(stats)}; over: "
      + "; ".join(f"{k[0].split(',')[0]} {k[1][0]} 2^{k[1][1]} {k[1][2]} {r:.2f}" for r, k in over))
for i, c in enumerate((8, 10)):
    cells = [against_torch(i, *k) for k in sums + stats]
    slower = [x for x in cells if x is not None and x < 1.0]
    print(f"- call {c}: PyTorch faster in {len(slower)} of {len(cells)} cells,"
          f" {sum(x >= 0.95 for x in slower)} of them by less than 5 %; slowest rk/torch {1 / min(cells):.3f}")
pairs = [("rows, 8192 x 8192", "columns, 8192 x 8192")]
for rows, cols in pairs:
    d = max(max(worst(rows, c), worst(cols, c)) / min(worst(rows, c), worst(cols, c)) for c in b.AXES_COLUMNS)
    print(f"- columns and rows of 8192 x 8192 within {100 * (d - 1):.1f} % of each other (largest gap, ratios to the probe)")

b.axes_table("rk::device / probe, the larger of calls 8 and 10", both, ratio)
b.axes_table("torch µs / rk::device µs, call 8 / call 10 (above 1: rk faster)", both, torch_cell)
b.axes_table("rk::device µs, call 8 / call 10 (probe µs, call 8)", both, times)
