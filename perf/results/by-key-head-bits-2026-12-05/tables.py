"""python3 tables.py: the tables of perf/RESULTS.md's section on these files.

Call 1 (an H100, device-call1.txt): the head-bits reduce_by_key (branch exp/run-head-bits) beside
Thrust, CUB and the probe, and the windows route against parts for 8-byte fixed-size rows
(855bfca's rk_bench_segmented and branch exp/eight-byte-rows-on-parts', alternating, two rounds).
Call 2 (another H100, device-call2.txt): the head-bits reduce_by_key against bd4d89e's run pass,
one after the other. Call 3 (a third H100, device-call3.txt): ncu over one call's kernels (NVBench's
--profile; ncu locks the clocks, so its durations run longer than NVBench's). Times are perf/bench_summary.py's: NVBench's cold medians, the CPU time of a
round trip for reduce_by_key (every implementation waits for its run count), GPU time otherwise."""
import os
import sys
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", ".."))
import bench_summary as b


def times(name):
    return b.load(os.path.join(here, name + ".json.gz"))[1]


def fmt(x, digits=1):
    return "—" if x is None else f"{x:.{digits}f}"


def ratio(a, c):
    return "—" if a is None or c is None else f"{a / c:.3f}"


runs = ["1", "2", "8", "8+3", "100", "1000", "1000000", "mix"]
old, new, peers = times("call2-rbk-old"), times("call2-rbk-new"), times("call1-rbk-new")


def rbk(run, length, impl):
    v = run.get(("reduce_by_key", f"RunLength {length}", 26, impl))
    return v[0] if v else None


print("\n## reduce_by_key, 2^26 int32 keys and float values, µs (round trips)\n")
print("| runs of | run pass (bd4d89e), call 2 | head bits, call 2 | head bits / run pass | probe, call 2 "
      "| head bits, call 1 | thrust, call 1 | CUB, call 1 | probe, call 1 | head bits / CUB, call 1 |")
print("|---|---:|---:|---|---:|---:|---:|---:|---:|---|")
for length in runs:
    o, n = rbk(old, length, "rk::reduce_by_key"), rbk(new, length, "rk::reduce_by_key")
    n1 = rbk(peers, length, "rk::reduce_by_key")
    c1 = rbk(peers, length, "cub")
    print(f"| {length} | {fmt(o)} | {fmt(n)} | {ratio(n, o)} | {fmt(rbk(old, length, 'probe'))} | {fmt(n1)} "
          f"| {fmt(rbk(peers, length, 'thrust::reduce_by_key'))} | {fmt(c1)} | {fmt(rbk(peers, length, 'probe'))} "
          f"| {ratio(n1, c1)} |")

print("\n## 8-byte fixed-size rows: the windows route (855bfca) against parts (the branch), µs (round 1 / round 2)\n")
print("| T | items | rows of | windows route | parts | parts / windows | probe |")
print("|---|---|---:|---:|---:|---|---:|")
for e in (26, 28):
    head = [times(f"call1-win-head-{e}-run{r}") for r in (1, 2)]
    parts = [times(f"call1-win-partsonly-{e}-run{r}") for r in (1, 2)]
    for T in ("double", "int64"):
        for rows in ("all 4096", "all 8192", "all 16384", "all 65536"):
            key = ("segmented_reduce", f"{T}, Segments {rows}", e, "rk fixed")
            h = [r[key][0] for r in head]
            p = [r[key][0] for r in parts]
            probe = head[0][("segmented_reduce", f"{T}, Segments {rows}", e, "probe")][0]
            print(f"| {T} | 2^{e} | {rows[4:]} | {h[0]:.1f} / {h[1]:.1f} | {p[0]:.1f} / {p[1]:.1f} "
                  f"| {p[0] / h[0]:.3f} / {p[1] / h[1]:.3f} | {probe:.1f} |")

import gzip
import re

print("\n## ncu, one call's kernels at 2^26 items (call 3; µs, bytes to and from DRAM, DRAM busy)\n")
print("| call | kernel | duration | DRAM bytes | DRAM busy |")
print("|---|---|---:|---:|---:|")
for name, label in (("old-1000", "run pass (bd4d89e), runs of 1000"), ("new-1000", "head bits, runs of 1000"),
                    ("new-1000000", "head bits, runs of 10^6")):
    text = gzip.open(os.path.join(here, f"ncu-{name}.txt.gz"), "rt").read()
    seen = set()
    kernel = None
    for line in text.splitlines():
        m = re.match(r"  void (?:rk::)?(?:cub::)?([A-Za-z_]+)", line)
        if m:
            kernel, duration, dram = m.group(1), None, None
            continue
        if kernel is None:
            continue
        m = re.match(r"\s+gpu__time_duration.sum\s+us\s+([0-9.]+)", line)
        if m:
            duration = float(m.group(1))
        m = re.match(r"\s+dram__bytes.sum\s+(\w+)\s+([0-9.]+)", line)
        if m:
            dram = f"{m.group(2)} {m.group(1)}"
        m = re.match(r"\s+DRAM Throughput\s+%\s+([0-9.]+)", line)
        if m and kernel not in seen:  # the first call of the state (the bench's check); the timed one agrees
            seen.add(kernel)
            print(f"| {label} | {kernel} | {duration:.1f} | {dram} | {m.group(1)} % |")
