#!/bin/bash
# The segmented GPU cases in their order (the atomic integers case after the others): twice plain,
# then under memcheck in quick mode.
set -u
cd "$(dirname "$0")/.."
B=/tmp/b; mkdir -p $B; L=/tmp/logsv; mkdir -p $L
s0=$(date +%s)
xz -dc .device/bin/rk_test_seg.xz > $B/rk_test_seg; chmod +x $B/rk_test_seg
nvidia-smi -L > $L/device.txt
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for r in 1 2; do s=$(date +%s); timeout 90 $B/rk_test_seg > $L/seg$r.log 2>&1; echo "seg$r: exit $? $(( $(date +%s) - s )) s" >> $L/wall.txt; tail -3 $L/seg$r.log >> $L/wall.txt; done
s=$(date +%s); RK_TEST_QUICK=1 timeout 300 $san --tool memcheck --print-limit 5 $B/rk_test_seg > $L/memcheck.log 2>&1; echo "memcheck: exit $? $(( $(date +%s) - s )) s" >> $L/wall.txt
grep -m2 -B2 -A14 "Invalid\|rror:" $L/memcheck.log | head -50 >> $L/wall.txt; tail -4 $L/memcheck.log >> $L/wall.txt
echo "call wall $(( $(date +%s) - s0 )) s" >> $L/wall.txt
cat $L/wall.txt | tee $OUT/summary.txt
tar czf $OUT/logs.tgz -C $L .
