#!/usr/bin/env bash
# Grouped Hermite after the stride: the register cap at G = 8 (min blocks 3,
# 5 against 4), G = 4 at N = 8, G = 16's stride (112 against 113), two passes;
# then Nsight Compute on G = 8, N = 8 with the old and new stride (the
# second launch: a steady run of steps, not the first launch's set-up).
cd build-pack/sw
d=$(mktemp -d)
for pass in 1 2; do
  for b in g8s57 g8s56 g8n8s56b3 g8n8s56b5 g4n8s57b0 g4n8s60b0 g16n16s113b0 g16n16s112b0; do
    LD_LIBRARY_PATH=$PWD/lib ./$b 131072 2000 $d $b | sed "s/^/pass $pass /"
  done
done
for b in g8s57 g8s56; do
  LD_LIBRARY_PATH=$PWD/lib ncu --launch-skip 1 --launch-count 1 --section SpeedOfLight \
    --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section WarpStateStats \
    --section LaunchStats --section Occupancy \
    --metrics smsp__inst_executed.sum,smsp__inst_executed_pipe_fp64.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__inst_executed_op_shfl.sum \
    ./$b 131072 2000 $d ncu$b > $OUT/ncu-$b.txt 2>&1
  grep -E "Duration|L1/TEX Cache Throughput|Compute \(SM\) Throughput|Issue Slots Busy|bank_conflicts|wavefronts_mem_shared|inst_executed|Registers Per|Achieved Occupancy|Warp Cycles Per Issued" $OUT/ncu-$b.txt | sed "s/^/$b /"
done
