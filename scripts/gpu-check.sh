#!/usr/bin/env bash
# On a machine with a GPU: run the `gpu` test label (failing, not skipping,
# when no device is found) and the benchmark, printing what a record needs
# (device, date, commit). Usage: scripts/gpu-check.sh [BUILD_DIR] [OUT_DIR]
set -uo pipefail
build=${1:-build-cuda}
out=${2:-.}
mkdir -p "$out"
{
  echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
  echo "commit: $(cat "$build/COMMIT" 2>/dev/null || git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null
  echo "cpu: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
} | tee "$out/device.txt"
SL_REQUIRE_GPU=1 ctest --test-dir "$build" -L gpu --output-on-failure 2>&1 | tee "$out/gpu-tests.log"
tests_rc=${PIPESTATUS[0]}
"$build/bench/starling-bench" --all --bodies 3,6 2>&1 | tee "$out/bench.log"
"$build/bench/starling-bench" --systems 131072 --bodies 2,4,8,12,16 --repeats 3 2>&1 | tee "$out/bench-n.log"
"$build/bench/starling-bench" --systems 131072 --bodies 3,6 --monitors 2>&1 | tee "$out/bench-monitors.log"
exit "$tests_rc"
