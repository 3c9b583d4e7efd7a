#!/usr/bin/env python3
"""Tables and targets from rk's NVBench benchmarks (perf/bench): reads the JSON that
`rk_bench_reduce --json FILE` (or rk_bench_family's) writes and prints, per type, each
implementation's time (the median of NVBench's cold GPU samples, µs; CPU time for round trips) with
rk's ratios to its peers and to the probe, then the targets with PASS, MISS or "within noise" (the
limit lies inside the ratio's interval, taken from the two implementations' quartiles). Given two
runs, it prints both and whether the verdicts agree. A run of both binaries: pass their files
joined with '+' (reduce.json+family.json).

    python3 perf/bench_summary.py run1.json[+run1b.json] [run2.json[+run2b.json]]   (.json.gz too)
    python3 perf/bench_summary.py --expect summary.md run1.json [run2.json]

--expect compares what it would print with a stored summary (lines starting with "# ", which name
the files, aside) and exits 1, printing the difference, where they differ.

Standard library only.
"""
import contextlib
import difflib
import gzip
import io
import json
import re
import sys

TYPES = {"I32": "int32", "I64": "int64", "F32": "float", "F64": "double"}
IMPLS = ["rk::device", "rk::single_pass", "rk::two_pass", "rk::atomic", "cub", "probe"]
# The flat reduce's other rows: the grid-ordered tree, the affine maps (int64), the CUB peer's modes
# (rk_bench_cub_peer, "cub3.6 ..."), each shown where the run has it.
OTHER_IMPLS = ["rk::single_pass grid-ordered", "rk::two_pass grid-ordered", "rk::single_pass affine",
               "rk::two_pass affine", "rk::device affine"]
# Benchmarks whose calls return to the host (NVBench's CPU time of a synchronizing call).
ROUND_TRIPS = {"reduce_round_trip", "reduce_by_key", "accumulator_host"}
# CPU-only benchmarks (NVBench's cpu_only tags): host work, no GPU.
CPU_ONLY = {"combine_finish", "nccl_latency", "nccl_throughput"}
# Stands for the CUB peer's rows in a benchmark's implementations and targets: "cubM.m", the version
# the peer binaries (rk_bench_cub_peer*) were built against, as the run names them.
PEER = "cub<peer>"
# Every benchmark but the flat reduce's: its implementations, and its targets: (rk's implementation,
# the one it is measured against, or None for a limit in µs; True for "at most" / False for "at
# least"; the limit; the label[; {"from": the smallest log2 n it applies to, "skip": endings of the
# case labels it leaves out}]). The tables show the first target's ratio and the implementation's
# to the probe. rk_bench_nccl's states record their rank count in the case's label (with one rank
# there is no speed-up to judge) and whether the ranks had symmetric memory; a sample there holds
# Calls calls, divided out when the file is read.
TWO_RANKS = {"skip": (" 1 rank",)}
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
    "reduce_partial": (["rk::reduce_into", "partial at 0", "partial at 12345", "probe"],
                       [("partial at 0", "rk::reduce_into", True, 1.05, "partial at 0 / rk::reduce_into, n >= 2^20 (max) <= 1.05", {"from": 20}),
                        ("partial at 12345", "rk::reduce_into", True, 1.05,
                         "partial at 12345 / rk::reduce_into, n >= 2^20 (max) <= 1.05", {"from": 20})]),
    "accumulator": (["rk::accumulator", "rk::reduce_into", "16 rk::reduce_into"],
                    [("rk::accumulator", "rk::reduce_into", True, 1.05, "16 device chunks / one rk::reduce_into (max) <= 1.05")]),
    "accumulator_host": (["rk::accumulator", "cudaMemcpyAsync"],
                         [("rk::accumulator", "cudaMemcpyAsync", True, 1 / 0.9,
                           "host data: accumulator time / copy time (max) <= 1.111, a bandwidth share >= 0.90")]),
    "device_count": (["device count", "host count", "probe"],
                     [("device count", "host count", True, 1.10, "device count / host count, n >= 2^20 (max) <= 1.10", {"from": 20})]),
    "combine_finish": (["rk::combine + rk::finish"],
                       [("rk::combine + rk::finish", None, True, 2.0,
                         "rk::combine + rk::finish of two pieces on the host, µs (max) < 2")]),
    "nccl_latency": (["rk::nccl (whole call)", "rk::nccl(workspace) (whole call)", "rk::nccl(workspace), offset given (whole call)",
                      "values exchange (workspace), before partials", "cub Sum + ncclAllReduce", "rk::device, shard only",
                      "gather-and-fold step", "symmetric step", "ncclAllReduce, 1 element", "ncclAllGather, 1 record",
                      "ncclAllGather x2, grouped"],
                     [("rk::nccl(workspace) (whole call)", "values exchange (workspace), before partials", True, 1.5,
                       "rk::nccl(workspace) / the values exchange it replaced (max) <= 1.5", TWO_RANKS),
                      ("rk::nccl(workspace), offset given (whole call)", "values exchange (workspace), before partials", True, 1.5,
                       "rk::nccl(workspace) with the offset given / the values exchange (max) <= 1.5", TWO_RANKS),
                      ("gather-and-fold step", "ncclAllReduce, 1 element", True, 1.0,
                       "gather-and-fold step / ncclAllReduce of one element (max) <= 1.0", TWO_RANKS),
                      ("symmetric step", "ncclAllReduce, 1 element", True, 1.0,
                       "symmetric step / ncclAllReduce of one element (max) <= 1.0",
                       {"skip": (" 1 rank", "no symmetric memory")})]),
    "nccl_throughput": (["rk::nccl", "rk::nccl(workspace)", "rk::device, GPU 0 alone"],
                        [("rk::device, GPU 0 alone", "rk::nccl", False, 1.9,
                          "speed-up: one GPU's time / rk::nccl's (min) >= 1.9", TWO_RANKS),
                         ("rk::device, GPU 0 alone", "rk::nccl(workspace)", False, 1.9,
                          "speed-up through the workspace: one GPU's time / rk::nccl(workspace)'s (min) >= 1.9",
                          TWO_RANKS)]),
    "segmented_reduce": (["rk::device", "rk CUB form", "rk fixed", "rk::two_pass", "rk::atomic", "cub", PEER,
                          PEER + " fixed", "probe", "CSR probe", "rk::reduce_into", "rk::single_pass", "rk affine"],
                         [("rk::device", "CSR probe", True, 1.15, "rk::device / CSR probe (max) <= 1.15"),
                          ("rk fixed", "probe", True, 1.15, "fixed-size form / probe (max) <= 1.15"),
                          ("rk::device", "cub", True, 1.00, "rk::device / CUB (max) <= 1.00"),
                          ("rk fixed", "cub", True, 1.00, "fixed-size form / CUB (max) <= 1.00"),
                          ("rk::device", PEER, True, 1.00, "rk::device / CUB peer " + PEER + " (max) <= 1.00"),
                          ("rk fixed", PEER + " fixed", True, 1.00,
                           "fixed-size form / CUB peer " + PEER + "'s fixed-size form (max) <= 1.00"),
                          ("rk::device", "rk::reduce_into", True, 1.03, "one segment: rk::device / rk::reduce_into <= 1.03"),
                          # The same backend, as issue 28 asks: rk::device runs the affine maps
                          # (non-commutative) on rk::single_pass, and int64 plus on rk::atomic.
                          ("rk affine", "rk::single_pass", True, 1.10,
                           "int64: affine maps on rk::device (rk::single_pass) / plus on rk::single_pass (max) <= 1.10")]),
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


def axes_cells(paths):
    """rk_bench_axes's rk::device and probe times, {case: {(T, log2 n, layout): [(rk, probe), ...]}}
    in µs, one pair per run file."""
    out = {}
    for p in paths:
        _, t = load(p)
        for k in t:
            if k[3] != "rk::device":
                continue
            pk = (k[0], k[1], k[2], "probe")
            T, L, case = re.match(r"(\w+), Layout (\w+), Case (.*)", k[1]).groups()
            out.setdefault(case, {}).setdefault((T, k[2], L), []).append((t[k][0], t[pk][0]))
    return out


def axes_torch(path):
    """perf/torch_axes.py's table: {(case, T, log2 n, layout): torch µs}."""
    torch = {}
    for line in open(path):
        f = [x.strip() for x in line.split("|")]
        if len(f) > 6 and f[2] in ("float", "double"):
            torch[(f[1], f[2], int(f[3][2:]), f[4])] = float(f[6])
    return torch


AXES_COLUMNS = [(T, n, L) for T in ("float", "double") for n in (26, 28) for L in ("right", "left", "stride")]


def axes_table(title, cases, cell):
    """Prints a markdown table of the axes matrix: a row per case, a column per (T, log2 n, layout)
    of AXES_COLUMNS, each cell cell(case, column)."""
    print(f"\n## {title}\n")
    print("| case | " + " | ".join(f"{T} 2^{n} {L}" for T, n, L in AXES_COLUMNS) + " |")
    print("|---|" + "---:|" * len(AXES_COLUMNS))
    for case in cases:
        print(f"| {case} | " + " | ".join(cell(case, c) for c in AXES_COLUMNS) + " |")


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
            case += [f"{name} {value}" for name, value in axes.items() if name not in ("T", "Elements", "Impl", "Calls")]
            ranks = summary_value(state, "rk/nccl/ranks")
            if ranks is not None:
                case.append(f"{int(ranks)} rank{'s' if ranks != 1 else ''}")
                if ranks > 1 and summary_value(state, "rk/nccl/symmetric") == 0:
                    case.append("no symmetric memory")  # the symmetric step is the gather's fallback
            calls = int(axes.get("Calls", 1))
            key = (bench["name"], ", ".join(case) or "float", n.bit_length() - 1, axes["Impl"])
            tag = ("nv/cpu_only/time/cpu" if bench["name"] in CPU_ONLY
                   else "nv/cold/time/cpu" if bench["name"] in ROUND_TRIPS else "nv/cold/time/gpu")
            mid = summary_value(state, f"{tag}/median")
            if mid is None:
                mid = summary_value(state, f"{tag}/mean")
            if mid is None:
                continue
            q1 = summary_value(state, f"{tag}/q1")
            q3 = summary_value(state, f"{tag}/q3")
            if q1 is None or q3 is None:
                # Without quartiles the interval is a point: no case can read "within noise".
                print(f"warning: {path}: no quartiles for {key}", file=sys.stderr)
                q1 = q3 = mid
            times[key] = (mid * 1e6 / calls, q1 * 1e6 / calls, q3 * 1e6 / calls)
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
        peers = sorted({k[3] for k in times if k[0] == "reduce" and k[1] == t and k[3].startswith("cub") and k[3] != "cub"})
        impls = [i for i in IMPLS + peers + OTHER_IMPLS if any(k[0] == "reduce" and k[3] == i and k[1] == t for k in times)]
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
    return "\n".join(out) + tuning_tables(times)


def tuning_tables(times):
    """rk_bench_tuning's shapes per type and size: each shape's time, and the fastest against the
    default tuning, the grid-ordered tree and (where rk_bench_reduce's run is joined) the probe."""
    out = []
    for t in TYPES.values():
        sizes = sorted({k[2] for k in times if k[0] == "tuning" and k[1] == t})
        if not sizes:
            continue
        out.append(f"\n{t} sum, rk::single_pass under each shape (block_threads/lane_units/chunks_in_flight/"
                   "min_chunks_per_warp/waves; µs, NVBench cold median)\n")
        out.append("| n | default | grid-ordered | fastest shape | its µs | default / fastest | fastest / probe |")
        out.append("|---|---:|---:|---|---:|---:|---:|")
        for s in sizes:
            shapes = {k[3]: v[0] for k, v in times.items() if k[0] == "tuning" and k[1] == t and k[2] == s}
            fixed = {name: us for name, us in shapes.items() if name not in ("default", "grid-ordered")}
            best = min(fixed, key=fixed.get) if fixed else None
            probe = times.get(("reduce", t, s, "probe"))
            cells = [f"{shapes[x]:.2f}" if x in shapes else "—" for x in ("default", "grid-ordered")]
            cells += [best or "—", f"{fixed[best]:.2f}" if best else "—",
                      f"{shapes['default'] / fixed[best]:.3f}" if best and "default" in shapes else "—",
                      f"{fixed[best] / probe[0]:.3f}" if best and probe else "—"]
            out.append(f"| 2^{s} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def peer_versions(times, bench):
    """The CUB peer's versions this run has rows of in `bench` ("cub3.6" from "cub3.6 fixed")."""
    return sorted({m.group(0) for k in times if k[0] == bench for m in [re.match(r"cub\d+\.\d+", k[3])] if m})


def with_peer(names, times, bench):
    """`names` with PEER replaced by each peer version the run has (none: those names dropped)."""
    return [n.replace(PEER, v) for n in names for v in (peer_versions(times, bench) if PEER in n else [PEER])]


def family_tables(times):
    out = []
    for bench, (impls, goals) in FAMILY.items():
        impls = with_peer(impls, times, bench)
        mine, peer = goals[0][0], goals[0][1]
        cases = sorted({(k[1], k[2]) for k in times if k[0] == bench}, key=lambda c: (c[1], natural(c[0])))
        if not cases:
            continue
        kind = ("CPU time of a round trip" if bench in ROUND_TRIPS else "host CPU time" if bench in CPU_ONLY
                else "NVBench cold median")
        out.append(f"\n{bench} (µs per call, {kind})\n")
        # Against the target's peer and against the probe: one column where the peer is the probe.
        columns = ([peer] if peer else []) + (["probe"] if "probe" in impls and peer != "probe" else [])
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
        expanded = [(mine, peer and peer.replace(PEER, v), at_most, limit, label.replace(PEER, v), *options)
                    for mine, peer, at_most, limit, label, *options in goals
                    for v in (peer_versions(times, bench) if peer and PEER in peer else [PEER])]
        for mine, peer, at_most, limit, label, *options in expanded:
            where = options[0] if options else {}
            cases = sorted({(k[1], k[2]) for k in times if k[0] == bench and k[3] == mine
                            and k[2] >= where.get("from", 0) and not k[1].endswith(where.get("skip", ()))})
            if peer is None:
                if cases:
                    rows.append(absolute_target(f"{bench}: {label}", times,
                                                [(f"{c} 2^{s}", (bench, c, s, mine)) for c, s in cases], limit))
                continue
            pairs = [(f"{c} 2^{s}", (bench, c, s, mine), (bench, c, s, peer)) for c, s in cases
                     if (bench, c, s, peer) in times]
            if pairs:
                rows.append(target(f"{bench}: {label}", times, pairs, at_most, limit))
    return rows


def absolute_target(name, times, cases, limit):
    """Each case's time (µs) against `limit` (at most), judged on its quartiles as target() judges ratios."""
    verdicts = [("PASS" if times[k][2] < limit else "MISS" if times[k][1] >= limit else "within noise") for _, k in cases]
    verdict = "MISS" if "MISS" in verdicts else "within noise" if "within noise" in verdicts else "PASS"
    worst = max((c for c, v in zip(cases, verdicts) if v == verdict), key=lambda c: times[c[1]][0])
    m, lo, hi = times[worst[1]]
    return name, f"{m:.3f} [{lo:.3f}-{hi:.3f}] {verdict} ({worst[0]}; {len(cases)} cases)", verdict


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
    peers = sorted({k[3] for k in times if k[0] == "reduce" and k[3].startswith("cub") and k[3] != "cub"})
    def int64_pairs(a_impl, b_impl, lo):
        return [(f"int64 2^{s}", ("reduce", "int64", s, a_impl), ("reduce", "int64", s, b_impl))
                for t, s in cases if t == "int64" and s >= lo]
    def typed(impl_a, impl_b, type_, lo):
        return [p for p in pairs(impl_a, impl_b, lo) if p[0].startswith(type_ + " ")]
    return [
        target("rk::device time / CUB time, every case (max) <= 1.00", times, pairs("rk::device", "cub"), True, 1.00),
    ] + [
        # A peer's mode counts the types it has (gpu_to_gpu: floating point only).
        target(f"rk::device time / {peer} time, every case (max) <= 1.00", times,
               [p for p in pairs("rk::device", peer) if p[2] in times], True, 1.00)
        for peer in peers
    ] + [
        target("probe time / rk::device time, n >= 2^26 (min) >= 0.99", times, pairs("probe", "rk::device", 26), False, 0.99),
        target("float: CUB time / rk::device time, n >= 2^26 (min) >= 1.10", times, typed("cub", "rk::device", "float", 26),
               False, 1.10),
        target("rk::device time / probe time, 2^14 <= n <= 2^22 (max) <= 1.25", times, pairs("rk::device", "probe", 14, 22), True, 1.25),
        target("probe time / rk::single_pass time, n >= 2^26 (min) >= 0.97", times, pairs("probe", "rk::single_pass", 26),
               False, 0.97),
        target("probe time / rk::two_pass time, n >= 2^26 (min) >= 0.95", times, pairs("probe", "rk::two_pass", 26), False, 0.95),
        target("int32: probe time / rk::atomic time, n >= 2^26 (min) >= 0.95", times, typed("probe", "rk::atomic", "int32", 26),
               False, 0.95),
        target("rk::single_pass time / grid-ordered tree's, every case (max) <= 1.02", times,
               pairs("rk::single_pass", "rk::single_pass grid-ordered"), True, 1.02),
        target("rk::two_pass time / grid-ordered tree's, every case (max) <= 1.02", times,
               pairs("rk::two_pass", "rk::two_pass grid-ordered"), True, 1.02),
        target("rk::single_pass: affine maps / int64 sum, n >= 2^26 (max) <= 1.10", times,
               int64_pairs("rk::single_pass affine", "rk::single_pass", 26), True, 1.10),
        target("rk::two_pass: affine maps / int64 sum, n >= 2^26 (max) <= 1.10", times,
               int64_pairs("rk::two_pass affine", "rk::two_pass", 26), True, 1.10),
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
    header = "| target | " + " | ".join(f"run {i + 1}" for i in range(len(runs))) + (" | verdicts agree |" if len(runs) > 1 else " |")
    print(header)
    print("|---" * (len(runs) + 1 + (len(runs) > 1)) + "|")
    # By name: a run may lack a benchmark, a peer or a state the other has.
    results = [{name: (cell, verdict) for name, cell, verdict in targets(times)} for _, times in runs]
    names = list(dict.fromkeys(name for result in results for name in result))
    agree = judged = 0
    for name in names:
        row = [result.get(name, ("not in this run", None)) for result in results]
        if all(verdict is None for _, verdict in row):
            continue  # a target of a benchmark these runs did not hold
        everywhere = all(verdict is not None for _, verdict in row)
        same = len({verdict for _, verdict in row}) == 1
        agree += everywhere and same
        judged += everywhere
        mark = ("yes" if same else "NO") if everywhere else "—"
        print(f"| {name} | " + " | ".join(cell for cell, _ in row) + (f" | {mark} |" if len(runs) > 1 else " |"))
    if len(runs) > 1:
        print(f"\n{agree} of {judged} verdicts agree across the runs (of the targets every run has data for)")


def expect(stored, paths):
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        main(paths)
    kept = lambda text: [line for line in text.splitlines() if not line.startswith("# ")]
    with open(stored) as f:
        diff = list(difflib.unified_diff(kept(f.read()), kept(printed.getvalue()), stored, "now", lineterm=""))
    if diff:
        print("\n".join(diff))
        sys.exit(1)
    print(f"as stored in {stored}")


if __name__ == "__main__":
    args = sys.argv[1:]
    if len(args) >= 3 and args[0] == "--expect":
        expect(args[1], args[2:])
    elif args and not args[0].startswith("--"):
        main(args)
    else:
        sys.exit(__doc__)
