#!/usr/bin/env bash
# README command 1: install dependencies, build, run the flagship example
# (on the GPU when one is present, else on the CPU backend).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
bash scripts/build.sh
exec "${BUILD_DIR:-build}/bin/starling" run examples/quickstart.lua "$@"
