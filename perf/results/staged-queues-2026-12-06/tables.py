"""python3 tables.py: the staged lane-group queues' A/B (twentieth session, call 8, one H100,
GPU-7a16d886): main (new, 3dce80f's library) against staged-queues-per-item.patch with two
rounds staged (S2) and three (S3), rk_bench_segmented at 2^26, each twice (new, S2, S3, then S3,
S2, new). NVBench's cold GPU medians, µs, r1 / r2; rk::device (the CSR form); the CSR probe from
main's first run."""
import os
import sys
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", ".."))
import bench_summary as b

runs = {k: b.load(os.path.join(here, f"ab-{k}.json.gz"))[1] for k in
        ["new-r1", "new-r2", "S2-r1", "S2-r2", "S3-r1", "S3-r2"]}


def t(run, case, impl="rk::device"):
    v = runs[run].get(("segmented_reduce", case, 26, impl))
    return v[0] if v else None


cases = sorted({c for (_, c, _, i) in runs["S2-r1"]}, key=lambda c: (c.split(",")[0], b.natural(c)))
print("| case | CSR probe | new | S2 | S3 | S2 / new | S3 / new |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
for case in cases:
    p = t("new-r1", case, "CSR probe")
    n, s2, s3 = ([t(f"{v}-r{r}", case) for r in (1, 2)] for v in ("new", "S2", "S3"))
    print(f"| {case.replace('Segments ', '')} | {p:.1f} | {n[0]:.1f} / {n[1]:.1f} | {s2[0]:.1f} / {s2[1]:.1f} | "
          f"{s3[0]:.1f} / {s3[1]:.1f} | {sum(s2) / sum(n):.3f} | {sum(s3) / sum(n):.3f} |")
