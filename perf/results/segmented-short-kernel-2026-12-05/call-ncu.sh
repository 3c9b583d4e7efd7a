#!/bin/bash
# ncu: the CSR form's short kernel against the fixed-size form's window_rows_kernel, float 4096 and 8192.
cd "$(dirname "$0")/.."
B=/tmp/b; mkdir -p $B; L=/tmp/logs11; mkdir -p $L
xz -dc .device10/bin/rk_bench_segmented.xz > $B/rk_bench_segmented; chmod +x $B/rk_bench_segmented
mkdir -p /tmp/lib; for f in .device10/lib/*.xz; do xz -dc $f > /tmp/lib/$(basename $f .xz); done; export LD_LIBRARY_PATH=/tmp/lib:${LD_LIBRARY_PATH:-}
nvidia-smi -L > $L/device.txt
NCU=/usr/local/cuda/bin/ncu
s=$(date +%s); timeout 170 $NCU --kernel-name regex:'short_segments|window_rows' \
  --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
  --metrics gpu__time_duration.sum,dram__bytes.sum,smsp__sass_inst_executed_op_local_ld.sum,smsp__sass_inst_executed_op_global_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum \
  $B/rk_bench_segmented --profile -a T=F32 -a 'Segments=[all 4096,all 8192]' -a 'Impl=[rk::device,rk fixed]' > $L/ncu.txt 2>&1
echo "ncu: exit $? $(( $(date +%s) - s )) s" >> $L/wall.txt; tar czf $OUT/logs.tgz -C $L .
cat $L/wall.txt
