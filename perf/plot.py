#!/usr/bin/env python3
"""Draws rk_perf's JSON as a PNG: GB/s against the element count (log2 axis), one subplot per
element type, one line per implementation (the CUB peer's rows included), the read-bandwidth
probe dashed.

    python3 perf/plot.py rk_perf.json -o rk_perf.png

Needs only matplotlib (drawn with the Agg backend, no display).
"""

import argparse
import json
import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)


def in_order_of_appearance(values):
    return list(dict.fromkeys(values))


def plot(data, output):
    # Rows without a device time (thrust's host-only rows) have no bandwidth to draw.
    rows = [r for r in data["results"] if r.get("gbps") is not None]
    if not rows:
        raise SystemExit("plot.py: no device-timed results in the JSON")
    types = in_order_of_appearance(r["type"] for r in rows)

    columns = min(2, len(types))
    lines = math.ceil(len(types) / columns)
    figure, axes = plt.subplots(lines, columns, figsize=(7 * columns, 4.5 * lines), squeeze=False)
    for ax, element_type in zip(axes.flat, types):
        typed = [r for r in rows if r["type"] == element_type]
        for impl in in_order_of_appearance(r["impl"] for r in typed):
            points = sorted((r["n"], r["gbps"]) for r in typed if r["impl"] == impl)
            sizes, gbps = zip(*points)
            if impl == "probe":
                ax.plot(sizes, gbps, label=impl, color="black", linestyle="--", linewidth=1.5)
            elif impl.endswith(" probe"):  # the CUB peer's probe, timed in its own process
                ax.plot(sizes, gbps, label=impl, color="grey", linestyle=":", linewidth=1.5)
            else:
                ax.plot(sizes, gbps, label=impl, marker="o", markersize=3)
        ax.set_xscale("log", base=2)
        ax.set_title(element_type)
        ax.set_xlabel("elements")
        ax.set_ylabel("GB/s (input bytes / device time)")
        ax.grid(True, which="major", alpha=0.3)
        ax.legend(fontsize="small", ncol=2 if data.get("mode") == "sweep" else 1)
    for ax in list(axes.flat)[len(types):]:
        ax.set_visible(False)

    figure.suptitle(
        f"rk_perf{' --sweep' if data.get('mode') == 'sweep' else ''} on {data.get('device', '?')}, "
        f"commit {data.get('commit', '?')}, {data.get('date', '?')}"
    )
    figure.tight_layout()
    figure.savefig(output, dpi=120)
    print(f"plot.py: wrote {output}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("json", help="the file rk_perf --json wrote")
    parser.add_argument("-o", "--output", default="rk_perf.png", help="the PNG to write (default rk_perf.png)")
    args = parser.parse_args()
    with open(args.json) as f:
        data = json.load(f)
    plot(data, args.output)


if __name__ == "__main__":
    main()
