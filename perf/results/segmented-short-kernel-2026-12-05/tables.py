"""python3 tables.py: the tables of perf/RESULTS.md's section on these files (fourteenth session):
the CSR form's short-segment kernel against the fixed-size form's warp rows and CUB (call 3, H200),
its grid (call 4, H200, experiment knobs), its register budget (call 6, H100) and its tiny batches
(call 7, H100). NVBench's cold GPU medians, µs (perf/bench_summary.py's load). Call 5's ncu output
is call5-h100-ncu-short-vs-rows.txt.gz."""
import os
import sys
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", ".."))
import bench_summary as b


def times(name):
    return b.load(os.path.join(here, name + ".json.gz"))[1]


def t(run, T, seg, impl, n=26):
    v = run.get(("segmented_reduce", f"{T}, Segments {seg}", n, impl))
    return v[0] if v else None


def f(x):
    return "—" if x is None else f"{x:.1f}"


call3 = times("call3-h200-csr-fixed-cub")
print("\n## Call 3 (H200): CSR (rk::device) against the fixed-size form, CUB 3.0.1 and the CSR probe, 2^26 items, µs\n")
print("| T | segments of | rk::device (CSR) | rk fixed | CUB 3.0.1 | probe | CSR / fixed | CSR / CUB |")
print("|---|---:|---:|---:|---:|---:|---|---|")
for T in ["float", "double"]:
    for seg in ["all 1024", "all 4096", "all 8192", "all 16384"]:
        c, x, u, p = (t(call3, T, seg, i) for i in ["rk::device", "rk fixed", "cub", "probe"])
        print(f"| {T} | {seg[4:]} | {f(c)} | {f(x)} | {f(u)} | {f(p)} | {c / x:.3f} | {c / u:.3f} |")

segs13 = ["all 1", "all 8", "all 32", "all 256", "all 1024", "all 4096", "all 8192", "all 16384", "all 65536",
          "one of n/2 + 1-8", "power law", "half empty", "random mix 1-10^5"]
grid = {k: times(f"call4-h200-grid-{k}") for k in ["base-r1", "base-r2", "b8w1-r1", "b8w4-r1", "b8w4-r2", "b8w16-r1"]}
print("\n## Call 4 (H200): the short kernel's grid, rk::device, 2^26 items, µs (main: at least 32 segments a block, one wave)\n")
print("| T | segments | main (r1 / r2) | 8 a block, 1 wave | 8 a block, 4 waves (r1 / r2) | 8 a block, 16 waves | 4 waves / main | probe |")
print("|---|---|---:|---:|---:|---:|---|---:|")
for T in ["float", "double"]:
    for seg in segs13:
        m = [t(grid[k], T, seg, "rk::device") for k in ["base-r1", "base-r2"]]
        w4 = [t(grid[k], T, seg, "rk::device") for k in ["b8w4-r1", "b8w4-r2"]]
        print(f"| {T} | {seg} | {f(m[0])} / {f(m[1])} | {f(t(grid['b8w1-r1'], T, seg, 'rk::device'))} | "
              f"{f(w4[0])} / {f(w4[1])} | {f(t(grid['b8w16-r1'], T, seg, 'rk::device'))} | "
              f"{sum(w4) / sum(m):.3f} | {f(t(grid['base-r1'], T, seg, 'probe'))} |")

blocks = {k: times(f"call6-h100-blocks-{k}") for k in ["base-r1", "base-r2", "mb4-r1", "mb4-r2"]}
print("\n## Call 6 (H100): five blocks an SM (main, 48 registers) against four (64), rk::device, 2^26 items, µs\n")
print("| T | segments | five (r1 / r2) | four (r1 / r2) | four / five | probe | CUB 3.0.1 | five / probe | four / probe |")
print("|---|---|---:|---:|---|---:|---:|---|---|")
for T in ["int32", "float", "double"]:
    for seg in segs13:
        five = [t(blocks[k], T, seg, "rk::device") for k in ["base-r1", "base-r2"]]
        four = [t(blocks[k], T, seg, "rk::device") for k in ["mb4-r1", "mb4-r2"]]
        p = t(blocks["base-r1"], T, seg, "probe")
        print(f"| {T} | {seg} | {f(five[0])} / {f(five[1])} | {f(four[0])} / {f(four[1])} | {sum(four) / sum(five):.3f} | "
              f"{f(p)} | {f(t(blocks['mb4-r1'], T, seg, 'cub'))} | {five[0] / p:.3f} | {four[0] / p:.3f} |")

V = ["base", "mb4", "tb6", "tb8"]
batches = {f"{v}-{r}": times(f"call7-h100-batches-{v}-{r}") for v in V for r in ["r1", "r2"]}
segs8 = ["all 1", "all 2", "all 8", "all 32", "all 4096", "one of n/2 + 1-8", "power law", "half empty"]
print("\n## Call 7 (H100): five blocks and 4 tiny batches (main) against four blocks with 4, 6 and 8, rk::device, 2^26 items, µs (r1 / r2)\n")
print("| T | segments | main | four, 4 | four, 6 | four, 8 | four, 8 / main | probe |")
print("|---|---|---:|---:|---:|---:|---|---:|")
for T in ["int32", "float", "double"]:
    for seg in segs8:
        v = {k: [t(batches[f"{k}-{r}"], T, seg, "rk::device") for r in ["r1", "r2"]] for k in V}
        print(f"| {T} | {seg} | " + " | ".join(f"{f(v[k][0])} / {f(v[k][1])}" for k in V)
              + f" | {sum(v['tb8']) / sum(v['base']):.3f} | {f(t(batches['base-r1'], T, seg, 'probe'))} |")
