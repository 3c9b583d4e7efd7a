#!/bin/bash
# The checks at .device/commit, side by side (suite+hidden+fault | memcheck | racecheck | synccheck |
# initcheck), then MPS; binaries built on the dev machine for sm_90.
set -u
cd "$(dirname "$0")/.."
B=/tmp/b; mkdir -p $B/test; L=/tmp/logsd1; mkdir -p $L
s0=$(date +%s)
for v in rk_test_gpu rk_test_gpu_fault; do xz -dc .device/bin/$v.xz > $B/test/$v; chmod +x $B/test/$v; done
mkdir -p /tmp/lib; for f in .device/lib/*.xz; do xz -dc $f > /tmp/lib/$(basename $f .xz); done; export LD_LIBRARY_PATH=/tmp/lib:${LD_LIBRARY_PATH:-}
export RK_COMMIT=$(cat .device/commit)
nvidia-smi -L > $L/device.txt; nvidia-smi >> $L/device.txt
( while sleep 20; do tar czf $OUT/logs.tgz -C $L . 2>/dev/null; done ) & tarloop=$!
pids=""
for g in suite,hidden,fault memcheck racecheck synccheck initcheck; do
  d=$L/${g%%,*}; mkdir -p $d
  OUT=$d RK_GPU_CHECK_ONLY=$g RK_STEP_TIMEOUT=400 scripts/gpu-check $B > $d/stdout.txt 2>&1 &
  pids="$pids $!"
done
wait $pids
echo "checks wall $(( $(date +%s) - s0 )) s" > $L/wall.txt
d=$L/mps; mkdir -p $d; OUT=$d RK_GPU_CHECK_ONLY=mps scripts/gpu-check $B > $d/stdout.txt 2>&1
echo "call wall $(( $(date +%s) - s0 )) s" >> $L/wall.txt
kill $tarloop 2>/dev/null
cat $L/*/summary.txt $L/wall.txt | tee $OUT/summary.txt
tar czf $OUT/logs.tgz -C $L .
