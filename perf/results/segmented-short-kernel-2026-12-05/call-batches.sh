#!/bin/bash
# The short-segment kernel: main (5 blocks an SM, 4 tiny batches) against 4 blocks with 4, 6, 8 tiny batches.
cd "$(dirname "$0")/.."
B=/tmp/b; mkdir -p $B; L=/tmp/logs13; mkdir -p $L
for f in .device10/bin/*.xz; do v=$(basename $f .xz); xz -dc $f > $B/$v; chmod +x $B/$v; done
mkdir -p /tmp/lib; for f in .device10/lib/*.xz; do xz -dc $f > /tmp/lib/$(basename $f .xz); done; export LD_LIBRARY_PATH=/tmp/lib:${LD_LIBRARY_PATH:-}
nvidia-smi -L > $L/device.txt
opts="--no-batch --max-noise 1 --timeout 0.3"
segs='Segments=[all 1,all 2,all 8,all 32,all 4096,one of n/2 + 1-8,power law,half empty]'
run() { s=$(date +%s); timeout 60 $B/$2 $opts -a T=[I32,F32,F64] -a "$segs" -a "Impl=[rk::device,probe]" --json $L/$1.json > $L/$1.log 2>&1
  echo "$1: exit $? $(( $(date +%s) - s )) s" >> $L/wall.txt; tar czf $OUT/logs.tgz -C $L .; }
for r in r1 r2; do
run base-$r rk_bench_segmented
run mb4-$r rk_bench_segmented_mb4
run tb6-$r rk_bench_segmented_mb4tb6
run tb8-$r rk_bench_segmented_mb4tb8
done
cat $L/wall.txt
