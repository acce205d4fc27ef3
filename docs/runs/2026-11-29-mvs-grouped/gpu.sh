# mvs grouped on CUDA (a thread per planet from 8 bodies). build-dev is a
# CUDA build of this tree (SL_CUDA_NBODIES 3;5;8;9;16, SL_LANE_CLONES OFF),
# with two more builds of mvs.so beside it (mvs-variants/): nogroup
# (-DSL_MVS_NO_GROUP: one thread a system, as before) and minb2
# (-D'SL_GROUP_MIN_BLOCKS(G)=2': a 255-register cap instead of 128);
# packed by device-pack into build-pack/dev.tar.xz. test_gpu_mvs (CPU vs
# CUDA), then the Sun + 8 planets with 16384 copies (the ensemble)
# and 131072, democratic heliocentric (grouped) and Jacobi (one thread a
# system), for each build of mvs.so.
export CRITERION_PREFIX=$PWD/.criterion; c=$CRITERION_PREFIX; export PKG_CONFIG_PATH=$c/lib/pkgconfig LIBRARY_PATH=$c/lib LD_LIBRARY_PATH=$c/lib
rm -rf .device build-dev; tar -xJf build-pack/dev.tar.xz
R="bash .device/run.sh"
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; lscpu | grep "Model name"; nproc; date -u; } > $OUT/device.txt; cat $OUT/device.txt
SL_REQUIRE_GPU=1 $R build-dev/tests/test_gpu_mvs > $OUT/test_gpu_mvs.log 2>&1; echo "test_gpu_mvs rc=$?"; grep -E "max \||Synthesis|FAIL" $OUT/test_gpu_mvs.log | cut -c1-220
d=0.021902806297056811
P=.device/build/lib/starling/plugins
cp $P/mvs.so $P/../mvs-variants/mvs_grouped.so
for pass in 1 2; do for v in grouped nogroup minb2; do
cp $P/../mvs-variants/mvs_$v.so $P/mvs.so
for n in 16384 131072; do
echo "== pass $pass: $v, $n copies"
$R build-dev/bench/ss-bench --data tests/data/solar_system.csv --systems $n --cpu-systems 128 --years 2190.2806297056811 --runs "mvs:$d/corrector=11,mvs:$d/corrector=11/coordinates=1" 2>&1 | grep "^| mvs"
done; done; done > $OUT/ss.log 2>&1; cat $OUT/ss.log
cp $P/../mvs-variants/mvs_grouped.so $P/mvs.so
date -u
# the peer in the same run: bench/ss_compare.sh's Sun + 8 part (ss-bench
# with 16384 copies, REBOUND WHFast and WHFast512 on the 16 cores)
$R bash bench/ss_compare.sh build-dev build-pack/wheels $OUT solar > $OUT/solar-run.log 2>&1; tail -14 $OUT/ss-solar.log
date -u
