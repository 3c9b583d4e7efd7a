#!/bin/bash
# The short-segment kernel at 4 blocks an SM (64 registers) against main's 5 (48, spills).
cd "$(dirname "$0")/.."
B=/tmp/b; mkdir -p $B; L=/tmp/logs12; mkdir -p $L
for v in rk_bench_segmented rk_bench_segmented_mb4; do xz -dc .device10/bin/$v.xz > $B/$v; chmod +x $B/$v; done
mkdir -p /tmp/lib; for f in .device10/lib/*.xz; do xz -dc $f > /tmp/lib/$(basename $f .xz); done; export LD_LIBRARY_PATH=/tmp/lib:${LD_LIBRARY_PATH:-}
nvidia-smi -L > $L/device.txt
opts="--no-batch --max-noise 1 --timeout 0.3"
segs='Segments=[all 1,all 8,all 32,all 256,all 1024,all 4096,all 8192,all 16384,all 65536,one of n/2 + 1-8,power law,half empty,random mix 1-10^5]'
run() { s=$(date +%s); timeout 100 $B/$2 $opts -a T=[I32,F32,F64] -a "$segs" -a "Impl=[$3]" --json $L/$1.json > $L/$1.log 2>&1
  echo "$1: exit $? $(( $(date +%s) - s )) s" >> $L/wall.txt; tar czf $OUT/logs.tgz -C $L .; }
run base-r1 rk_bench_segmented 'rk::device,probe'
run mb4-r1 rk_bench_segmented_mb4 'rk::device,cub'
run base-r2 rk_bench_segmented 'rk::device,rk::two_pass'
run mb4-r2 rk_bench_segmented_mb4 'rk::device,rk::two_pass'
cat $L/wall.txt
