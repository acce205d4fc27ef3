# The CI build of 58b8cf4 (fresh clone, `CI=true .ci/run`, SL_CUDA_NBODIES
# 3;5;8;9;16), packed by device-pack: the gpu label, then mvs on the Sun + 8
# planets (GPU 131072 copies, CPU 1024 on 16 threads) and REBOUND WHFast512 on
# the 16 cores in the same run.
export CRITERION_PREFIX=$PWD/.criterion; c=$CRITERION_PREFIX; export PKG_CONFIG_PATH=$c/lib/pkgconfig LIBRARY_PATH=$c/lib LD_LIBRARY_PATH=$c/lib
rm -rf .device build; tar -xJf build-pack/device.tar.xz
R="bash .device/run.sh"
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; lscpu | grep "Model name"; nproc; date -u; } > $OUT/device.txt; cat $OUT/device.txt
SL_REQUIRE_GPU=1 $R ctest --test-dir build -L gpu --output-on-failure > $OUT/gpu-tests.log 2>&1; tail -4 $OUT/gpu-tests.log
d=0.021902806297056811
$R build/bench/ss-bench --data tests/data/solar_system.csv --systems 131072 --cpu-systems 1024 --years 2190.2806297056811 --runs "mvs:$d/corrector=11,mvs:$d/corrector=11/kepler_tol=0,mvs:$d/corrector=11/coordinates=1,mvs:$d/corrector=11/coordinates=1/kepler_tol=0" > $OUT/ss-131072.log 2>&1; cat $OUT/ss-131072.log
$R bash bench/ss_compare.sh build build-pack/wheels $OUT solar > $OUT/solar-run.log 2>&1; tail -14 $OUT/ss-solar.log
date -u
