#!/bin/bash
# The run pass of branch exp/run-head-bits as persistent blocks that load the next tile's words
# ahead: rk_bench_family -b reduce_by_key against bd4d89e's run pass, then the family GPU cases
# and racecheck over the reduce_by_key cases.
cd "$(dirname "$0")/.."
start=$(date +%s)
B=/tmp/b; mkdir -p $B /tmp/lib; L=/tmp/logs9; mkdir -p $L
for f in .device9/bin/*.xz; do xz -dc $f > $B/$(basename $f .xz); chmod +x $B/$(basename $f .xz); done
for f in .device9/lib/*.xz; do xz -dc $f > /tmp/lib/$(basename $f .xz); done
export LD_LIBRARY_PATH=/tmp/lib:${LD_LIBRARY_PATH:-}
nvidia-smi -L > $L/device.txt
opts="--no-batch --max-noise 1 --timeout 0.5"
run() { s=$(date +%s); timeout 90 $B/rk_bench_family_$1 $opts -b reduce_by_key -a "Impl=[$3]" --json $L/rbk-$1-$2.json > $L/rbk-$1-$2.log 2>&1
  echo "rbk $1 $2: exit $? $(( $(date +%s) - s )) s" >> $L/wall.txt; tar czf $OUT/logs.tgz -C $L .; }
run persistent r1 'rk::reduce_by_key,thrust::reduce_by_key,cub,probe'
run old r1 'rk::reduce_by_key,probe'
run persistent r2 'rk::reduce_by_key,probe'
run old r2 'rk::reduce_by_key,probe'

s=$(date +%s); timeout 60 $B/rk_test_family_persistent > $L/mini.log 2>&1; echo "mini: exit $? $(( $(date +%s) - s )) s" >> $L/wall.txt
tar czf $OUT/logs.tgz -C $L .
s=$(date +%s); timeout 30 compute-sanitizer --tool racecheck --error-exitcode 1 $B/rk_test_family_persistent -tc='*reduce_by_key*' -tce='*2^31*' > $L/racecheck.log 2>&1; echo "racecheck: exit $? $(( $(date +%s) - s )) s" >> $L/wall.txt
tar czf $OUT/logs.tgz -C $L .
cat $L/wall.txt; grep -h "test cases\|SUMMARY" $L/mini.log $L/racecheck.log
