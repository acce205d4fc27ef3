#!/usr/bin/env bash
# The gpu label and the headline mvs figures on the fresh clone's CI build
# (CI=true .ci/run of 6007456 in /work/ciclone, packed by device-pack into
# build-pack/ci.tar.xz); Criterion carried in .criterion.
set -uo pipefail
tar -xJf build-pack/ci.tar.xz
export CRITERION_PREFIX=$PWD/.criterion
c=$CRITERION_PREFIX
export PKG_CONFIG_PATH=$c/lib/pkgconfig LIBRARY_PATH=$c/lib LD_LIBRARY_PATH=$c/lib
R="bash .device/run.sh"; d=0.021902806297056811
{ date -u; cat .device/build/COMMIT 2>/dev/null; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } | tee $OUT/device.txt
SL_REQUIRE_GPU=1 $R ctest --test-dir build -L gpu --output-on-failure 2>&1 | tee $OUT/gpu-tests.log | tail -n 25
for n in 8192 16384 131072; do
  printf "%6d " $n
  $R build/bench/ss-bench --data tests/data/solar_system.csv --systems $n --cpu-systems 16 --years 2190.2806297056811 --runs "mvs:$d/corrector=11" 2>&1 | grep "^| mvs"
done 2>&1 | tee $OUT/ss.log
