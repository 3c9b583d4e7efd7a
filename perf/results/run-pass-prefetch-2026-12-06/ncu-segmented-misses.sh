#!/bin/bash
# 1. Nsight Compute over main's (2d6ed2e) segmented misses at 2^26 (float unless said): CSR 32 and
#    64 items, one segment (int32, float; rk::device against rk::reduce_into), fixed-size 4096 (rk
#    against CUB), the random mix and one of n/2 + 1-8; reduce_by_key at runs of 100 (rk's kernels
#    against CUB's). 2. If time is left, the segmented suite once at 2^26 over every row.
set -u
cd "$(dirname "$0")/.."
B=/tmp/b; mkdir -p $B; L=/tmp/logs7; mkdir -p $L
s0=$(date +%s)
xz -dc .device/ncu7/rk_bench_segmented_P2G.xz > $B/seg; chmod +x $B/seg
mkdir -p /tmp/lib; for f in .device/lib/*.xz; do xz -dc $f > /tmp/lib/$(basename $f .xz); done; export LD_LIBRARY_PATH=/tmp/lib:${LD_LIBRARY_PATH:-}
nvidia-smi -L > $L/device.txt
( while sleep 15; do tar czf $OUT/logs.tgz -C $L . 2>/dev/null; done ) & tarloop=$!
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu)
secs="--section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats"
sprof() { [ $(( $(date +%s) - s0 )) -lt ${RK_SBY:-260} ] || { echo "$1: skipped, no time" >> $L/wall.txt; return; }
  s=$(date +%s); name=$1; shift
  timeout 30 $NCU $secs --kernel-name-base demangled -k "regex:rk::|segment_probe|DeviceSegmentedReduceKernel|DeviceFixedSize" --launch-count 8 $B/seg --profile -a 'Elements[pow2]=26' "$@" > $L/$name.txt 2>&1
  echo "$name: exit $? $(( $(date +%s) - s )) s" >> $L/wall.txt; tar czf $OUT/logs.tgz -C $L .; }
sprof fixed4096 -a T=F32 -a 'Segments=[all 4096]' -a 'Impl=[rk fixed,cub]'
sprof one_i32 -a T=I32 -a 'Segments=[one segment]' -a 'Impl=[rk::device,rk::reduce_into]'
sprof csr32 -a T=F32 -a 'Segments=[all 32]' -a 'Impl=[rk::device,CSR probe]'
sprof mix -a T=F32 -a 'Segments=[random mix 1-10^5]' -a 'Impl=[rk::device,CSR probe]'
sprof half -a T=F32 -a 'Segments=[one of n/2 + 1-8]' -a 'Impl=[rk::device,CSR probe]'
sprof csr64 -a T=F32 -a 'Segments=[all 64]' -a 'Impl=[rk::device,CSR probe]'
echo "call wall $(( $(date +%s) - s0 )) s" >> $L/wall.txt
kill $tarloop 2>/dev/null
cat $L/wall.txt | tee $OUT/summary.txt
tar czf $OUT/logs.tgz -C $L .
