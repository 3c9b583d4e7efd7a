#!/bin/bash
# Call 1: scripts/gpu-check's suite groups side by side (suite+hidden+fault | memcheck | racecheck |
# synccheck | initcheck), then MPS, then the short kernel's A/B at 2^26 while time is left; binaries built on the dev machine for sm_90.
set -u
cd "$(dirname "$0")/.."
B=/tmp/b; mkdir -p $B/test; L=/tmp/logs; mkdir -p $L
s0=$(date +%s)
for v in rk_test_gpu rk_test_gpu_fault; do xz -dc .device/bin/$v.xz > $B/test/$v; chmod +x $B/test/$v; done
export RK_COMMIT=$(cat .device/commit)
nvidia-smi -L > $L/device.txt; nvidia-smi >> $L/device.txt
( while sleep 20; do tar czf $OUT/logs.tgz -C $L . 2>/dev/null; done ) & tarloop=$!
export RK_STEP_TIMEOUT=520
pids=""
for g in suite,hidden,fault memcheck racecheck synccheck initcheck; do
  d=$L/${g%%,*}; mkdir -p $d
  OUT=$d RK_GPU_CHECK_ONLY=$g scripts/gpu-check $B > $d/stdout.txt 2>&1 &
  pids="$pids $!"
done
wait $pids
d=$L/mps; mkdir -p $d; OUT=$d RK_GPU_CHECK_ONLY=mps scripts/gpu-check $B > $d/stdout.txt 2>&1
echo "checks wall $(( $(date +%s) - s0 )) s" > $L/wall.txt
for v in rk_bench_segmented_new rk_bench_segmented_base; do xz -dc .device/bin/$v.xz > $B/$v; chmod +x $B/$v; done
mkdir -p /tmp/lib; for f in .device/lib/*.xz; do xz -dc $f > /tmp/lib/$(basename $f .xz); done; export LD_LIBRARY_PATH=/tmp/lib:${LD_LIBRARY_PATH:-}
opts="--no-batch --max-noise 1 --timeout 0.3"
segs='Segments=[all 1,all 2,all 8,all 32,all 256,all 1024,all 4096,all 8192,all 16384,all 65536,one of n/2 + 1-8,power law,half empty,random mix 1-10^5]'
run() { [ $(( $(date +%s) - s0 )) -lt 470 ] || { echo "seg26-$2-$1: skipped, no time" >> $L/wall.txt; return; }
  s=$(date +%s); timeout 100 $B/rk_bench_segmented_$2 $opts -a T=[I32,F32,F64] -a "$segs" -a "Impl=[$3]" --json $L/seg26-$2-$1.json > $L/seg26-$2-$1.log 2>&1
  echo "seg26-$2-$1: exit $? $(( $(date +%s) - s )) s" >> $L/wall.txt; tar czf $OUT/logs.tgz -C $L .; }
run r1 base 'rk::device,probe'
run r1 new 'rk::device,cub'
run r2 base 'rk::device'
run r2 new 'rk::device'
echo "call wall $(( $(date +%s) - s0 )) s" >> $L/wall.txt
kill $tarloop 2>/dev/null
cat $L/*/summary.txt $L/wall.txt | tee $OUT/summary.txt
grep -h "gpu-check: .*step" $L/*/stdout.txt
tar czf $OUT/logs.tgz -C $L .
