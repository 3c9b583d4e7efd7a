#!/bin/bash
# A/B of staged lane-group queues (cp.async into shared memory, 2 and 3 rounds) against main (new),
# rk_bench_segmented at 2^26, two rounds alternating.
set -u
cd "$(dirname "$0")/.."
B=/tmp/b; mkdir -p $B; L=/tmp/logsq; mkdir -p $L
s0=$(date +%s)
for v in new S2 S3; do xz -dc .device/bin/rk_bench_segmented_$v.xz > $B/seg_$v; chmod +x $B/seg_$v; done
mkdir -p /tmp/lib; for f in .device/lib/*.xz; do xz -dc $f > /tmp/lib/$(basename $f .xz); done; export LD_LIBRARY_PATH=/tmp/lib:${LD_LIBRARY_PATH:-}
nvidia-smi -L > $L/device.txt; nvidia-smi --query-gpu=uuid,clocks.sm,clocks.mem,temperature.gpu --format=csv >> $L/device.txt
opts="--no-batch --max-noise 1 --timeout 0.3"
segs='Segments=[all 1,all 8,all 32,all 64,all 256,all 1024,one of n/2 + 1-8,power law,half empty]'
ok() { [ $(( $(date +%s) - s0 )) -lt 300 ] || { echo "$1: skipped, no time" >> $L/wall.txt; return 1; }; }
run() { ok $2-$1 || return; s=$(date +%s); timeout 100 $B/seg_$2 $opts -a T=[I32,F32,F64] -a "$segs" -a "Impl=$3" --json $L/$2-$1.json > $L/$2-$1.log 2>&1
  echo "$2-$1: exit $? $(( $(date +%s) - s )) s" >> $L/wall.txt; tar czf $OUT/logs.tgz -C $L .; }
run r1 new "[rk::device,CSR probe]"
run r1 S2 '[rk::device,rk CUB form]'
run r1 S3 '[rk::device,rk CUB form]'
run r2 S3 '[rk::device,rk CUB form]'
run r2 S2 '[rk::device,rk CUB form]'
run r2 new "[rk::device,rk CUB form]"
echo "call wall $(( $(date +%s) - s0 )) s" >> $L/wall.txt
cat $L/wall.txt | tee $OUT/summary.txt
tar czf $OUT/logs.tgz -C $L .
