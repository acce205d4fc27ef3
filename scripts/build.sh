#!/usr/bin/env bash
# Configures and builds starling into ${BUILD_DIR:-build}. The CUDA backend is
# built whenever nvcc is found (SL_CUDA=AUTO), so GPU code always compiles.
# SL_CUDA_NBODIES (e.g. "3;5;9;16") limits the body counts with unrolled
# CUDA kernels, SL_UNROLL_NBODIES those with unrolled loops at all (CPU and
# CUDA); the default is all of 2..16 for both (docs/TESTING.md).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}
if [ -d /usr/local/cuda/bin ]; then export PATH="$PATH:/usr/local/cuda/bin"; fi
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSL_CUDA="${SL_CUDA:-AUTO}" \
      -DCMAKE_CUDA_ARCHITECTURES="${SL_CUDA_ARCHS:-90}" \
      ${SL_CUDA_NBODIES:+-DSL_CUDA_NBODIES="$SL_CUDA_NBODIES"} \
      ${SL_UNROLL_NBODIES:+-DSL_UNROLL_NBODIES="$SL_UNROLL_NBODIES"} ${CMAKE_ARGS:-}
cmake --build "$build" -j "${JOBS:-$(nproc)}"
