#!/usr/bin/env bash
# One call on the lent H200 with the fresh clone's CI build of d578a5a
# (device-pack, then tar into build-pack/ci.tar.xz): the gpu label less
# sdk_gpu_check (its nvcc run on the device costs 172 s; the SDK example's
# CPU and CUDA builds ran in CI), mvs Sun + 8 at 8192 and 16,384 copies,
# and REBOUND 5.2.2's WHFast512 on the host's 16 cores in the same call.
set -uo pipefail
R="bash .device/run.sh"; d=0.021902806297056811
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; lscpu | grep -E "Model name|^CPU\(s\)|Thread"; } | tee $OUT/device.txt
rm -rf .device; tar -xJf build-pack/ci.tar.xz
cat .device/build/COMMIT 2>/dev/null | tee -a $OUT/device.txt
SL_REQUIRE_GPU=1 $R ctest --test-dir build -L gpu -E sdk_gpu_check --output-on-failure 2>&1 | tee $OUT/gpu-tests.log | tail -n 22
for n in 8192 16384 16384; do
  printf "%6d " $n
  $R build/bench/ss-bench --data tests/data/solar_system.csv --systems $n --cpu-systems 16 --years 2190.2806297056811 --runs "mvs:$d/corrector=11" 2>&1 | grep "^| mvs"
done 2>&1 | tee $OUT/ss.log
py=$(mktemp -d)
env -u LD_LIBRARY_PATH python3 -m pip install -q --no-index --no-deps --target "$py" .whl/*.whl
echo "whfast512 procs=16 n=16384 $(env -u LD_LIBRARY_PATH PYTHONPATH="$py" python3 bench/rebound_ss.py tests/data/solar_system.csv --years 2190.2806297056811 --dt-days 8 --integrator whfast512 --systems 16384 --procs 16 2>&1 | tail -1)" | tee $OUT/whfast512.log
date -u | tee -a $OUT/device.txt
