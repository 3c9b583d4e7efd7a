#!/bin/bash
# The CSR form's short kernel grid (experiment knobs RK_EXP_SEGS_PER_BLOCK, RK_EXP_SHORT_WAVES):
# segments a block at least, and waves at most; main is 32 and 1.
cd "$(dirname "$0")/.."
B=/tmp/b; mkdir -p $B; L=/tmp/logs10; mkdir -p $L
xz -dc .device10/bin/rk_bench_segmented.xz > $B/rk_bench_segmented; chmod +x $B/rk_bench_segmented
mkdir -p /tmp/lib; for f in .device10/lib/*.xz; do xz -dc $f > /tmp/lib/$(basename $f .xz); done; export LD_LIBRARY_PATH=/tmp/lib:${LD_LIBRARY_PATH:-}
nvidia-smi -L > $L/device.txt
opts="--no-batch --max-noise 1 --timeout 0.3"
segs='Segments=[all 1,all 8,all 32,all 256,all 1024,all 4096,all 8192,all 16384,all 65536,one of n/2 + 1-8,power law,half empty,random mix 1-10^5]'
run() { s=$(date +%s); RK_EXP_SEGS_PER_BLOCK=$2 RK_EXP_SHORT_WAVES=$3 timeout 100 $B/rk_bench_segmented $opts -a T=[F32,F64] -a "$segs" -a "Impl=[$4]" --json $L/$1.json > $L/$1.log 2>&1
  echo "$1: exit $? $(( $(date +%s) - s )) s" >> $L/wall.txt; tar czf $OUT/logs.tgz -C $L .; }
run base-r1 32 1 'rk::device,probe'
run b8w1-r1 8 1 'rk::device,rk::two_pass'
run b8w4-r1 8 4 'rk::device,rk::two_pass'
run b8w16-r1 8 16 'rk::device,rk::two_pass'
run base-r2 32 1 'rk::device,rk::two_pass'
run b8w4-r2 8 4 'rk::device,rk::two_pass'
cat $L/wall.txt
