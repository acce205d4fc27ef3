# The launcher's choice (grouped up to 128 systems a multiprocessor, one
# thread a system past it): test_gpu_mvs again, then the Sun + 8 (DH,
# corrector 11) with 8192, 16384, 32768 and 131072 copies.
export CRITERION_PREFIX=$PWD/.criterion; c=$CRITERION_PREFIX; export LD_LIBRARY_PATH=$c/lib
rm -rf .device build-dev; tar -xJf build-pack/dev.tar.xz
R="bash .device/run.sh"
d=0.021902806297056811
SL_REQUIRE_GPU=1 $R build-dev/tests/test_gpu_mvs > $OUT/test_gpu_mvs.log 2>&1; echo "test_gpu_mvs rc=$?"; grep -E "Synthesis" $OUT/test_gpu_mvs.log
for n in 8192 16384 32768 131072; do printf "%6d copies " $n
$R build-dev/bench/ss-bench --data tests/data/solar_system.csv --systems $n --cpu-systems 16 --years 2190.2806297056811 --runs "mvs:$d/corrector=11" 2>&1 | grep "^| mvs"
done > $OUT/dispatch.log 2>&1; cat $OUT/dispatch.log
