#!/usr/bin/env bash
# README command 2: install dependencies, build, run every test suite. GPU
# suites (ctest label `gpu`) skip with a message when no GPU is present.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
bash scripts/build.sh
cd "${BUILD_DIR:-build}"
ctest --output-on-failure -j "${JOBS:-$(nproc)}" "$@"
BUILD_DIR="$PWD" bash "$OLDPWD/scripts/sdk-check.sh" # the installed SDK, out of tree
