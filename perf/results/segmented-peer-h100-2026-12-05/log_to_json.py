"""python3 log_to_json.py LOG[.gz] OUT.json

An NVBench log (stdout) as the JSON bench_summary reads: each state's axes from its "Run:" line and
the cold GPU mean from its "Pass:" line (the log prints the mean; no quartiles, so
bench_summary warns and its intervals are points). For runs whose JSON was lost."""
import gzip, json, re, sys
states, bench = [], None
run = re.compile(r"Run:\s+\[\d+/\d+\] (\S+) \[(.*)\]")
cold = re.compile(r"Pass: Cold: ([0-9.]+)ms GPU")
cur = None
for line in (gzip.open(sys.argv[1], "rt") if sys.argv[1].endswith(".gz") else open(sys.argv[1])):
    m = run.search(line)
    if m:
        bench = m.group(1)
        body = m.group(2)
        axes = dict(re.findall(r"(\w+)=(.*?)(?= \w+=|$)", body))
        cur = axes
        continue
    m = cold.search(line)
    if m and cur:
        n = cur["Elements"]
        n = 2 ** int(n[2:]) if n.startswith("2^") else int(n)
        av = [{"name": "T", "value": cur["T"]}, {"name": "Elements", "value": str(n)},
              {"name": "Segments", "value": cur["Segments"]}, {"name": "Impl", "value": cur["Impl"]}]
        states.append({"axis_values": av, "summaries": [{"tag": "nv/cold/time/gpu/mean",
                       "data": [{"name": "value", "value": str(float(m.group(1)) * 1e-3)}]}]})
        cur = None
json.dump({"devices": [], "benchmarks": [{"name": bench, "states": states}]}, open(sys.argv[2], "w"))
print(len(states), "states")
