"""python3 tables.py: the tables of perf/RESULTS.md's section on these files (this folder's runs).

Call 1 (H200): the A/B of the fixed-size form's vector loads (main's binary and the change's,
alternating), the CUB 3.6 peer's int64 fixed-size rows beside rk's from the A/B runs, and the
2^28-item rows. Call 3 (an H100): the windows route against parts for 8-byte sums, and the 2^28-item
rows again. Times are NVBench's cold GPU medians (perf/bench_summary.py's load)."""
import os
import sys
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", ".."))
import bench_summary as b


def times(name):
    return b.load(os.path.join(here, name + ".json.gz"))[1]


def t(run, T, rows, n, impl):
    v = run.get(("segmented_reduce", f"{T}, Segments {rows}", n, impl))
    return v[0] if v else None


def fmt(x, digits=1):
    return "—" if x is None else f"{x:.{digits}f}"


def ratio(a, c):
    return "—" if a is None or c is None else f"{a / c:.3f}"


types = ["int32", "float", "double", "int64"]
ab = {k: times(f"ab-{k}") for k in ["main-run1", "vec-run1", "main-run2", "vec-run2"]}
print("\n## Vector loads for rows of a lane's or half a lane's bytes: 2^26 items, µs (round 1 / round 2)\n")
print("| T | rows of | main | vector loads | vector / main | probe | main / probe | vector / probe |")
print("|---|---:|---:|---:|---|---:|---:|---:|")
for T in types:
    for rows in ["all 1", "all 2", "all 4", "all 8", "all 32"]:
        m = [t(ab[f"main-run{r}"], T, rows, 26, "rk fixed") for r in (1, 2)]
        v = [t(ab[f"vec-run{r}"], T, rows, 26, "rk fixed") for r in (1, 2)]
        p = t(ab["main-run1"], T, rows, 26, "probe")
        print(f"| {T} | {rows[4:]} | {fmt(m[0])} / {fmt(m[1])} | {fmt(v[0])} / {fmt(v[1])} | "
              f"{ratio(v[0], m[0])} / {ratio(v[1], m[1])} | {fmt(p)} | {ratio(m[0], p)} | {ratio(v[0], p)} |")

peer = times("peer-i64")
print("\n## int64 fixed-size rows against CUB 3.6's fixed-size overload: 2^26 items, µs\n")
print("| rows of | CUB 3.6 fixed | rk fixed (vector loads, round 1 / 2) | rk / CUB 3.6 | probe | CUB 3.6 / probe |")
print("|---:|---:|---:|---|---:|---:|")
for rows in ["all 1", "all 2", "all 4", "all 8", "all 32"]:
    c = t(peer, "int64", rows, 26, "cub3.6 fixed")
    v = [t(ab[f"vec-run{r}"], "int64", rows, 26, "rk fixed") for r in (1, 2)]
    p = t(ab["main-run1"], "int64", rows, 26, "probe")
    print(f"| {rows[4:]} | {fmt(c)} | {fmt(v[0])} / {fmt(v[1])} | {ratio(v[0], c)} / {ratio(v[1], c)} | {fmt(p)} | {ratio(c, p)} |")

rows28 = ["all 1", "all 4", "all 8", "all 32", "all 256", "all 1024", "all 4096", "all 8192", "all 16384",
          "all 65536", "all 1048576", "all 16777216", "one of n/2 + 1-8", "power law", "half empty",
          "random mix 1-10^5", "one segment"]
for T, name, device in [("float", "seg28-F32", "H200"), ("double", "seg28-F64", "H200"),
                        ("float", "seg28-F32-run2", "H100"), ("double", "seg28-F64-run2", "H100")]:
    run = times(name)
    print(f"\n## {T}, 2^28 items, µs ({device}, {name})\n")
    print("| segments | rk::device | CSR probe | rk::device / CSR probe | rk fixed | probe | rk fixed / probe "
          "| CUB 3.0.1 | rk::device / CUB | rk fixed / CUB |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for rows in rows28:
        d, cp, f, p, c = (t(run, T, rows, 28, i) for i in ["rk::device", "CSR probe", "rk fixed", "probe", "cub"])
        print(f"| {rows} | {fmt(d)} | {fmt(cp)} | {ratio(d, cp)} | {fmt(f)} | {fmt(p)} | {ratio(f, p)} | {fmt(c)} "
              f"| {ratio(d, c)} | {ratio(f, c)} |")
    ri = t(run, T, "one segment", 28, "rk::reduce_into")
    d = t(run, T, "one segment", 28, "rk::device")
    print(f"\nOne segment against rk::reduce_into over the same items: {fmt(d)} / {fmt(ri)} = {ratio(d, ri)}")

win = {(v, e, r): times(f"win-{v}-{e}-run{r}") for v in ["head", "partsonly"] for e in (26, 28) for r in (1, 2)}
print("\n## 8-byte sums' long fixed-size rows: the windows route (855bfca) against parts (H100), µs, round 1 / round 2\n")
print("| T | items | rows of | 855bfca | parts only | parts / 855bfca | probe | 855bfca / probe | parts / probe |")
print("|---|---|---:|---:|---:|---|---:|---:|---:|")
for T in ["double", "int64"]:
    for e in (26, 28):
        for rows in ["all 4096", "all 8192", "all 16384", "all 65536"]:
            h = [t(win[("head", e, r)], T, rows, e, "rk fixed") for r in (1, 2)]
            q = [t(win[("partsonly", e, r)], T, rows, e, "rk fixed") for r in (1, 2)]
            p = t(win[("head", e, 1)], T, rows, e, "probe")
            print(f"| {T} | 2^{e} | {rows[4:]} | {fmt(h[0])} / {fmt(h[1])} | {fmt(q[0])} / {fmt(q[1])} | "
                  f"{ratio(q[0], h[0])} / {ratio(q[1], h[1])} | {fmt(p)} | {ratio(h[0], p)} | {ratio(q[0], p)} |")
