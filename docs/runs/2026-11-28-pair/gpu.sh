# The CI build of 5c681fa (fresh clone, SL_CUDA_NBODIES 3;5;8;9;16), packed by
# device-pack: the gpu label, the group sweep with its nudge check, and the
# library's hermite/rkck at N = 8 and 16.
export CRITERION_PREFIX=$PWD/.criterion; c=$CRITERION_PREFIX; export PKG_CONFIG_PATH=$c/lib/pkgconfig LIBRARY_PATH=$c/lib LD_LIBRARY_PATH=$c/lib
rm -rf .device build; tar -xJf build-pack/device.tar.xz
R="bash .device/run.sh"
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; lscpu | grep "Model name"; nproc; date -u; } > $OUT/device.txt; cat $OUT/device.txt
SL_REQUIRE_GPU=1 $R ctest --test-dir build -L gpu --output-on-failure > $OUT/gpu-tests.log 2>&1; tail -4 $OUT/gpu-tests.log
SL_REQUIRE_GPU=1 $R bash -c "cd build/tests && ./test_gpu_agreement --verbose" > $OUT/gpu-agreement.log 2>&1; grep -E "N=|Synthesis" $OUT/gpu-agreement.log
$R build/bench/starling-bench --systems 131072 --bodies 8,16 --repeats 3 --backend cuda --integrators hermite,rkck > $OUT/bench-8-16.log 2>&1; tail -12 $OUT/bench-8-16.log
mkdir -p $OUT/sweep; $R bash bench/group_sweep.sh build $OUT/sweep > $OUT/sweep.log 2>&1; echo "sweep rc=$?"; tail -32 $OUT/sweep.log
date -u
