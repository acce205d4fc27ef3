#!/usr/bin/env bash
# The CPU backend, main (base) against this session's drift changes (v2: the series start
# on ellipses, the fast iteration's fewer comparisons, the lane loop's rarer
# checks), against REBOUND's WHFast512 on the GPU machine's host. Carry build-pack
# (cpu.tar.xz: base/, v2/; wheels/).
set -uo pipefail
mkdir -p /tmp/bc && tar -xJf build-pack/cpu.tar.xz -C /tmp/bc
py=$(mktemp -d)
env -u LD_LIBRARY_PATH python3 -m pip install -q --no-index --no-deps --target "$py" build-pack/wheels/*.whl
peer() { env -u LD_LIBRARY_PATH PYTHONPATH="$py" python3 bench/rebound_ss.py tests/data/solar_system.csv \
           --years 2190.2806297056811 --dt-days 8 --integrator whfast512 "$@" | tail -1; }
D="--backend cpu --data tests/data/solar_system.csv --systems 32 --years 2190.2806297056811 --runs mvs:0.021902806297056811/corrector=11"
run() { echo -n "== $2 t=$1 n=$3 $(date -u +%H:%M:%S) "; OMP_NUM_THREADS=$1 /tmp/bc/$2/bench/ss-bench $D --cpu-systems $3 2>&1 | grep "^| mvs"; }
date -u; lscpu | grep -E "Model name|^CPU\(s\)|Thread|MHz|Flags" | cut -c1-200
for v in ${VARIANTS:-base v2}; do run 1 $v 64; done
echo -n "== whfast512 procs=1 n=64 "; peer --systems 64 --procs 1
for pass in 1 2; do
  for v in ${VARIANTS:-base v2}; do run 16 $v 16384; done
  echo -n "== whfast512 procs=16 n=16384 $(date -u +%H:%M:%S) "; peer --systems 16384 --procs 16
done
date -u
