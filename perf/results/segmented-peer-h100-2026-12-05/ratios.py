"""python3 ratios.py RUN1.json+PEER1.json [RUN2.json+PEER2.json]

rk::device against the CUB 3.6 peer's CSR form and the fixed-size form against its fixed-size form,
per type and row, from rk_bench_segmented's and rk_bench_cub_peer_segmented's runs."""
import os
import sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import bench_summary as b
runs = [b.load(p)[1] for p in sys.argv[1:]]
rows = ["all 1","all 2","all 4","all 8","all 32","all 64","all 256","all 1024","all 4096","all 8192","all 16384","all 65536","all 1048576","all 16777216","one of n/2 + 1-8","power law","one segment"]
for T in ["int32","float","double","int64"]:
    print(f"\n{T}, 2^26 (µs, run 1; ratios run 1 / run 2)\n")
    print("| segments | rk::device | cub3.6 | rk::device / cub3.6 | rk fixed | cub3.6 fixed | rk fixed / cub3.6 fixed |")
    print("|---|---:|---:|---|---:|---:|---|")
    for r in rows:
        k = lambda impl: ("segmented_reduce", f"{T}, Segments {r}", 26, impl)
        def cell(a, c):
            v = [t.get(k(a)) for t in runs]; w = [t.get(k(c)) for t in runs]
            rs = [f"{x[0]/y[0]:.3f}" for x, y in zip(v, w) if x and y]
            return (f"{v[0][0]:.1f}" if v[0] else "—"), (f"{w[0][0]:.1f}" if w[0] else "—"), (" / ".join(rs) if rs else "—")
        a = cell("rk::device", "cub3.6"); f = cell("rk fixed", "cub3.6 fixed")
        print(f"| {r} | {a[0]} | {a[1]} | {a[2]} | {f[0]} | {f[1]} | {f[2]} |")
