#!/usr/bin/env python3
"""Prints summary.md from this folder's runs (run from here): the segmented suite's forms (call 4) and
issue 33's axes matrix (call 6, with call 5's 2^26 run beside it) against PyTorch (call 6)."""
import sys

sys.path.insert(0, "../..")
import bench_summary as b  # noqa: E402

c6 = b.axes_cells(["call6_axes.json.gz"])
both = b.axes_cells(["call6_axes.json.gz", "call5_axes26.json.gz"])
torch = b.axes_torch("call6_torch_axes.md")


def ratio(case, c):
    v = both[case].get(c)
    return f"{max(a / p for a, p in v):.2f}" if v else "—"


def against_torch(case, c):
    v = c6[case].get(c)
    t = torch.get((case, c[0], c[1], c[2]))
    return f"{t / v[0][0]:.2f}" if v and t else "—"


def times(case, c):
    v = c6[case].get(c)
    return f"{v[0][0]:.0f} / {v[0][1]:.0f}" if v else "—"


print("# The segmented forms and the axes matrix at 7bb3f4b: H100, 2026-12-06\n")
print("Three calls, each on its own NVIDIA H100 80GB HBM3, binaries built here for sm_90 from 7bb3f4b's tree.")
print("Call 4: `rk_bench_segmented --no-batch --max-noise 1 --timeout 0.3 -a T=[I32,F32,F64,I64]")
print("-a 'Impl=[rk::device,rk CUB form,rk fixed,cub,probe,CSR probe]'` (2^26 items). Call 5: `rk_bench_axes` at 2^26")
print("(every layout, sums and rk::mean_var). Call 6: `rk_bench_axes` at 2^26 and 2^28, then `python3 perf/torch_axes.py`")
print("on the same card (PyTorch 2.11.0+cu130). `python3 make_summary.py` prints this page.\n")
b.main(["seg26.json.gz"])
b.axes_table("rk::device / probe, the larger of calls 5 and 6 (2^26; 2^28 call 6 only)", both, ratio)
b.axes_table("torch µs / rk::device µs, call 6 (above 1: rk faster)", c6, against_torch)
b.axes_table("rk::device µs / probe µs, call 6", c6, times)
