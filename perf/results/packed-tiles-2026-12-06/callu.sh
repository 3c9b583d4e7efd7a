#!/bin/bash
# 1. The atomic segmented integers case: main's test (old) and T1's, plain, then T1's under memcheck
#    (quick mode) to name the kernel that faults. 2. rk_bench_segmented at 2^26, rk::device against
#    the CSR probe, P2G (main) and T1 alternating.
set -u
cd "$(dirname "$0")/.."
B=/tmp/b; mkdir -p $B; L=/tmp/logsu; mkdir -p $L
s0=$(date +%s)
for v in P2E P2G T1; do xz -dc .device/bin/rk_bench_segmented_$v.xz > $B/seg_$v; chmod +x $B/seg_$v; done
for v in rk_test_seg rk_test_atomic_old; do xz -dc .device/bin/$v.xz > $B/$v; chmod +x $B/$v; done
mkdir -p /tmp/lib; for f in .device/lib/*.xz; do xz -dc $f > /tmp/lib/$(basename $f .xz); done; export LD_LIBRARY_PATH=/tmp/lib:${LD_LIBRARY_PATH:-}
nvidia-smi -L > $L/device.txt; nvidia-smi --query-gpu=uuid,clocks.sm,clocks.mem,temperature.gpu --format=csv >> $L/device.txt
( while sleep 20; do tar czf $OUT/logs.tgz -C $L . 2>/dev/null; done ) & tarloop=$!
tc='-tc=*integers exact*'
s=$(date +%s); timeout 60 $B/rk_test_atomic_old "$tc" > $L/atomic_old.log 2>&1; echo "atomic_old: exit $? $(( $(date +%s) - s )) s" >> $L/wall.txt
s=$(date +%s); timeout 60 $B/rk_test_seg "$tc" > $L/atomic_new.log 2>&1; echo "atomic_new: exit $? $(( $(date +%s) - s )) s" >> $L/wall.txt
s=$(date +%s); timeout 60 $B/rk_test_seg -tce='*integers exact*' > $L/seg_rest.log 2>&1; echo "seg_rest: exit $? $(( $(date +%s) - s )) s" >> $L/wall.txt
tail -3 $L/atomic_old.log $L/atomic_new.log $L/seg_rest.log >> $L/wall.txt
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
s=$(date +%s); RK_TEST_QUICK=1 timeout 120 $san --tool memcheck --print-limit 5 $B/rk_test_seg "$tc" > $L/atomic_memcheck.log 2>&1; echo "atomic_memcheck: exit $? $(( $(date +%s) - s )) s" >> $L/wall.txt
grep -m3 -A12 "Invalid\|Error" $L/atomic_memcheck.log | head -40 >> $L/wall.txt
opts="--no-batch --max-noise 1 --timeout 0.3"
segs='Segments=[all 1,all 8,all 32,all 256,all 1024,all 4096,all 8192,power law,half empty,random mix 1-10^5,one of n/2 + 1-8]'
ok() { [ $(( $(date +%s) - s0 )) -lt ${RK_BY:-530} ] || { echo "$1: skipped, no time" >> $L/wall.txt; return 1; }; }
run() { ok $2-$1 || return; s=$(date +%s); timeout 70 $B/seg_$2 $opts -a T=[I32,F32,F64] -a "$segs" -a "Impl=$3" --json $L/$2-$1.json > $L/$2-$1.log 2>&1
  echo "$2-$1: exit $? $(( $(date +%s) - s )) s" >> $L/wall.txt; tar czf $OUT/logs.tgz -C $L .; }
run r1 P2G '[rk::device,CSR probe]'
run r1 T1 '[rk::device,rk CUB form]'
run r1 P2E '[rk::device,rk CUB form]'
run r2 T1 '[rk::device,rk CUB form]'
run r2 P2G '[rk::device,rk CUB form]'
run r2 P2E '[rk::device,rk CUB form]'
run r3 P2G '[rk::device,rk CUB form]'
run r3 T1 '[rk::device,rk CUB form]'
echo "call wall $(( $(date +%s) - s0 )) s" >> $L/wall.txt
kill $tarloop 2>/dev/null
cat $L/wall.txt | tee $OUT/summary.txt
tar czf $OUT/logs.tgz -C $L .
