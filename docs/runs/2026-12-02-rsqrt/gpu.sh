#!/usr/bin/env bash
# The gpu label and the headline figures on the fresh clone's CI build of
# d09c812 (CI=true .ci/run in /tmp/ci-clone, packed by device-pack into
# build-pack/ci.tar.xz); Criterion carried in .criterion, REBOUND 5.2.2's
# wheel in build-pack/wheels (WHFast512 on the host's 16 cores, same call).
set -uo pipefail
tar -xJf build-pack/ci.tar.xz
export CRITERION_PREFIX=$PWD/.criterion
c=$CRITERION_PREFIX
export PKG_CONFIG_PATH=$c/lib/pkgconfig LIBRARY_PATH=$c/lib LD_LIBRARY_PATH=$c/lib
R="bash .device/run.sh"; d=0.021902806297056811
{ date -u; cat .device/build/COMMIT 2>/dev/null; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; lscpu | grep "Model name"; } | tee $OUT/device.txt
SL_REQUIRE_GPU=1 $R ctest --test-dir build -L gpu --output-on-failure 2>&1 | tee $OUT/gpu-tests.log | tail -n 25
$R build/bench/starling-bench --systems 131072 --bodies 3,5,8,16 --backend cuda --integrators hermite,rkck --repeats 3 2>&1 | tee $OUT/bench-n.log | grep "^|"
$R build/bench/starling-bench --systems 131072 --bodies 8,16 --backend cuda --integrators hermite --monitors --repeats 3 2>&1 | tee $OUT/bench-monitors.log | grep "^|"
for n in 8192 16384 131072; do
  printf "%6d " $n
  $R build/bench/ss-bench --data tests/data/solar_system.csv --systems $n --cpu-systems 16 --years 2190.2806297056811 --runs "mvs:$d/corrector=11" 2>&1 | grep "^| mvs"
done 2>&1 | tee $OUT/ss.log
py=$(mktemp -d)
env -u LD_LIBRARY_PATH python3 -m pip install -q --no-index --no-deps --target "$py" build-pack/wheels/*.whl
echo -n "whfast512 procs=16 n=16384 " | tee $OUT/whfast512.log
env -u LD_LIBRARY_PATH PYTHONPATH="$py" python3 bench/rebound_ss.py tests/data/solar_system.csv \
  --years 2190.2806297056811 --dt-days 8 --integrator whfast512 --systems 16384 --procs 16 2>&1 | tail -1 | tee -a $OUT/whfast512.log
date -u | tee -a $OUT/device.txt
