#!/bin/bash
# reduce_by_key's run pass a tile per warp (W, Wn: without the look-back's sleeps) against main's
# block-per-tile run pass (base): 1. the family GPU test binary on W (plain, then its reduce_by_key
# cases under memcheck and racecheck, quick sizes); 2. rk_bench_family -b reduce_by_key at 2^26,
# alternating binaries, CUB/Thrust/probe in the first round.
set -u
cd "$(dirname "$0")/.."
B=/tmp/b; mkdir -p $B; L=/tmp/logsk; mkdir -p $L
s0=$(date +%s)
for f in .device/rbk/*.xz; do xz -dc $f > $B/$(basename $f .xz); chmod +x $B/$(basename $f .xz); done
mkdir -p /tmp/lib; for f in .device/lib/*.xz; do xz -dc $f > /tmp/lib/$(basename $f .xz); done; export LD_LIBRARY_PATH=/tmp/lib:${LD_LIBRARY_PATH:-}
nvidia-smi -L > $L/device.txt; nvidia-smi --query-gpu=uuid,clocks.sm,clocks.mem,temperature.gpu --format=csv >> $L/device.txt
( while sleep 20; do tar czf $OUT/logs.tgz -C $L . 2>/dev/null; done ) & tarloop=$!
s=$(date +%s); timeout 150 $B/test_family > $L/test_family.log 2>&1; echo "test_family: exit $? $(( $(date +%s) - s )) s" >> $L/wall.txt; tail -3 $L/test_family.log >> $L/wall.txt
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in memcheck racecheck; do
  s=$(date +%s); RK_TEST_QUICK=1 timeout 120 $san --tool $tool --print-limit 5 $B/test_family -tc='*reduce_by_key*' > $L/$tool.log 2>&1; echo "$tool: exit $? $(( $(date +%s) - s )) s" >> $L/wall.txt
  grep -m2 -B2 -A8 "Invalid\|rror:\|azard" $L/$tool.log | head -20 >> $L/wall.txt; tail -3 $L/$tool.log >> $L/wall.txt
done
opts="--no-batch --max-noise 1 --timeout 0.3"
ok() { [ $(( $(date +%s) - s0 )) -lt ${RK_BY:-520} ] || { echo "$1: skipped, no time" >> $L/wall.txt; return 1; }; }
run() { ok $2-$1 || return; s=$(date +%s); timeout 90 $B/fam_$2 -b reduce_by_key $opts -a "Impl=$3" --json $L/$2-$1.json > $L/$2-$1.log 2>&1
  echo "$2-$1: exit $? $(( $(date +%s) - s )) s" >> $L/wall.txt; tar czf $OUT/logs.tgz -C $L .; }
run r1 base '[rk::reduce_by_key,cub,thrust::reduce_by_key,probe]'
run r1 W '[rk::reduce_by_key,cub]'
[ -x $B/fam_Wn ] && run r1 Wn '[rk::reduce_by_key,cub]'
run r2 W '[rk::reduce_by_key,probe]'
run r2 base '[rk::reduce_by_key,probe]'
[ -x $B/fam_Wn ] && run r2 Wn '[rk::reduce_by_key,probe]'
echo "call wall $(( $(date +%s) - s0 )) s" >> $L/wall.txt
kill $tarloop 2>/dev/null
cat $L/wall.txt | tee $OUT/summary.txt
tar czf $OUT/logs.tgz -C $L .
