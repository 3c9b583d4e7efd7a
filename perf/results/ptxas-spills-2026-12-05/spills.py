"""python3 spills.py LOG... (.log or .log.gz): every kernel of nvcc's `-Xptxas -v` output with spills, as a table:
registers, spill stores / loads (bytes), and the kernel, demangled and shortened. The logs here
came from (in a checkout, build/deps holding NVBench as scripts/test fetches it):

    nvcc -O3 -DNDEBUG -DTHRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_CUDA -DTHRUST_HOST_SYSTEM=THRUST_HOST_SYSTEM_CPP \\
      -Iinclude -isystem=build/deps/nvbench/cuda/bench/cu13/nvbench/include --extended-lambda \\
      --generate-code=arch=compute_90,code=sm_90 -Xptxas -v -c perf/bench/<bench>.cu -o /dev/null 2> <bench>.log
"""
import gzip
import re
import subprocess
import sys


def shorten(name):
    name = re.sub(r"rk::detail::|rk::", "", name)
    name = re.sub(r"reduce_agent<with_tree_shape<default_tuning, \(tree_shape\)0>, ", "agent<", name)
    return name[:170]


print("| log | registers | spill stores / loads (bytes) | kernel |")
print("|---|---:|---|---|")
for path in sys.argv[1:]:
    cur = None
    for line in (gzip.open(path, "rt") if path.endswith(".gz") else open(path)):
        m = re.search(r"Compiling entry function '([^']+)'", line)
        if m:
            cur = {"name": m.group(1)}
            continue
        m = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m and cur is not None:
            cur["st"], cur["ld"] = int(m.group(1)), int(m.group(2))
        m = re.search(r"Used (\d+) registers", line)
        if m and cur is not None:
            if cur.get("st", 0) or cur.get("ld", 0):
                name = subprocess.run(["c++filt", cur["name"]], capture_output=True, text=True).stdout.strip()
                print(f"| {path.split('.')[0]} | {m.group(1)} | {cur['st']} / {cur['ld']} | `{shorten(name)}` |")
            cur = None
