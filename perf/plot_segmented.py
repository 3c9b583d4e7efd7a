#!/usr/bin/env python3
"""Draws rk_perf_segmented's tables as a PNG.

Default: for every table (type and size), the time of rk::device (CSR form) and of CUB per
segment-length distribution, as a multiple of the CSR probe's time (items, offsets and outputs;
the plain probe where a table has no CSR probe), on a log axis: 1 is the speed of light, the
dashed line at 1.15 issue 28's target.

--by-length: for every type, time over probe against the segment length (the "all N" rows) on
log-log axes, the CSR form against the CSR probe and the fixed-size form against the probe, one
line per run given (labelled with its commit): a flat line is a time that depends on the bytes
moved only, a step is a cliff.

    build/perf/rk_perf_segmented > segmented.md
    python3 perf/plot_segmented.py segmented.md -o segmented.png
    python3 perf/plot_segmented.py --by-length before.md after.md -o lengths.png

Needs only matplotlib (drawn with the Agg backend, no display).
"""

import argparse
import math
import re

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)

TARGET = 1.15


def number(column, name):
    try:
        return float(column[name])
    except (KeyError, ValueError):
        return None


def read_tables(path):
    """(commit, {"int32, 2^26": [row, ...], ...}) in the order printed; each row a dict of the
    segments' name, rk::device, rk fixed, CUB, probe and CSR probe times (None where absent)."""
    tables, current, header, commit = {}, None, None, "?"
    with open(path, encoding="utf-8") as f:
        for line in f:
            stamp = re.match(r"^- commit (\S+)", line.strip())
            if stamp:
                commit = stamp.group(1).rstrip(",")
                continue
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
            row = {
                "segments": column.get("segments", ""),
                "rk": number(column, "rk::device µs"),
                "fixed": number(column, "rk fixed µs"),
                "cub": number(column, "CUB µs"),
                "probe": number(column, "probe µs"),
                "csr_probe": number(column, "CSR probe µs"),
            }
            if row["rk"] is not None and row["probe"] is not None:
                tables[current].append(row)
    return commit, {name: rows for name, rows in tables.items() if rows}


def csr_probe(row):
    return row["csr_probe"] if row["csr_probe"] is not None else row["probe"]


def grid(count):
    columns = min(2, count)
    lines = math.ceil(count / columns)
    figure, axes = plt.subplots(lines, columns, figsize=(8 * columns, 4.2 * lines), squeeze=False)
    return figure, axes


def mark_probe_and_target(ax):
    """The speed of light and issue 28's target on a log time axis."""
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.axhline(TARGET, color="gray", linestyle="--", linewidth=0.8, label=f"{TARGET}x probe (target)")
    ax.set_yscale("log")


def save(figure, axes, panels, output):
    """Hides the grid's panels past the first `panels` and writes the figure."""
    for ax in list(axes.flat)[panels:]:
        ax.set_visible(False)
    figure.tight_layout()
    figure.savefig(output, dpi=110)


def plot_bars(tables, output):
    if not tables:
        raise SystemExit("plot_segmented.py: no rk_perf_segmented tables in the input")
    figure, axes = grid(len(tables))
    for ax, (name, rows) in zip(axes.flat, tables.items()):
        x = range(len(rows))
        width = 0.4
        ax.bar([i - width / 2 for i in x], [r["rk"] / csr_probe(r) for r in rows], width, label="rk::device")
        ax.bar([i + width / 2 for i in x], [(r["cub"] or float("nan")) / csr_probe(r) for r in rows], width,
               label="CUB")
        mark_probe_and_target(ax)
        ax.set_xticks(list(x))
        ax.set_xticklabels([r["segments"] for r in rows], rotation=45, ha="right", fontsize=8)
        ax.set_ylabel("time / CSR probe time")
        ax.set_title(name)
        ax.legend(fontsize=8)
    save(figure, axes, len(tables), output)


def plot_lengths(runs, output):
    """runs: [(commit, tables), ...]; one panel per table name, one line per run and form."""
    names = []
    for _, tables in runs:
        names += [n for n in tables if n not in names]
    if not names:
        raise SystemExit("plot_segmented.py: no rk_perf_segmented tables in the inputs")
    figure, axes = grid(len(names))
    for ax, name in zip(axes.flat, names):
        for commit, tables in runs:
            rows = [r for r in tables.get(name, []) if re.fullmatch(r"all \d+", r["segments"])]
            lengths = [int(r["segments"].split()[1]) for r in rows]
            ax.plot(lengths, [r["rk"] / csr_probe(r) for r in rows], marker="o", label=f"CSR form, {commit}")
            fixed = [(n, r["fixed"] / r["probe"]) for n, r in zip(lengths, rows) if r["fixed"] is not None]
            if fixed:
                ax.plot([n for n, _ in fixed], [v for _, v in fixed], marker=".", linestyle=":",
                        label=f"fixed size, {commit}")
        mark_probe_and_target(ax)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("items per segment")
        ax.set_ylabel("time / probe time")
        ax.set_title(name)
        ax.legend(fontsize=7)
    save(figure, axes, len(names), output)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("tables", nargs="+", help="rk_perf_segmented's output (markdown); several with --by-length")
    parser.add_argument("-o", "--output", default="rk_perf_segmented.png")
    parser.add_argument("--by-length", action="store_true", help="time over probe against the segment length")
    args = parser.parse_args()
    if args.by_length:
        plot_lengths([read_tables(path) for path in args.tables], args.output)
    else:
        if len(args.tables) != 1:
            raise SystemExit("plot_segmented.py: one table file, or --by-length for several")
        plot_bars(read_tables(args.tables[0])[1], args.output)


if __name__ == "__main__":
    main()
