export CRITERION_PREFIX=$PWD/.criterion; c=$CRITERION_PREFIX; export LD_LIBRARY_PATH=$c/lib
rm -rf .device build; tar -xJf build-pack/device.tar.xz
R="bash .device/run.sh"; d=0.021902806297056811
P=.device/build/lib/starling/plugins
mkdir -p build-pack/var; tar -xJf build-pack/varp/so2.tar.xz -C build-pack/var
for pass in 1 2; do for n in 4096 8192 16384; do for v in $VARIANTS; do
cp build-pack/var/$v.so $P/mvs.so
printf "pass %s %-6s %6d " $pass $v $n
$R build/bench/ss-bench --data tests/data/solar_system.csv --systems $n --cpu-systems 16 --years 2190.2806297056811 --runs "mvs:$d/corrector=11" 2>&1 | grep "^| mvs"
done; done; done 2>&1 | tee $OUT/var2.log
cp build-pack/var/base.so $P/mvs.so
M=smsp__inst_executed_pipe_fp64.sum,smsp__inst_executed.sum,sm__inst_executed_pipe_fp64.avg.pct_of_peak_sustained_active,smsp__sass_thread_inst_executed_op_dfma_pred_on.sum,smsp__sass_thread_inst_executed_op_dmul_pred_on.sum,smsp__sass_thread_inst_executed_op_dadd_pred_on.sum,smsp__sass_thread_inst_executed.sum
S="--section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats --section Occupancy --section LaunchStats --section InstructionStats"
timeout 150 $R ncu --launch-count 1 --kernel-name regex:sl_kernel_hermite_newton_8 $S --metrics $M build/bench/starling-bench --systems 131072 --bodies 8 --integrators hermite --backend cuda --steps 2000 > $OUT/ncu-hermite8.txt 2>&1; echo "ncu hermite rc=$?"
timeout 150 $R ncu --launch-count 1 --kernel-name regex:sl_kernel_mvs_newton_9_thread $S --metrics $M build/bench/ss-bench --data tests/data/solar_system.csv --systems 131072 --cpu-systems 16 --years 219.02806297056811 --runs "mvs:$d/corrector=11" > $OUT/ncu-mvs-thread.txt 2>&1; echo "ncu mvs thread rc=$?"
timeout 100 $R ncu --launch-count 1 --kernel-name regex:sl_kernel_mvs_newton_9 $S --metrics $M build/bench/ss-bench --data tests/data/solar_system.csv --systems 8192 --cpu-systems 16 --years 219.02806297056811 --runs "mvs:$d/corrector=11" > $OUT/ncu-mvs-group.txt 2>&1; echo "ncu mvs group rc=$?"
