#!/bin/bash
# reduce_by_key's run pass as resident blocks with keys copied ahead into shared memory: P64 (4096-key
# tiles, two stages) and P32 (2048-key tiles, three stages) against main's (base). 1. the family GPU
# test binary built with P64 (plain; reduce_by_key cases under memcheck, quick sizes); 2.
# rk_bench_family -b reduce_by_key at 2^26, alternating; 3. if time is left, ncu of the run pass at
# runs of 10^6 (base, P64); 4. ncu over main's segmented misses (callncu.sh). seg_r first.
set -u
cd "$(dirname "$0")/.."
B=/tmp/b; mkdir -p $B; L=/tmp/logsk3; mkdir -p $L
s0=$(date +%s)
for f in .device/rbk3/*.xz; do xz -dc $f > $B/$(basename $f .xz); chmod +x $B/$(basename $f .xz); done
mkdir -p /tmp/lib; for f in .device/lib/*.xz; do xz -dc $f > /tmp/lib/$(basename $f .xz); done; export LD_LIBRARY_PATH=/tmp/lib:${LD_LIBRARY_PATH:-}
nvidia-smi -L > $L/device.txt
( while sleep 15; do tar czf $OUT/logs.tgz -C $L . 2>/dev/null; done ) & tarloop=$!
s=$(date +%s); timeout 30 $B/seg_r > $L/seg_r.log 2>&1; echo "seg_r (94581c3 test_segmented): exit $? $(( $(date +%s) - s )) s" >> $L/wall.txt; tail -3 $L/seg_r.log >> $L/wall.txt
s=$(date +%s); timeout 60 $B/test_family_P64 > $L/test_family_P64.log 2>&1; echo "test_family_P64: exit $? $(( $(date +%s) - s )) s" >> $L/wall.txt; tail -3 $L/test_family_P64.log >> $L/wall.txt
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in memcheck racecheck synccheck; do
  s=$(date +%s); RK_TEST_QUICK=1 timeout 40 $san --tool $tool --print-limit 5 $B/test_family_P64 -tc='*reduce_by_key*' -tce='*2^31*' > $L/$tool.log 2>&1; echo "$tool: exit $? $(( $(date +%s) - s )) s" >> $L/wall.txt
  grep -m2 -B2 -A8 "Invalid\|rror:\|azard" $L/$tool.log | head -20 >> $L/wall.txt; tail -3 $L/$tool.log >> $L/wall.txt
done
opts="--no-batch --max-noise 1 --timeout 0.3"
ok() { [ $(( $(date +%s) - s0 )) -lt ${RK_BY:-240} ] || { echo "$1: skipped, no time" >> $L/wall.txt; return 1; }; }
run() { ok $2-$1 || return; s=$(date +%s); timeout 40 $B/fam_$2 -b reduce_by_key $opts -a "Impl=$3" --json $L/$2-$1.json > $L/$2-$1.log 2>&1
  echo "$2-$1: exit $? $(( $(date +%s) - s )) s" >> $L/wall.txt; tar czf $OUT/logs.tgz -C $L .; }
run r1 base '[rk::reduce_by_key,cub]'
run r1 P64 '[rk::reduce_by_key,probe]'
run r1 P32 '[rk::reduce_by_key,probe]'
run r2 P64 '[rk::reduce_by_key,probe]'
run r2 base '[rk::reduce_by_key,probe]'
run r2 P32 '[rk::reduce_by_key,probe]'
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu)
prof() { ok $1 || return; s=$(date +%s)
  timeout 40 $NCU --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats -k regex:reduce_runs --launch-skip 1 --launch-count 1 $B/fam_$2 -b reduce_by_key --profile -a "RunLength=[1000000,1000]" -a 'Impl=[rk::reduce_by_key,probe]' > $L/$1.txt 2>&1
  echo "$1: exit $? $(( $(date +%s) - s )) s" >> $L/wall.txt; tar czf $OUT/logs.tgz -C $L .; }
prof ncu-base base
prof ncu-P64 P64
xz -dc .device/ncu/rk_bench_segmented_P2G.xz > $B/seg; chmod +x $B/seg
sprof() { [ $(( $(date +%s) - s0 )) -lt ${RK_SBY:-520} ] || { echo "$1: skipped, no time" >> $L/wall.txt; return; }
  s=$(date +%s); name=$1; shift
  timeout 45 $NCU --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats --section MemoryWorkloadAnalysis --kernel-name-base demangled -k "regex:rk::|segment_probe|DeviceSegmentedReduceKernel" --launch-count 10 $B/seg --profile -a Elements=26 "$@" > $L/$name.txt 2>&1
  echo "$name: exit $? $(( $(date +%s) - s )) s" >> $L/wall.txt; tar czf $OUT/logs.tgz -C $L .; }
sprof csr32 -a T=F32 -a 'Segments=[all 32]' -a 'Impl=[rk::device,CSR probe]'
sprof csr64 -a T=F32 -a 'Segments=[all 64]' -a 'Impl=[rk::device]'
sprof one_i32 -a T=I32 -a 'Segments=[one segment]' -a 'Impl=[rk::device,rk::reduce_into]'
sprof one_f32 -a T=F32 -a 'Segments=[one segment]' -a 'Impl=[rk::device,rk::reduce_into]'
sprof fixed4096 -a T=F32 -a 'Segments=[all 4096]' -a 'Impl=[rk fixed,cub,rk::device]'
sprof mix -a T=F32 -a 'Segments=[random mix 1-10^5]' -a 'Impl=[rk::device]'
sprof half -a T=F32 -a 'Segments=[one of n/2 + 1-8]' -a 'Impl=[rk::device]'
echo "call wall $(( $(date +%s) - s0 )) s" >> $L/wall.txt
kill $tarloop 2>/dev/null
cat $L/wall.txt | tee $OUT/summary.txt
tar czf $OUT/logs.tgz -C $L .
