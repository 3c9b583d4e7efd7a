"""python3 sass_local.py CUBIN [NAME_REGEX]: every kernel that touches local memory, with its LDL and
STL instructions counted inside loop bodies (address ranges closed by a backward branch) and
outside, from `cuobjdump -sass`. Local memory is both ptxas's spills and arrays it cannot keep in
registers (its "stack frame"), so a kernel with no spills can still have LDL in its loops.

The toolkit here has no cuobjdump; PyPI's does (`pip download --no-deps nvidia-cuda-cuobjdump`,
unzip the wheel under /tmp/nvtools). A cubin: the command in spills.py with `-cubin -o X.cubin`
instead of `-c -o /dev/null`."""
import re, subprocess, sys
import glob
import os
CUOBJDUMP = os.environ.get("CUOBJDUMP") or glob.glob("/tmp/nvtools/**/cuobjdump", recursive=True)[0]
out = subprocess.run([CUOBJDUMP, "-sass", sys.argv[1]], capture_output=True, text=True).stdout
pat = re.compile(sys.argv[2]) if len(sys.argv) > 2 else None
funcs = re.split(r"\n\s+Function : ", out)[1:]
rows = []
for f in funcs:
    name = f.split("\n", 1)[0].strip()
    instrs = []
    for line in f.split("\n"):
        m = re.match(r"\s+/\*([0-9a-f]{4,})\*/\s+(.*?);", line)
        if m:
            instrs.append((int(m.group(1), 16), m.group(2)))
    loops = []
    for addr, ins in instrs:
        m = re.search(r"\bBRA\b.*?(0x[0-9a-f]+)", ins)
        if m:
            tgt = int(m.group(1), 16)
            if tgt <= addr:
                loops.append((tgt, addr))
    def in_loop(a):
        return any(lo <= a <= hi for lo, hi in loops)
    c = {"ldl_in": 0, "stl_in": 0, "ldl_out": 0, "stl_out": 0}
    for addr, ins in instrs:
        op = re.sub(r"^@!?U?P\w+\s+", "", ins).split()[0] if ins else ""
        if op.startswith("LDL") or op.startswith("STL"):
            key = ("ldl" if op.startswith("LDL") else "stl") + ("_in" if in_loop(addr) else "_out")
            c[key] += 1
    if sum(c.values()) == 0:
        continue
    dem = subprocess.run(["c++filt", name], capture_output=True, text=True).stdout.strip()
    dem = re.sub(r"rk::detail::|rk::", "", dem)
    if pat and not pat.search(dem):
        continue
    rows.append((c, len(instrs), len(loops), dem[:160]))
print("| LDL in loops | STL in loops | LDL outside | STL outside | instructions | loops | kernel |")
print("|---:|---:|---:|---:|---:|---:|---|")
for c, n, l, d in rows:
    print(f"| {c['ldl_in']} | {c['stl_in']} | {c['ldl_out']} | {c['stl_out']} | {n} | {l} | `{d}` |")
