#!/bin/bash
# Packed lanes (a warp's segments of at most a tile, whole segments to a round of 32 lanes) against
# main (new), and P2E (P2 with the long list's kernels returning at once when nothing was listed): the segmented GPU cases on the packed build (rk_test_seg, rounds in flight 2), then
# rk_bench_segmented at 2^26: new, P2, P4 (rounds in flight 2 and 4), alternating, and CUB against P2
# for integers (the bench checks CUB's integer sums against rk::device's).
set -u
cd "$(dirname "$0")/.."
B=/tmp/b; mkdir -p $B; L=/tmp/logsp; mkdir -p $L
s0=$(date +%s)
for v in new P2 P4 P2E; do xz -dc .device/bin/rk_bench_segmented_$v.xz > $B/seg_$v; chmod +x $B/seg_$v; done
xz -dc .device/bin/rk_test_seg.xz > $B/rk_test_seg; chmod +x $B/rk_test_seg
mkdir -p /tmp/lib; for f in .device/lib/*.xz; do xz -dc $f > /tmp/lib/$(basename $f .xz); done; export LD_LIBRARY_PATH=/tmp/lib:${LD_LIBRARY_PATH:-}
nvidia-smi -L > $L/device.txt; nvidia-smi --query-gpu=uuid,clocks.sm,clocks.mem,temperature.gpu --format=csv >> $L/device.txt
s=$(date +%s); timeout 150 $B/rk_test_seg > $L/test_seg.log 2>&1; echo "test_seg: exit $? $(( $(date +%s) - s )) s" >> $L/wall.txt
tail -3 $L/test_seg.log >> $L/wall.txt
opts="--no-batch --max-noise 1 --timeout 0.3"
segs='Segments=[all 1,all 8,all 32,all 64,all 256,all 1024,one of n/2 + 1-8,power law,half empty,random mix 1-10^5]'
ok() { [ $(( $(date +%s) - s0 )) -lt 420 ] || { echo "$1: skipped, no time" >> $L/wall.txt; return 1; }; }
run() { ok $2-$1 || return; s=$(date +%s); timeout 120 $B/seg_$2 $opts -a T=[I32,F32,F64] -a "$segs" -a "Impl=$3" --json $L/$2-$1.json > $L/$2-$1.log 2>&1
  echo "$2-$1: exit $? $(( $(date +%s) - s )) s" >> $L/wall.txt; tar czf $OUT/logs.tgz -C $L .; }
run r1 new "[rk::device,CSR probe]"
run r1 P2 '[rk::device,rk CUB form]'
run r1 P4 '[rk::device,rk CUB form]'
run r1 P2E '[rk::device,rk::two_pass]'
run r2 P2E '[rk::device,rk::two_pass]'
run r2 P4 '[rk::device,rk CUB form]'
run r2 P2 '[rk::device,rk CUB form]'
run r2 new "[rk::device,rk CUB form]"
ok cub && { s=$(date +%s); timeout 90 $B/seg_P2 $opts -a T=[I32,I64] -a 'Segments=[all 32,power law,half empty,one of n/2 + 1-8]' -a 'Impl=[cub,rk::device]' --json $L/P2-cub.json > $L/P2-cub.log 2>&1; echo "P2-cub: exit $? $(( $(date +%s) - s )) s" >> $L/wall.txt; }
grep -i "fail\|other bits" $L/*.log | head -20 >> $L/wall.txt
echo "call wall $(( $(date +%s) - s0 )) s" >> $L/wall.txt
cat $L/wall.txt | tee $OUT/summary.txt
tar czf $OUT/logs.tgz -C $L .
