#!/bin/bash
# 1. The segmented GPU cases on main's library with this session's new float-affine case
#    (rk_test_seg_main), and on A (window_node's short last tile batched with the full ones):
#    plain, then A's under memcheck in quick mode. 2. rk_bench_segmented at 2^26: P2G (main), A
#    and T2 (packed tiles with the loads fixed), alternating; the fixed-size form on the fixed
#    layouts.
set -u
cd "$(dirname "$0")/.."
B=/tmp/b; mkdir -p $B; L=/tmp/logsw; mkdir -p $L
s0=$(date +%s)
for v in P2G A T2; do xz -dc .device/bin/rk_bench_segmented_$v.xz > $B/seg_$v; chmod +x $B/seg_$v; done
for v in rk_test_seg_main rk_test_seg_A; do xz -dc .device/bin/$v.xz > $B/$v; chmod +x $B/$v; done
mkdir -p /tmp/lib; for f in .device/lib/*.xz; do xz -dc $f > /tmp/lib/$(basename $f .xz); done; export LD_LIBRARY_PATH=/tmp/lib:${LD_LIBRARY_PATH:-}
nvidia-smi -L > $L/device.txt; nvidia-smi --query-gpu=uuid,clocks.sm,clocks.mem,temperature.gpu --format=csv >> $L/device.txt
( while sleep 20; do tar czf $OUT/logs.tgz -C $L . 2>/dev/null; done ) & tarloop=$!
for v in rk_test_seg_main rk_test_seg_A; do s=$(date +%s); timeout 90 $B/$v > $L/$v.log 2>&1; echo "$v: exit $? $(( $(date +%s) - s )) s" >> $L/wall.txt; tail -3 $L/$v.log >> $L/wall.txt; done
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
s=$(date +%s); RK_TEST_QUICK=1 timeout 150 $san --tool memcheck --print-limit 5 $B/rk_test_seg_A > $L/memcheck_A.log 2>&1; echo "memcheck_A: exit $? $(( $(date +%s) - s )) s" >> $L/wall.txt
grep -m2 -B2 -A8 "Invalid\|rror:" $L/memcheck_A.log | head -30 >> $L/wall.txt; tail -4 $L/memcheck_A.log >> $L/wall.txt
opts="--no-batch --max-noise 1 --timeout 0.3"
segs='Segments=[all 1,all 8,all 32,all 256,all 1024,all 4096,all 8192,power law,half empty,random mix 1-10^5,one of n/2 + 1-8]'
fsegs='Segments=[all 32,all 256,all 1024,all 4096,all 8192]'
ok() { [ $(( $(date +%s) - s0 )) -lt ${RK_BY:-520} ] || { echo "$1: skipped, no time" >> $L/wall.txt; return 1; }; }
run() { ok $2-$1 || return; s=$(date +%s); timeout 70 $B/seg_$2 $opts -a T=[I32,F32,F64] -a "$segs" -a "Impl=$3" --json $L/$2-$1.json > $L/$2-$1.log 2>&1
  echo "$2-$1: exit $? $(( $(date +%s) - s )) s" >> $L/wall.txt; tar czf $OUT/logs.tgz -C $L .; }
frun() { ok f$2-$1 || return; s=$(date +%s); timeout 40 $B/seg_$2 $opts -a T=[I32,F32,F64] -a "$fsegs" -a "Impl=[rk fixed,probe]" --json $L/f$2-$1.json > $L/f$2-$1.log 2>&1
  echo "f$2-$1: exit $? $(( $(date +%s) - s )) s" >> $L/wall.txt; }
run r1 P2G '[rk::device,CSR probe]'
run r1 A '[rk::device,rk CUB form]'
run r1 T2 '[rk::device,rk CUB form]'
run r2 A '[rk::device,rk CUB form]'
run r2 P2G '[rk::device,rk CUB form]'
frun r1 P2G; frun r1 A; frun r2 A; frun r2 P2G
run r3 P2G '[rk::device,rk CUB form]'
run r3 A '[rk::device,rk CUB form]'
echo "call wall $(( $(date +%s) - s0 )) s" >> $L/wall.txt
kill $tarloop 2>/dev/null
cat $L/wall.txt | tee $OUT/summary.txt
tar czf $OUT/logs.tgz -C $L .
