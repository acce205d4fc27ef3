#!/usr/bin/env bash
# README command 2: install dependencies, build, run every test suite. GPU
# suites (ctest label `gpu`) skip with a message when no GPU is present.
# Then the CPU suites again under ASan+UBSan (scripts/sanitize.sh) and each
# fuzz target for FUZZ_SECONDS (scripts/fuzz.sh); SANITIZE=0 or
# FUZZ_SECONDS=0 skips those (docs/TESTING.md).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
# CI (2 cores, 90 minutes) compiles every integrator's CUDA code, but
# unrolled for five body counts instead of fifteen (docs/TESTING.md).
if [ "${CI:-}" = true ] && [ -z "${SL_CUDA_NBODIES:-}" ]; then
  export SL_CUDA_NBODIES="3;5;8;9;16"
fi
# and the CPU lane loops once, for the baseline x86-64, not also for v3 and
# v4 (SL_LANE_CLONES, docs/TESTING.md): the lane loops of the integrators
# and forces were 68 of the build's 89 CPU-minutes at b5c598d, each
# compiled three times. A build for use keeps the three.
if [ "${CI:-}" = true ] && [[ "${CMAKE_ARGS:-}" != *SL_LANE_CLONES* ]]; then
  export CMAKE_ARGS="${CMAKE_ARGS:-} -DSL_LANE_CLONES=OFF"
fi
# and unrolls the lane loops for N = 2..5 and 8 only (the runtime-N loop
# runs the others, to the same bits): an unrolled loop's compile time grows
# with N, and the loops were 1,070 of the build's 2,490 CPU-seconds with
# 2..9 and 16 (SL_UNROLL_NBODIES).
if [ "${CI:-}" = true ] && [ -z "${SL_UNROLL_NBODIES:-}" ]; then
  export SL_UNROLL_NBODIES="2;3;4;5;8"
fi
# Each fuzz target runs 30 s from its corpus in CI, not 60 (scripts/fuzz.sh,
# FUZZ_SECONDS): five targets two at a time are three rounds.
if [ "${CI:-}" = true ] && [ -z "${FUZZ_SECONDS:-}" ]; then
  export FUZZ_SECONDS=30
fi
bash scripts/build.sh
(cd "${BUILD_DIR:-build}" && ctest --output-on-failure -j "${JOBS:-$(nproc)}" "$@")
# the installed SDK: an out-of-tree plugin built against `cmake --install`
BUILD_DIR="$(cd "${BUILD_DIR:-build}" && pwd)" bash scripts/sdk-check.sh
if [ "${SANITIZE:-1}" != 0 ]; then
  bash scripts/sanitize.sh
fi
if [ "${FUZZ_SECONDS:-60}" != 0 ]; then
  bash scripts/fuzz.sh
fi
