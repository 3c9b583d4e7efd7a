"""python3 tables.py: packed lanes' A/B (twenty-first session, call 4: callp.sh, one H100,
see device.txt): main (new: 3dce80f's library) against packed lanes with two rounds in flight (P2),
four (P4), and P2 with the long list's kernels returning at once when nothing was listed (P2E),
rk_bench_segmented at 2^26, each twice (new, P2, P4, P2E, then P2E, P4, P2, new). NVBench's cold
GPU medians, us, r1 / r2; rk::device (the CSR form); the CSR probe from main's first run."""
import os, sys
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", ".."))
import bench_summary as b
V = ["new", "P2", "P4", "P2E"]
runs = {f"{v}-r{r}": b.load(os.path.join(here, f"{v}-r{r}.json.gz"))[1] for v in V for r in (1, 2)}
def t(run, case, impl="rk::device"):
    v = runs[run].get(("segmented_reduce", case, 26, impl))
    return v[0] if v else None
cases = sorted({c for (_, c, _, i) in runs["P2-r1"]}, key=lambda c: (c.split(",")[0], b.natural(c)))
print("| case | CSR probe | new | P2 | P4 | P2E | P2 / new | P4 / new | P2E / new | P2E / probe |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for case in cases:
    p = t("new-r1", case, "CSR probe")
    n, p2, p4, p2e = ([t(f"{v}-r{r}", case) for r in (1, 2)] for v in V)
    print(f"| {case.replace('Segments ', '')} | {p:.1f} | {n[0]:.1f} / {n[1]:.1f} | {p2[0]:.1f} / {p2[1]:.1f} | "
          f"{p4[0]:.1f} / {p4[1]:.1f} | {p2e[0]:.1f} / {p2e[1]:.1f} | {sum(p2) / sum(n):.3f} | {sum(p4) / sum(n):.3f} | {sum(p2e) / sum(n):.3f} | {min(p2e)/p:.3f} |")
