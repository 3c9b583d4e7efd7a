#!/usr/bin/env python3
"""Draws rk's NVBench runs (the JSON of perf/bench's binaries) as a PNG, from what the run holds:

- rk_bench_reduce (and rk_bench_cub_peer's file joined with '+'): GB/s against the element count
  (log2 axis), one subplot per type, one line per implementation, the read probe dashed;
- rk_bench_segmented: time over the CSR probe against the segment length (the "all N" rows, log-log),
  one subplot per type, rk::device, the fixed-size form (over the plain probe) and CUB: a flat line
  is a time that depends on the bytes moved only, a step is a cliff; the dashed line is issue 28's
  1.15 target.

    python3 perf/plot.py build/perf-results/rk_bench_reduce.json -o reduce.png
    python3 perf/plot.py build/perf-results/rk_bench_segmented.json -o segmented.png

Needs matplotlib (drawn with the Agg backend, no display); reads the files as bench_summary.py does.
"""

import argparse
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_summary import TYPES, load  # noqa: E402

BYTES = {"int32": 4, "int64": 8, "float": 4, "double": 8}
SEGMENTED_TARGET = 1.15


def grid(count, title):
    columns = min(2, count)
    lines = math.ceil(count / columns)
    figure, axes = plt.subplots(lines, columns, figsize=(7 * columns, 4.5 * lines), squeeze=False)
    figure.suptitle(title)
    for ax in list(axes.flat)[count:]:
        ax.set_visible(False)
    return figure, list(axes.flat)


def plot_reduce(times, title):
    types = [t for t in TYPES.values() if any(k[0] == "reduce" and k[1] == t for k in times)]
    figure, axes = grid(len(types), title)
    for ax, t in zip(axes, types):
        impls = list(dict.fromkeys(k[3] for k in times if k[0] == "reduce" and k[1] == t))
        for impl in impls:
            points = sorted((2 ** s, 2 ** s * BYTES[t] / (v[0] * 1e3))
                            for (b, c, s, i), v in times.items() if b == "reduce" and c == t and i == impl)
            sizes, gbps = zip(*points)
            style = dict(color="black", linestyle="--", linewidth=1.5) if impl == "probe" else dict(marker="o", markersize=3)
            ax.plot(sizes, gbps, label=impl, **style)
        ax.set_xscale("log", base=2)
        ax.set_title(t)
        ax.set_xlabel("elements")
        ax.set_ylabel("GB/s (input bytes / NVBench cold median)")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="small")
    return figure


def plot_segmented(times, title):
    keys = [k for k in times if k[0] == "segmented_reduce" and ", Segments all " in k[1]]
    types = list(dict.fromkeys(k[1].split(",")[0] for k in keys))
    figure, axes = grid(len(types), title)
    for ax, t in zip(axes, types):
        for impl, probe in (("rk::device", "CSR probe"), ("rk fixed", "probe"), ("cub", "CSR probe")):
            points = []
            for b, case, s, i in keys:
                if case.startswith(t + ",") and i == impl and (b, case, s, probe) in times:
                    length = int(case.rsplit(" ", 1)[-1])
                    points.append((length, times[(b, case, s, impl)][0] / times[(b, case, s, probe)][0]))
            if points:
                lengths, ratios = zip(*sorted(points))
                ax.plot(lengths, ratios, label=f"{impl} / {probe}", marker="o", markersize=3)
        ax.axhline(SEGMENTED_TARGET, color="black", linestyle="--", linewidth=1)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(t)
        ax.set_xlabel("items per segment")
        ax.set_ylabel("time / probe time")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize="small")
    return figure


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("json", help="an NVBench JSON file of perf/bench (files joined with '+' read as one run)")
    parser.add_argument("-o", "--output", required=True, help="the PNG to write")
    args = parser.parse_args()
    doc, times = load(args.json)
    device = ", ".join(d.get("name", "?") for d in doc.get("devices", []))
    title = f"{os.path.basename(args.json)} on {device or '?'}"
    if any(k[0] == "reduce" for k in times):
        figure = plot_reduce(times, title)
    elif any(k[0] == "segmented_reduce" for k in times):
        figure = plot_segmented(times, title)
    else:
        raise SystemExit("plot.py: no reduce or segmented_reduce states in " + args.json)
    figure.tight_layout()
    figure.savefig(args.output, dpi=120)
    print(f"plot.py: wrote {args.output}")


if __name__ == "__main__":
    main()
