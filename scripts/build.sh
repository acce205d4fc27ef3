#!/usr/bin/env bash
# Configures and builds starling into ${BUILD_DIR:-build}. The CUDA backend is
# built whenever nvcc is found (SL_CUDA=AUTO), so GPU code always compiles.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}
if [ -d /usr/local/cuda/bin ]; then export PATH="$PATH:/usr/local/cuda/bin"; fi
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSL_CUDA="${SL_CUDA:-AUTO}" \
      -DCMAKE_CUDA_ARCHITECTURES="${SL_CUDA_ARCHS:-90}" ${CMAKE_ARGS:-}
cmake --build "$build" -j "${JOBS:-$(nproc)}"
