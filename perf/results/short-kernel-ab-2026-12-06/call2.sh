#!/bin/bash
# Call 2: the NCCL suite (one GPU) and the soak through scripts/gpu-check, then the short kernel's
# A/B at 2^20 items (blocks of few batches: the shortened tiny run) and reduce_by_key (its listed
# runs go through the short kernel), base (72e8668) against new, while time is left.
set -u
cd "$(dirname "$0")/.."
B=/tmp/b; mkdir -p $B/test; L=/tmp/logs2; mkdir -p $L
s0=$(date +%s)
for v in rk_soak rk_test_nccl; do xz -dc .device/bin/$v.xz > $B/test/$v; chmod +x $B/test/$v; done
for v in rk_bench_segmented_new rk_bench_segmented_base rk_bench_family_new rk_bench_family_base; do xz -dc .device/bin/$v.xz > $B/$v; chmod +x $B/$v; done
mkdir -p /tmp/lib; for f in .device/lib/*.xz; do xz -dc $f > /tmp/lib/$(basename $f .xz); done; export LD_LIBRARY_PATH=/tmp/lib:${LD_LIBRARY_PATH:-}
export RK_COMMIT=$(cat .device/commit)
nvidia-smi -L > $L/device.txt
( while sleep 20; do tar czf $OUT/logs.tgz -C $L . 2>/dev/null; done ) & tarloop=$!
d=$L/soak; mkdir -p $d
OUT=$d RK_GPU_CHECK_ONLY=nccl,soak RK_SOAK_SECONDS=60 RK_SOAK_SANITIZER_SECONDS=20 scripts/gpu-check $B > $d/stdout.txt 2>&1
echo "soak wall $(( $(date +%s) - s0 )) s" >> $L/wall.txt
opts="--no-batch --max-noise 1 --timeout 0.3"
segs='Segments=[all 1,all 2,all 8,all 32,all 256,all 4096,one of n/2 + 1-8,power law,half empty]'
ok() { [ $(( $(date +%s) - s0 )) -lt 500 ] || { echo "$1: skipped, no time" >> $L/wall.txt; return 1; }; }
run() { ok seg20-$2-$1 || return; s=$(date +%s); timeout 80 $B/rk_bench_segmented_$2 $opts -a 'Elements[pow2]=20' -a T=[I32,F32,F64] -a "$segs" -a "Impl=[$3]" --json $L/seg20-$2-$1.json > $L/seg20-$2-$1.log 2>&1
  echo "seg20-$2-$1: exit $? $(( $(date +%s) - s )) s" >> $L/wall.txt; tar czf $OUT/logs.tgz -C $L .; }
rbk() { ok rbk-$2-$1 || return; s=$(date +%s); timeout 80 $B/rk_bench_family_$2 $opts -b reduce_by_key -a "Impl=[$3]" --json $L/rbk-$2-$1.json > $L/rbk-$2-$1.log 2>&1
  echo "rbk-$2-$1: exit $? $(( $(date +%s) - s )) s" >> $L/wall.txt; tar czf $OUT/logs.tgz -C $L .; }
rbk r1 base 'rk::reduce_by_key,probe'
rbk r1 new 'rk::reduce_by_key,cub'
run r1 base 'rk::device,probe'
run r1 new 'rk::device,cub'
rbk r2 base 'rk::reduce_by_key'
rbk r2 new 'rk::reduce_by_key'
run r2 base 'rk::device'
run r2 new 'rk::device'
kill $tarloop 2>/dev/null
echo "call wall $(( $(date +%s) - s0 )) s" >> $L/wall.txt
cat $L/soak/summary.txt $L/wall.txt | tee $OUT/summary.txt
tar czf $OUT/logs.tgz -C $L .
