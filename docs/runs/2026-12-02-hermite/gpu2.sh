#!/usr/bin/env bash
# After SL_GROUP_XCHG (4571f7a): the CI build's hermite and rkck plugins
# rebuilt with it (the rest of the tree as in gpu.sh's 2716400 build), packed
# into build-pack/device.tar.xz; Criterion carried in .criterion. The grouped
# loops' CPU agreement and the Hermite/RK figures at N = 8 and 16.
set -uo pipefail
tar -xJf build-pack/device.tar.xz
export CRITERION_PREFIX=$PWD/.criterion
c=$CRITERION_PREFIX
export PKG_CONFIG_PATH=$c/lib/pkgconfig LIBRARY_PATH=$c/lib LD_LIBRARY_PATH=$c/lib
R="bash .device/run.sh"
{ date -u; cat .device/build/COMMIT; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } | tee $OUT/device.txt
SL_REQUIRE_GPU=1 $R ctest --test-dir build-ci -R "test_gpu_agreement|test_gpu_composition|test_gpu_user_monitors" --output-on-failure 2>&1 | tee $OUT/gpu-tests.log | tail -n 8
B="build-ci/bench/starling-bench --systems 131072 --bodies 8,16 --backend cuda --repeats 3"
$R $B --integrators hermite,rkck 2>&1 | tee $OUT/bench-n.log | grep "^|"
$R $B --integrators hermite --monitors 2>&1 | tee $OUT/bench-monitors.log | grep "^|"
date -u | tee -a $OUT/device.txt
