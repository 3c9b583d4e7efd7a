"""python3 tables.py: the A/B of the twentieth session's call 1 (one H100, GPU-3519bfbe): main
(new, the library of 1dbdfd1), group-width-steps.patch (W) and three-blocks-two-rounds.patch (B),
rk_bench_segmented at 2^26, each binary twice (new, W, B, then B, W, new). NVBench's cold GPU
medians, µs, r1 / r2; the CSR probe from main's first run (the fixed-size form's own probe, which
reads no offsets, was not run: its ratio is left out)."""
import os
import sys
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", ".."))
import bench_summary as b

runs = {k: b.load(os.path.join(here, f"ab-{k}.json.gz"))[1] for k in
        ["new-r1", "new-r2", "W-r1", "W-r2", "B-r1", "B-r2"]}


def t(run, case, impl):
    v = runs[run].get(("segmented_reduce", case, 26, impl))
    return v[0] if v else None


def f(x):
    return "—" if x is None else f"{x:.1f}"


cases = sorted({(c, i) for (_, c, _, i) in runs["new-r1"] if i != "CSR probe"},
               key=lambda x: (x[1], x[0].split(",")[0], b.natural(x[0]) if hasattr(b, "natural") else x[0]))
print("| case | form | CSR probe | new | W | B | W / new | B / new | W / probe |")
print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for case, impl in cases:
    p = t("new-r1", case, "CSR probe")
    n = [t("new-r1", case, impl), t("new-r2", case, impl)]
    w = [t("W-r1", case, impl), t("W-r2", case, impl)]
    x = [t("B-r1", case, impl), t("B-r2", case, impl)]
    form = "CSR" if impl == "rk::device" else "fixed size"
    print(f"| {case.replace('Segments ', '')} | {form} | {f(p)} | {f(n[0])} / {f(n[1])} | {f(w[0])} / {f(w[1])} | "
          f"{f(x[0])} / {f(x[1])} | {sum(w) / sum(n):.3f} | {sum(x) / sum(n):.3f} | "
          + (f"{sum(w) / 2 / p:.3f} |" if impl == "rk::device" else "— |"))
