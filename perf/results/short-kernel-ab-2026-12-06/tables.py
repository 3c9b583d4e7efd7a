"""python3 tables.py: the tables of perf/RESULTS.md's eighteenth-session section: the short-segment
kernel at four blocks an SM with eight tiny batches (new: a9babbe, whose library 7bb3f4b keeps)
against five blocks and four (base, 72e8668), rk_bench_segmented at 2^26 and 2^20 items and
rk_bench_family's reduce_by_key, each call on its own H100. 2^26: r1 is call 2 (base and new side
by side), base r2 call 1, new r2 call 4's suite run (../h100-7bb3f4b-2026-12-06/seg26.json.gz).
reduce_by_key: r1 call 2, r2 call 5. The patch as first recreated (each slot's loads behind the
run's length), call 1, in the last table. NVBench's cold GPU medians, µs (perf/bench_summary.py's
load), but reduce_by_key's CPU times, as its calls wait for their run count."""
import os
import sys
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", ".."))
import bench_summary as b


ALIASES = {"seg26-base-r2": "call1-guarded-seg26-base-r1",
           "seg26-new-r2": os.path.join("..", "h100-7bb3f4b-2026-12-06", "seg26")}


def times(name):
    path = os.path.join(here, ALIASES.get(name, name) + ".json.gz")
    return b.load(path)[1] if os.path.exists(path) else {}


def t(run, bench, key, n, impl):
    v = run.get((bench, key, n, impl))
    return v[0] if v else None


def f(x):
    return "—" if x is None else f"{x:.1f}"


def ratio(a, c):
    a, c = [x for x in a if x], [x for x in c if x]
    return "—" if not a or not c or len(a) != len(c) else f"{sum(a) / sum(c):.3f}"


def segmented(prefix, n, segs, title):
    runs = {k: times(f"{prefix}-{k}") for k in ["base-r1", "new-r1", "base-r2", "new-r2"]}
    if not any(runs.values()):
        return
    print(f"\n## {title}\n")
    print("| T | segments | base (r1 / r2) | new (r1 / r2) | new / base | probe | CUB 3.0.1 | base / probe | new / probe |")
    print("|---|---|---:|---:|---|---:|---:|---|---|")
    for T in ["int32", "float", "double"]:
        for seg in segs:
            key = f"{T}, Segments {seg}"
            base = [t(runs[f"base-{r}"], "segmented_reduce", key, n, "rk::device") for r in ["r1", "r2"]]
            new = [t(runs[f"new-{r}"], "segmented_reduce", key, n, "rk::device") for r in ["r1", "r2"]]
            p = t(runs["base-r1"], "segmented_reduce", key, n, "probe")
            cub = t(runs["new-r1"], "segmented_reduce", key, n, "cub")
            bp = f"{base[0] / p:.3f}" if base[0] and p else "—"
            np_ = f"{new[0] / p:.3f}" if new[0] and p else "—"
            print(f"| {T} | {seg} | {f(base[0])} / {f(base[1])} | {f(new[0])} / {f(new[1])} | {ratio(new, base)} | "
                  f"{f(p)} | {f(cub)} | {bp} | {np_} |")


segmented("seg26", 26, ["all 1", "all 2", "all 8", "all 32", "all 256", "all 1024", "all 4096", "all 8192", "all 16384",
                        "all 65536", "one of n/2 + 1-8", "power law", "half empty", "random mix 1-10^5"],
          "rk::device's CSR form, 2^26 items, µs")
segmented("seg20", 20, ["all 1", "all 2", "all 8", "all 32", "all 256", "all 4096", "one of n/2 + 1-8", "power law",
                        "half empty"], "rk::device's CSR form, 2^20 items (call 2), µs")


def by_key():
    runs = {k: times(f"rbk-{k}") for k in ["base-r1", "new-r1", "base-r2", "new-r2"]}
    if not any(runs.values()):
        return

    def rt(run, length, impl):
        v = runs[run].get(("reduce_by_key", f"RunLength {length}", 26, impl))
        return v[0] if v else None

    print("\n## rk::reduce_by_key, 2^26 int32 keys and float values, NVBench's CPU times, µs\n")
    print("| runs of | base (r1 / r2) | new (r1 / r2) | new / base | probe | CUB 3.0.1 |")
    print("|---|---:|---:|---|---:|---:|")
    for n in ["1", "2", "8", "8+3", "100", "1000", "1000000", "mix"]:
        base = [rt(f"base-{r}", n, "rk::reduce_by_key") for r in ["r1", "r2"]]
        new = [rt(f"new-{r}", n, "rk::reduce_by_key") for r in ["r1", "r2"]]
        print(f"| {n} | {f(base[0])} / {f(base[1])} | {f(new[0])} / {f(new[1])} | {ratio(new, base)} | "
              f"{f(rt('base-r1', n, 'probe'))} | {f(rt('new-r1', n, 'cub'))} |")


by_key()


def guarded():
    base, new = times("call1-guarded-seg26-base-r1"), times("call1-guarded-seg26-new-r1")
    if not base or not new:
        return
    print("\n## Call 1: the patch as first recreated, each slot's loads behind the run's length, 2^26 items, µs\n")
    print("| T | segments | base | guarded | guarded / base |")
    print("|---|---|---:|---:|---|")
    for T in ["int32", "float", "double"]:
        for seg in ["all 1", "all 2", "all 8", "all 32", "all 256", "one of n/2 + 1-8"]:
            key = f"{T}, Segments {seg}"
            b_, g = t(base, "segmented_reduce", key, 26, "rk::device"), t(new, "segmented_reduce", key, 26, "rk::device")
            print(f"| {T} | {seg} | {f(b_)} | {f(g)} | {g / b_:.3f} |")


guarded()
