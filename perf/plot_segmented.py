#!/usr/bin/env python3
"""Draws rk_perf_segmented's tables as a PNG: for every table (type and size), the time of
rk::device and of CUB per segment-length distribution, as a multiple of the probe's time (log
axis; 1 is the speed of light, the dashed line at 1.3 the issue's target).

    build/perf/rk_perf_segmented > segmented.md
    python3 perf/plot_segmented.py segmented.md -o segmented.png

Needs only matplotlib (drawn with the Agg backend, no display).
"""

import argparse
import math
import re

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)


def read_tables(path):
    """{"int32, 2^26": [(row name, rk µs, CUB µs, probe µs), ...], ...} in the order printed."""
    tables, current, header = {}, None, None
    with open(path, encoding="utf-8") as f:
        for line in f:
            heading = re.match(r"^### (.+)$", line.strip())
            if heading:
                current, header = heading.group(1).replace(" items", ""), None
                tables[current] = []
                continue
            if current is None or not line.startswith("|"):
                continue
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if header is None:
                header = cells
                continue
            if cells[0].startswith("---") or len(cells) != len(header):
                continue
            column = dict(zip(header, cells))
            try:
                tables[current].append(
                    (column["segments"], float(column["rk::device µs"]), float(column["CUB µs"]),
                     float(column["probe µs"])))
            except (KeyError, ValueError):
                continue
    return {name: rows for name, rows in tables.items() if rows}


def plot(tables, output):
    if not tables:
        raise SystemExit("plot_segmented.py: no rk_perf_segmented tables in the input")
    columns = min(2, len(tables))
    lines = math.ceil(len(tables) / columns)
    figure, axes = plt.subplots(lines, columns, figsize=(8 * columns, 4.2 * lines), squeeze=False)
    for ax, (name, rows) in zip(axes.flat, tables.items()):
        labels = [r[0] for r in rows]
        x = range(len(rows))
        width = 0.4
        ax.bar([i - width / 2 for i in x], [r[1] / r[3] for r in rows], width, label="rk::device")
        ax.bar([i + width / 2 for i in x], [r[2] / r[3] for r in rows], width, label="CUB")
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.axhline(1.3, color="gray", linestyle="--", linewidth=0.8, label="1.3x probe (target)")
        ax.set_yscale("log")
        ax.set_xticks(list(x))
        ax.set_xticklabels(labels, rotation=45, ha="right", fontsize=8)
        ax.set_ylabel("time / probe time")
        ax.set_title(name)
        ax.legend(fontsize=8)
    for ax in list(axes.flat)[len(tables):]:
        ax.set_visible(False)
    figure.tight_layout()
    figure.savefig(output, dpi=110)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("tables", help="rk_perf_segmented's output (markdown)")
    parser.add_argument("-o", "--output", default="rk_perf_segmented.png")
    args = parser.parse_args()
    plot(read_tables(args.tables), args.output)


if __name__ == "__main__":
    main()
