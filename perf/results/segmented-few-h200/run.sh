#!/bin/bash
# Session 7: rk_bench_segmented at 3369efa (head) and f178bd3 (new), alternating, twice; the flat
# reduce and the fixed-size rows off the 16-byte grid.
B=$PWD/build-carry/s7c
export LD_LIBRARY_PATH=$B:$LD_LIBRARY_PATH
mkdir -p $OUT/r
nvidia-smi -L > $OUT/r/device.txt; date -u >> $OUT/r/device.txt
F="--min-time 0.2 --max-noise 1 --timeout 0.5"
A=(-a "T=[F32,F64]" -a "Segments=[all 65536,all 1048576,all 16777216,one segment,power law]" -a "Impl=[rk::device,rk CUB form,rk::two_pass,cub,CSR probe,rk::reduce_into]")
for i in 1 2; do
  for v in head new; do
    timeout 120 $B/seg_$v "${A[@]}" $F --json $OUT/r/seg_${v}_$i.json > $OUT/r/seg_${v}_$i.log 2>&1
    echo "seg $v $i rc=$? at $SECONDS" >> $OUT/r/status.txt
  done
done
for i in 1 2; do timeout 60 $B/flat_off >> $OUT/r/flat_off.txt 2>&1; done
echo "all done at $SECONDS" >> $OUT/r/status.txt
cd $OUT && tar czf r.tgz r && rm -rf r
