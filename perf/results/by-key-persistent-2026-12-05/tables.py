"""python3 tables.py: the table of perf/RESULTS.md's section on these files: reduce_by_key's run pass
on exp/run-head-bits as persistent blocks (fd5a978) against main's run pass (bd4d89e's library, the
same as 129d443's for reduce_by_key), two rounds in one call on one H100, CUB and Thrust beside the
first. Times are NVBench's CPU times (every call waits for its run count), medians, µs."""
import os
import sys
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", ".."))
import bench_summary as b


def times(name):
    return b.load(os.path.join(here, name + ".json.gz"))[1]


runs = {k: times(f"rbk-{k}") for k in ["old-r1", "persistent-r1", "old-r2", "persistent-r2"]}
lengths = ["1", "2", "8", "8+3", "100", "1000", "1000000", "mix"]


def t(run, length, impl):
    v = runs[run].get(("reduce_by_key", f"int32, RunLength {length}", 26, impl))
    if v is None:  # the family benchmark names its case without a type
        v = runs[run].get(("reduce_by_key", f"RunLength {length}", 26, impl))
    return v[0] if v else None


print("| runs of | main's run pass (r1 / r2) | persistent (r1 / r2) | persistent / main | CUB (r1) | Thrust (r1) | probe (r1) |")
print("|---|---:|---:|---|---:|---:|---:|")
for n in lengths:
    o = [t(f"old-r{r}", n, "rk::reduce_by_key") for r in (1, 2)]
    p = [t(f"persistent-r{r}", n, "rk::reduce_by_key") for r in (1, 2)]
    c = t("persistent-r1", n, "cub")
    th = t("persistent-r1", n, "thrust::reduce_by_key")
    pr = t("old-r1", n, "probe")
    print(f"| {n} | {o[0]:.1f} / {o[1]:.1f} | {p[0]:.1f} / {p[1]:.1f} | {p[0] / o[0]:.2f} / {p[1] / o[1]:.2f} | "
          f"{c:.1f} | {th:.1f} | {pr:.1f} |")
