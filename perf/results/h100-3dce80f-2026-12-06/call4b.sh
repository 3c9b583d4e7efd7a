#!/bin/bash
# Call 4b: the NCCL suite (one GPU) and the soak through scripts/gpu-check at .device/commit, then
# the segmented suite at 2^26 (every form, peers, probes), then main at three blocks an SM (M3) on B's two failing layouts.
set -u
cd "$(dirname "$0")/.."
B=/tmp/b; mkdir -p $B/test; L=/tmp/logs4; mkdir -p $L
s0=$(date +%s)
for v in rk_soak rk_test_nccl; do xz -dc .device/bin/$v.xz > $B/test/$v; chmod +x $B/test/$v; done
for v in rk_bench_segmented_new rk_bench_segmented_M3; do [ -f .device/bin/$v.xz ] && xz -dc .device/bin/$v.xz > $B/$v && chmod +x $B/$v; done
mkdir -p /tmp/lib; for f in .device/lib/*.xz; do xz -dc $f > /tmp/lib/$(basename $f .xz); done; export LD_LIBRARY_PATH=/tmp/lib:${LD_LIBRARY_PATH:-}
export RK_COMMIT=$(cat .device/commit)
nvidia-smi -L > $L/device.txt
( while sleep 20; do tar czf $OUT/logs.tgz -C $L . 2>/dev/null; done ) & tarloop=$!
d=$L/soak; mkdir -p $d
OUT=$d RK_GPU_CHECK_ONLY=nccl,soak RK_SOAK_SECONDS=${RK_SOAK_SECONDS:-60} RK_SOAK_SANITIZER_SECONDS=20 RK_STEP_TIMEOUT=200 scripts/gpu-check $B > $d/stdout.txt 2>&1
echo "soak wall $(( $(date +%s) - s0 )) s" >> $L/wall.txt
opts="--no-batch --max-noise 1 --timeout 0.3"
ok() { [ $(( $(date +%s) - s0 )) -lt ${2:-450} ] || { echo "$1: skipped, no time" >> $L/wall.txt; return 1; }; }
if [ -x $B/rk_bench_segmented_M3 ] && ok m3 300; then s=$(date +%s)
  timeout 60 $B/rk_bench_segmented_M3 $opts -a T=[I32,F32,F64] -a 'Segments=[half empty,one of n/2 + 1-8,all 32]' -a 'Impl=rk::device' --json $L/m3.json > $L/m3.log 2>&1
  echo "m3: exit $? $(( $(date +%s) - s )) s" >> $L/wall.txt; fi
if [ -x $B/rk_bench_segmented_new ] && ok seg26; then s=$(date +%s)
  timeout $(( 575 - ($(date +%s) - s0) )) $B/rk_bench_segmented_new $opts -a T=[I32,F32,F64,I64] -a 'Impl=[rk::device,rk CUB form,rk fixed,cub,probe,CSR probe]' --json $L/seg26.json > $L/seg26.log 2>&1
  echo "seg26: exit $? $(( $(date +%s) - s )) s" >> $L/wall.txt; tar czf $OUT/logs.tgz -C $L .; fi
kill $tarloop 2>/dev/null
echo "call wall $(( $(date +%s) - s0 )) s" >> $L/wall.txt
cat $L/soak/summary.txt $L/wall.txt | tee $OUT/summary.txt
tar czf $OUT/logs.tgz -C $L .
