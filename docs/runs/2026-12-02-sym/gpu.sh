#!/usr/bin/env bash
# One call on the lent H200 for the session's last 474 s of device time:
# (1) the gpu label on the fresh clone's CI build (packed by device-pack into
# build-pack/ci.tar.xz), less sdk_gpu_check (172 s of nvcc on the device;
# the SDK example does not use mvs, and its CPU and CUDA builds ran in CI);
# (2) mvs Sun + 8 on the GPU and REBOUND 5.2.2's WHFast512 on the host's 16
# cores in the same call; (3) the CPU backend's 16-core question: threads of
# one process against one-thread processes, bound threads, and 16 lanes a
# group instead of 32 (build-pack/cpu.tar.xz: w32/ and w16/, Release builds
# without CUDA, SL_LANE_CLONES ON, SL_LANES 32 and 16). Criterion in .criterion.
set -uo pipefail
tar -xJf build-pack/ci.tar.xz
mkdir -p /tmp/bc && tar -xJf build-pack/cpu.tar.xz -C /tmp/bc
export CRITERION_PREFIX=$PWD/.criterion
c=$CRITERION_PREFIX
export PKG_CONFIG_PATH=$c/lib/pkgconfig LIBRARY_PATH=$c/lib LD_LIBRARY_PATH=$c/lib
R="bash .device/run.sh"; d=0.021902806297056811
{ date -u; cat .device/build/COMMIT 2>/dev/null; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; lscpu | grep -E "Model name|Thread|Core|Socket|L1d|L2|NUMA node\("; } | tee $OUT/device.txt
SL_REQUIRE_GPU=1 $R ctest --test-dir build -L gpu -E sdk_gpu_check --output-on-failure 2>&1 | tee $OUT/gpu-tests.log | tail -n 22
for n in 8192 16384; do
  printf "%6d " $n
  $R build/bench/ss-bench --data tests/data/solar_system.csv --systems $n --cpu-systems 16 --years 2190.2806297056811 --runs "mvs:$d/corrector=11" 2>&1 | grep "^| mvs"
done 2>&1 | tee $OUT/ss.log
py=$(mktemp -d)
env -u LD_LIBRARY_PATH python3 -m pip install -q --no-index --no-deps --target "$py" build-pack/wheels/*.whl
peer() { env -u LD_LIBRARY_PATH PYTHONPATH="$py" python3 bench/rebound_ss.py tests/data/solar_system.csv \
           --years 2190.2806297056811 --dt-days 8 --integrator whfast512 "$@" 2>&1 | tail -1; }
echo "whfast512 procs=16 n=16384 $(peer --systems 16384 --procs 16)" | tee $OUT/whfast512.log
D="--backend cpu --data tests/data/solar_system.csv --systems 32 --years 2190.2806297056811 --runs mvs:$d/corrector=11"
one() { OMP_NUM_THREADS=$2 /tmp/bc/$1/bench/ss-bench $D --cpu-systems $3 2>&1 | grep "^| mvs" | awk -F'|' '{print $6}'; }
{
echo "== w32 threads=1 copies=256: $(one w32 1 256) s"
echo "== w32 threads=16 copies=4096: $(one w32 16 4096) s"
echo "== w16 threads=16 copies=4096: $(one w16 16 4096) s"
echo "== w32 bound threads=16 copies=4096: $(OMP_PROC_BIND=close OMP_PLACES=cores one w32 16 4096) s"
for k in $(seq 0 15); do (taskset -c $k env OMP_NUM_THREADS=1 /tmp/bc/w32/bench/ss-bench $D --cpu-systems 256 2>&1 | grep "^| mvs" | awk -F'|' '{print $6}' > /tmp/bc/p$k) & done; wait
echo "== w32 procs=16 x copies=256 (pinned): $(cat /tmp/bc/p* | sort -n | tr '\n' ' ') s"
echo "== w16 threads=1 copies=256: $(one w16 1 256) s"
echo "== whfast512 procs=16 n=4096 $(peer --systems 4096 --procs 16)"
echo "== whfast512 procs=1 n=256 $(peer --systems 256 --procs 1)"
} 2>&1 | tee $OUT/cpu.log
date -u | tee -a $OUT/device.txt
