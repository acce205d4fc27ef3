#!/usr/bin/env bash
# On a machine with a GPU: run the `gpu` test label (failing, not skipping,
# when no device is found) and the benchmark, printing what a record needs
# (device, date, commit). Usage: scripts/gpu-check.sh [BUILD_DIR] [OUT_DIR]
# CRITERION_PREFIX: a Criterion carried by scripts/carry-criterion.sh, for
# a GPU machine without one (sdk_gpu_check compiles Criterion tests).
set -uo pipefail
build=${1:-build-cuda}
out=${2:-.}
mkdir -p "$out"
if [ -n "${CRITERION_PREFIX:-}" ]; then
  c=$(cd "$CRITERION_PREFIX" && pwd)
  export PKG_CONFIG_PATH=$c/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
  export LIBRARY_PATH=$c/lib${LIBRARY_PATH:+:$LIBRARY_PATH}
  export LD_LIBRARY_PATH=$c/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
{
  echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
  echo "commit: $(cat "$build/COMMIT" 2>/dev/null || echo "unknown (no $build/COMMIT)")"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null
  echo "cpu: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
} | tee "$out/device.txt"
SL_REQUIRE_GPU=1 ctest --test-dir "$build" -L gpu --output-on-failure 2>&1 | tee "$out/gpu-tests.log"
tests_rc=${PIPESTATUS[0]}
"$build/bench/starling-bench" --all --bodies 3,6 2>&1 | tee "$out/bench.log"
"$build/bench/starling-bench" --systems 131072 --bodies 3,5,9,16 --repeats 3 2>&1 | tee "$out/bench-n.log"
"$build/bench/starling-bench" --systems 131072 --bodies 3,6 --monitors 2>&1 | tee "$out/bench-monitors.log"
exit "$tests_rc"
