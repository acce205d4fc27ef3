#!/usr/bin/env bash
# Issue 10's CPU target on the lent GPU machine's 16-core host: starling's
# CPU backend (a user's build, clones on) against WHFast512 at equal energy
# error, Sun + 8, 10^5 steps of 8 days. Carry build-pack (README.md here).
set -uo pipefail
mkdir -p /tmp/bc && tar -xJf build-pack/cpu.tar.xz -C /tmp/bc
py=$(mktemp -d)
env -u LD_LIBRARY_PATH python3 -m pip install -q --no-index --no-deps --target "$py" build-pack/wheels/*.whl
peer() { env -u LD_LIBRARY_PATH PYTHONPATH="$py" python3 bench/rebound_ss.py tests/data/solar_system.csv \
           --years 2190.2806297056811 --dt-days 8 --integrator whfast512 "$@" | tail -1; }
d=0.021902806297056811
D="--backend cpu --data tests/data/solar_system.csv --systems 32 --years 2190.2806297056811"
R="mvs:$d/corrector=11,mvs:$d/corrector=11/coordinates=1"
run() { echo "== t=$1 n=$2 $(date -u +%H:%M:%S)"; OMP_NUM_THREADS=$1 /tmp/bc/cpu/bench/ss-bench $D --cpu-systems $2 --runs "$R" 2>&1 | grep "^| mvs"; }
date -u; lscpu | grep -E "Model name|^CPU\(s\)|Thread|MHz" | cut -c1-200
run 1 256
echo "== whfast512 procs=1 n=256 $(peer --systems 256 --procs 1)"
echo "== whfast512 corrector 11 procs=1 n=256 $(peer --systems 256 --procs 1 --corrector 11)"
for pass in 1 2; do
  run 16 16384
  echo "== whfast512 procs=16 n=16384 $(date -u +%H:%M:%S) $(peer --systems 16384 --procs 16)"
  echo "== whfast512 corrector 11 procs=16 n=16384 $(date -u +%H:%M:%S) $(peer --systems 16384 --procs 16 --corrector 11)"
done
date -u
