# variants of mvs.so on the CI build of e417835: Sun + 8, DH corrector 11
export CRITERION_PREFIX=$PWD/.criterion; c=$CRITERION_PREFIX; export PKG_CONFIG_PATH=$c/lib/pkgconfig LIBRARY_PATH=$c/lib LD_LIBRARY_PATH=$c/lib
rm -rf .device build; tar -xJf build-pack/device.tar.xz
R="bash .device/run.sh"; d=0.021902806297056811
P=.device/build/lib/starling/plugins
ls /usr/local/cuda/bin | tr '\n' ' '; echo; which ncu nsys 2>&1
mkdir -p build-pack/var; tar -xJf build-pack/varp/so.tar.xz -C build-pack/var; cp $P/mvs.so build-pack/var/ci.so
for pass in 1 2; do for n in 8192 16384; do for v in $VARIANTS; do
cp build-pack/var/$v.so $P/mvs.so
printf "pass %s %-6s %6d " $pass $v $n
$R build/bench/ss-bench --data tests/data/solar_system.csv --systems $n --cpu-systems 16 --years 2190.2806297056811 --runs "mvs:$d/corrector=11" 2>&1 | grep "^| mvs"
done; done; done 2>&1 | tee $OUT/var.log
for v in $TESTV; do cp build-pack/var/$v.so $P/mvs.so; SL_REQUIRE_GPU=1 $R build/tests/test_gpu_mvs > $OUT/test-$v.log 2>&1; echo "test_gpu_mvs $v rc=$?"; grep Synthesis $OUT/test-$v.log; done
NCU=$(ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
if [ -n "$NCU" ] && [ -n "$NCUV" ]; then
for spec in $NCUV; do v=${spec%%:*}; n=${spec#*:}
cp build-pack/var/$v.so $P/mvs.so
timeout 200 $R $NCU --launch-count 1 --kernel-name regex:sl_kernel_mvs_newton_9 --section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats --section Occupancy --section LaunchStats --metrics smsp__inst_executed_pipe_fp64.sum,smsp__inst_executed.sum,sm__inst_executed_pipe_fp64.avg.pct_of_peak_sustained_active,smsp__sass_thread_inst_executed_op_dfma_pred_on.sum,smsp__sass_thread_inst_executed_op_dmul_pred_on.sum,smsp__sass_thread_inst_executed_op_dadd_pred_on.sum,smsp__sass_thread_inst_executed.sum build/bench/ss-bench --data tests/data/solar_system.csv --systems $n --cpu-systems 16 --years 219.02806297056811 --runs "mvs:$d/corrector=11" > $OUT/ncu-$v-$n.txt 2>&1; echo "ncu $v $n rc=$?"
done; fi
