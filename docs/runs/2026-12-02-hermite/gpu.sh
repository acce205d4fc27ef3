#!/usr/bin/env bash
# The gpu label and the Hermite/RK benchmarks on the final code: a CUDA build
# made in the sandbox with CI's configuration (SL_LANE_CLONES=OFF, CUDA
# kernels for N = 3, 5, 8, 9, 16), packed by device-pack into
# build-pack/device.tar.xz; Criterion carried in .criterion.
set -uo pipefail
tar -xJf build-pack/device.tar.xz
export CRITERION_PREFIX=$PWD/.criterion
c=$CRITERION_PREFIX
export PKG_CONFIG_PATH=$c/lib/pkgconfig LIBRARY_PATH=$c/lib LD_LIBRARY_PATH=$c/lib
R="bash .device/run.sh"
{ date -u; cat .device/build/COMMIT; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } | tee $OUT/device.txt
SL_REQUIRE_GPU=1 $R ctest --test-dir build-ci -L gpu --output-on-failure 2>&1 | tee $OUT/gpu-tests.log | tail -n 25
$R build-ci/bench/starling-bench --systems 131072 --bodies 3,5,8,16 --backend cuda --integrators hermite,rkck --repeats 3 2>&1 | tee $OUT/bench-n.log
$R build-ci/bench/starling-bench --systems 131072 --bodies 8,16 --backend cuda --integrators hermite --monitors --repeats 3 2>&1 | tee $OUT/bench-monitors.log
date -u | tee -a $OUT/device.txt
