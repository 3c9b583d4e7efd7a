#!/bin/bash
# The NCCL suite (one GPU) and the soak at .device/commit (RK_SOAK_SECONDS, then RK_SOAK_SANITIZER_SECONDS under memcheck and racecheck); then, alone on the GPU,
# the grid A/B on calls of few segments (P2E: a block per 32 segments, P2G: a warp per segment, the
# commit's) and the segmented suite at 2^26 on P2G.
set -u
cd "$(dirname "$0")/.."
B=/tmp/b; mkdir -p $B/test; L=/tmp/logsd2; mkdir -p $L
s0=$(date +%s)
for v in rk_soak rk_test_nccl; do xz -dc .device/bin/$v.xz > $B/test/$v; chmod +x $B/test/$v; done
for v in P2E P2G; do xz -dc .device/bin/rk_bench_segmented_$v.xz > $B/seg_$v; chmod +x $B/seg_$v; done
mkdir -p /tmp/lib; for f in .device/lib/*.xz; do xz -dc $f > /tmp/lib/$(basename $f .xz); done; export LD_LIBRARY_PATH=/tmp/lib:${LD_LIBRARY_PATH:-}
export RK_COMMIT=$(cat .device/commit)
nvidia-smi -L > $L/device.txt
( while sleep 20; do tar czf $OUT/logs.tgz -C $L . 2>/dev/null; done ) & tarloop=$!
d=$L/soak; mkdir -p $d
OUT=$d RK_GPU_CHECK_ONLY=nccl,soak RK_SOAK_SECONDS=${RK_SOAK_SECONDS:-30} RK_SOAK_SANITIZER_SECONDS=${RK_SOAK_SANITIZER_SECONDS:-10} RK_STEP_TIMEOUT=150 scripts/gpu-check $B > $d/stdout.txt 2>&1
echo "soak wall $(( $(date +%s) - s0 )) s" >> $L/wall.txt
nvidia-smi --query-gpu=uuid,clocks.sm,clocks.mem,temperature.gpu --format=csv >> $L/device.txt
opts="--no-batch --max-noise 1 --timeout 0.3"
segs='Segments=[random mix 1-10^5,all 16384,all 65536,all 1048576,one segment,power law,half empty]'
ok() { [ $(( $(date +%s) - s0 )) -lt $2 ] || { echo "$1: skipped, no time" >> $L/wall.txt; return 1; }; }
ab() { ok $2-$1 $3 || return; s=$(date +%s); timeout 60 $B/seg_$2 $opts -a T=[I32,F32,F64] -a "$segs" -a "Impl=[rk::device,rk CUB form]" --json $L/ab-$2-$1.json > $L/ab-$2-$1.log 2>&1
  echo "ab-$2-$1: exit $? $(( $(date +%s) - s )) s" >> $L/wall.txt; tar czf $OUT/logs.tgz -C $L .; }
ab r1 P2E ${RK_AB_BY:-60}; ab r1 P2G $(( ${RK_AB_BY:-60} + 40 ))
if ok seg26-r1 ${RK_SEG_BY:-0}; then s=$(date +%s)
  timeout $(( ${RK_CALL_LIMIT:-400} - ($(date +%s) - s0) )) $B/seg_P2G $opts -a T=[I32,F32,F64,I64] -a 'Impl=[rk::device,rk CUB form,rk fixed,cub,probe,CSR probe]' --json $L/seg26-r1.json > $L/seg26-r1.log 2>&1
  echo "seg26-r1: exit $? $(( $(date +%s) - s )) s" >> $L/wall.txt; tar czf $OUT/logs.tgz -C $L .
fi
grep -il "other bits" $L/*.log >> $L/wall.txt
echo "call wall $(( $(date +%s) - s0 )) s" >> $L/wall.txt
kill $tarloop 2>/dev/null
cat $L/*/summary.txt $L/wall.txt | tee $OUT/summary.txt
tar czf $OUT/logs.tgz -C $L .
