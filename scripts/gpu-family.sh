#!/usr/bin/env bash
# On a machine with a GPU: the integrator family's figures (issue 10), each
# printing GPU and CPU in one run. Usage: scripts/gpu-family.sh BUILD OUT [part]
#   part rates:  system-steps/s of every integrator at N = 3, 5, 9, 16
#   part energy: |dE/E| to t = 1e6 on the GPU for every integrator (CSV;
#                energy-plot draws it where PLplot is)
#   part ss:     the outer Solar System ensemble, every integrator, GPU and CPU
#   part forces: what gr and j2 cost against newton (mvs and hermite, N = 3, 5)
set -uo pipefail
build=${1:-build}
out=${2:-.}
part=${3:-all}
mkdir -p "$out"
family=hermite,mvs,verlet,rkck,rkck_adaptive,hermite_adaptive
rc=0
if [ "$part" = all ] || [ "$part" = rates ]; then
  "$build/bench/starling-bench" --integrators "$family" --bodies 3,5,9,16 --systems 131072 \
    --cpu-systems 8192 --steps 1000 --per-launch 1000 --repeats 3 2>&1 | tee "$out/family-rates.log"
  rc=$((rc | PIPESTATUS[0]))
fi
if [ "$part" = all ] || [ "$part" = energy ]; then
  "$build/bench/energy-bench" --backend cuda --systems 64 --t-end 1e6 \
    --csv "$out/family-energy.csv" 2>&1 | tee "$out/family-energy.log"
  rc=$((rc | PIPESTATUS[0]))
fi
if [ "$part" = all ] || [ "$part" = ss ]; then
  "$build/bench/ss-bench" --systems 16384 --cpu-systems 2048 --years 1000 \
    --runs mvs:0.05,hermite:0.05,verlet:0.01,rkck:0.1,rkck_adaptive:tol=1e-10,hermite_adaptive:eta=0.02 \
    2>&1 | tee "$out/family-ss.log"
  rc=$((rc | PIPESTATUS[0]))
fi
if [ "$part" = all ] || [ "$part" = forces ]; then
  : > "$out/family-forces.log"
  for f in newton gr j2:J2=0.0147,R=1e-3; do
    "$build/bench/starling-bench" --integrators mvs,hermite --bodies 3,5 --force "$f" \
      --systems 131072 --cpu-systems 8192 --steps 1000 --per-launch 1000 --repeats 3 2>&1 |
      tee -a "$out/family-forces.log"
    rc=$((rc | PIPESTATUS[0]))
  done
fi
exit "$rc"
