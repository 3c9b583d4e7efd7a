#!/usr/bin/env python3
"""Tables and targets from rk's NVBench benchmarks (perf/bench): reads the JSON that
`rk_bench_reduce --json FILE` (or rk_bench_family's) writes and prints, per type, each
implementation's time (the median of NVBench's cold GPU samples, µs; CPU time for round trips) with
rk's ratios to its peers and to the probe, then the targets with PASS, MISS or "within noise" (the
limit lies inside the ratio's interval, taken from the two implementations' quartiles). Given two
runs, it prints both and whether the verdicts agree. A run of both binaries: pass their files
joined with '+' (reduce.json+family.json).

    python3 perf/bench_summary.py run1.json[+run1b.json] [run2.json[+run2b.json]]   (.json.gz too)

Standard library only.
"""
import gzip
import json
import sys

TYPES = {"I32": "int32", "I64": "int64", "F32": "float", "F64": "double"}
IMPLS = ["rk::device", "rk::single_pass", "rk::two_pass", "rk::atomic", "cub", "probe"]
# Benchmarks whose calls return to the host (NVBench's CPU time of a synchronizing call).
ROUND_TRIPS = {"reduce_round_trip", "reduce_by_key"}
# rk_bench_family's and rk_bench_segmented's benchmarks: their implementations, and their targets:
# (rk's implementation, the one it is measured against, True for "at most" / False for "at least",
# the limit, the label); the tables show the first target's ratio and the implementation's to the probe.
FAMILY = {
    "transform_reduce": (["rk::transform_reduce", "rk::reduce", "probe"],
                         [("rk::transform_reduce", "rk::reduce", True, 1.05, "transform_reduce / rk::reduce (max) <= 1.05")]),
    "arg_min": (["rk::arg_min", "cub", "probe"],
                [("rk::arg_min", "cub", True, 1.00, "rk::arg_min / CUB ArgMin (max) <= 1.00")]),
    "segmented_arg_min": (["rk::segmented_arg_min", "rk::segmented_reduce", "cub", "probe"],
                          [("rk::segmented_arg_min", "rk::segmented_reduce", True, 1.10,
                            "segmented_arg_min / segmented_reduce's minimum (max) <= 1.10")]),
    "reduce_by_key": (["rk::reduce_by_key", "thrust::reduce_by_key", "cub", "probe"],
                      [("rk::reduce_by_key", "thrust::reduce_by_key", True, 0.50,
                        "rk::reduce_by_key / thrust::reduce_by_key, round trips (max) <= 0.50"),
                       ("rk::reduce_by_key", "cub", True, 1.00,
                        "rk::reduce_by_key / CUB ReduceByKey, round trips (max) <= 1.00")]),
    "reduce_axes": (["rk::device", "probe"],
                    [("rk::device", "probe", True, 1.10, "rk::device / probe (max) <= 1.10")]),
    "mean_var_axes": (["rk::device", "probe"],
                      [("rk::device", "probe", True, 1.15, "rk::mean_var over axes: rk::device / probe (max) <= 1.15")]),
    "segmented_reduce": (["rk::device", "rk CUB form", "rk fixed", "rk::two_pass", "rk::atomic", "cub", "probe",
                          "CSR probe", "rk::reduce_into", "rk::single_pass", "rk affine"],
                         [("rk::device", "CSR probe", True, 1.15, "rk::device / CSR probe (max) <= 1.15"),
                          ("rk fixed", "probe", True, 1.15, "fixed-size form / probe (max) <= 1.15"),
                          ("rk::device", "cub", True, 1.00, "rk::device / CUB (max) <= 1.00"),
                          ("rk::device", "rk::reduce_into", True, 1.05, "one segment: rk::device / rk::reduce_into <= 1.05"),
                          ("rk affine", "rk::device", True, 1.10, "int64: affine maps / plus on rk::device (max) <= 1.10")]),
}


def summary_value(state, tag):
    for s in state.get("summaries") or []:
        if s.get("tag") == tag:
            for d in s.get("data", []):
                if d.get("name") == "value":
                    return float(d["value"])
    return None


def load(paths):
    """{(benchmark, case, log2 n, impl): (median, q1, q3) in µs} from one run's files ('+'-joined):
    the case is the type, and any other axis (a segment or run length) after it."""
    doc, times = {"devices": []}, {}
    for path in paths.split("+"):
        part, part_times = load_file(path)
        doc["devices"] = doc["devices"] or part.get("devices", [])
        times.update(part_times)
    return doc, times


def load_file(path):
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        doc = json.load(f)
    times = {}
    for bench in doc.get("benchmarks", []):
        for state in bench.get("states", []):
            if state.get("is_skipped"):
                continue
            axes = {a["name"]: a["value"] for a in state.get("axis_values", [])}
            n = int(axes["Elements"])
            case = [TYPES.get(axes["T"], axes["T"])] if "T" in axes else []
            case += [f"{name} {value}" for name, value in axes.items() if name not in ("T", "Elements", "Impl")]
            key = (bench["name"], ", ".join(case) or "float", n.bit_length() - 1, axes["Impl"])
            kind = "cpu" if bench["name"] in ROUND_TRIPS else "gpu"
            mid = summary_value(state, f"nv/cold/time/{kind}/median")
            if mid is None:
                mid = summary_value(state, f"nv/cold/time/{kind}/mean")
            if mid is None:
                continue
            q1 = summary_value(state, f"nv/cold/time/{kind}/q1")
            q3 = summary_value(state, f"nv/cold/time/{kind}/q3")
            if q1 is None or q3 is None:
                # Without quartiles the interval is a point: no case can read "within noise".
                print(f"warning: {path}: no quartiles for {key}", file=sys.stderr)
                q1 = q3 = mid
            times[key] = (mid * 1e6, q1 * 1e6, q3 * 1e6)
    return doc, times


def ratio(times, a, b):
    """a's time over b's: (median ratio, low, high) from the quartiles, or None."""
    if a not in times or b not in times:
        return None
    (ma, la, ha), (mb, lb, hb) = times[a], times[b]
    return ma / mb, la / hb, ha / lb


def tables(times):
    out = []
    types = [t for t in TYPES.values() if any(k[1] == t and k[0] == "reduce" for k in times)]
    for t in types:
        sizes = sorted({k[2] for k in times if k[0] == "reduce" and k[1] == t})
        impls = [i for i in IMPLS if any(k[3] == i and k[1] == t for k in times)]
        out.append(f"\n{t} (µs per call, NVBench cold median)\n")
        out.append("| n | " + " | ".join(impls) + " | device / probe | CUB / device |")
        out.append("|---|" + "---:|" * (len(impls) + 2))
        for s in sizes:
            cells = [f"{times[('reduce', t, s, i)][0]:.2f}" if ("reduce", t, s, i) in times else "—" for i in impls]
            p = ratio(times, ("reduce", t, s, "rk::device"), ("reduce", t, s, "probe"))
            c = ratio(times, ("reduce", t, s, "cub"), ("reduce", t, s, "rk::device"))
            cells.append(f"{p[0]:.3f}" if p else "—")
            cells.append(f"{c[0]:.3f}" if c else "—")
            out.append(f"| 2^{s} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def family_tables(times):
    out = []
    for bench, (impls, goals) in FAMILY.items():
        mine, peer = goals[0][0], goals[0][1]
        cases = sorted({(k[1], k[2]) for k in times if k[0] == bench}, key=lambda c: (c[1], natural(c[0])))
        if not cases:
            continue
        kind = "CPU time of a round trip" if bench in ROUND_TRIPS else "NVBench cold median"
        out.append(f"\n{bench} (µs per call, {kind})\n")
        # Against the target's peer and against the probe: one column where the peer is the probe.
        columns = [peer] + (["probe"] if peer != "probe" else [])
        out.append("| case | n | " + " | ".join(impls) + "".join(f" | {mine} / {b}" for b in columns) + " |")
        out.append("|---|---|" + "---:|" * (len(impls) + len(columns)))
        for c, s in cases:
            cells = [f"{times[(bench, c, s, i)][0]:.2f}" if (bench, c, s, i) in times else "—" for i in impls]
            for b in columns:
                r = ratio(times, (bench, c, s, mine), (bench, c, s, b))
                cells.append(f"{r[0]:.3f}" if r else "—")
            out.append(f"| {c} | 2^{s} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def natural(label):
    """Sorts '... 8' before '... 256', '8+3' after '8'."""
    tail = label.rsplit(" ", 1)[-1]
    head = tail.split("+")[0]
    return (label[: len(label) - len(tail)], int(head) if head.isdigit() else 0, tail)


def family_targets(times):
    rows = []
    for bench, (_, goals) in FAMILY.items():
        for mine, peer, at_most, limit, label in goals:
            cases = sorted({(k[1], k[2]) for k in times if k[0] == bench and k[3] == mine})
            pairs = [(f"{c} 2^{s}", (bench, c, s, mine), (bench, c, s, peer)) for c, s in cases
                     if (bench, c, s, peer) in times]
            if pairs:
                rows.append(target(f"{bench}: {label}", times, pairs, at_most, limit))
    return rows


def target(name, times, pairs, at_most, limit):
    """The cases' ratios against `limit`: MISS if any case's interval lies past it, else within
    noise if any straddles it, else PASS; shown with the case that decides (the worst of those
    with the verdict) and how many of the expected cases the run had."""
    cases = {"PASS": [], "within noise": [], "MISS": []}
    for label, a, b in pairs:
        r = ratio(times, a, b)
        if r is None:
            continue
        m, lo, hi = r
        ok_all = hi <= limit if at_most else lo >= limit
        bad_all = lo > limit if at_most else hi < limit
        cases["PASS" if ok_all else "MISS" if bad_all else "within noise"].append((label, m, lo, hi))
    found = sum(len(c) for c in cases.values())
    if found == 0:
        return name, "no data", None
    verdict = "MISS" if cases["MISS"] else "within noise" if cases["within noise"] else "PASS"
    label, m, lo, hi = (max if at_most else min)(cases[verdict], key=lambda c: c[1])
    return name, f"{m:.3f} [{lo:.3f}-{hi:.3f}] {verdict} ({label}; {found} of {len(pairs)} cases)", verdict


def targets(times):
    # Every (type, size) any implementation ran: a case some implementation lacks counts as missing.
    cases = sorted({(k[1], k[2]) for k in times if k[0] == "reduce"})
    def pairs(a_impl, b_impl, lo=0, hi=99, bench="reduce"):
        return [(f"{t} 2^{s}", (bench, t, s, a_impl), (bench, t, s, b_impl)) for t, s in cases if lo <= s <= hi]
    rt = sorted({(k[1], k[2]) for k in times if k[0] == "reduce_round_trip"})
    if not cases and not rt:
        return family_targets(times)
    return [
        target("rk::device time / CUB time, every case (max) <= 1.00", times, pairs("rk::device", "cub"), True, 1.00),
        target("probe time / rk::device time, n >= 2^26 (min) >= 0.99", times, pairs("probe", "rk::device", 26), False, 0.99),
        target("rk::device time / probe time, 2^14 <= n <= 2^22 (max) <= 1.25", times, pairs("rk::device", "probe", 14, 22), True, 1.25),
        target("rk::reduce round trip / thrust::reduce's, n <= 2^20 (max) <= 0.50", times,
               [(f"{t} 2^{s}", ("reduce_round_trip", t, s, "rk::reduce"), ("reduce_round_trip", t, s, "thrust::reduce"))
                for t, s in rt if s <= 20], True, 0.50),
    ] + family_targets(times)


def main(paths):
    runs = [load(p) for p in paths]
    for path, (doc, times) in zip(paths, runs):
        dev = ", ".join(d.get("name", "?") for d in doc.get("devices", []))
        print(f"# {path}: {dev}")
        for text in (tables(times), family_tables(times)):
            if text:
                print(text)
    print("\n## Targets\n")
    header = "| target | " + " | ".join(f"run {i + 1}" for i in range(len(runs))) + (" | verdicts agree |" if len(runs) > 1 else "")
    print(header)
    print("|---" * (len(runs) + 1 + (len(runs) > 1)) + "|")
    results = [targets(times) for _, times in runs]
    agree = 0
    for row in zip(*results):
        cells = [r[1] for r in row]
        same = len({r[2] for r in row}) == 1 and row[0][2] is not None
        agree += same
        print(f"| {row[0][0]} | " + " | ".join(cells) + (f" | {'yes' if same else 'NO'} |" if len(runs) > 1 else " |"))
    if len(runs) > 1:
        print(f"\n{agree} of {len(results[0])} verdicts agree across the runs")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
