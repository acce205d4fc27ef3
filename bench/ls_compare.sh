#!/usr/bin/env bash
# Issue 4's comparison in one call on the GPU machine: ls-bench (CPU and
# CUDA backends), then the same batch through astropy and nifty-ls on the
# same host's CPU (tests/reference/ls_bench_ref.py), with starling's
# end-to-end best-period times handed over for the ratios.
#
#   bench/ls_compare.sh BUILD_DIR WHEEL_DIR OUT_DIR
# WHEEL_DIR holds astropy, pyerfa, astropy-iers-data, nifty-ls and finufft
# wheels for the host's Python (it has no network); they are installed into
# a scratch directory, not into the system.
set -euo pipefail
build=$1 wheels=$2 out=$3
batch=$(mktemp /tmp/ls_batch.XXXXXX.bin)
py=$(mktemp -d /tmp/ls_py.XXXXXX)
trap 'rm -rf "$batch" "$py"' EXIT
"$build/bench/ls-bench" --dump "$batch" | tee "$out/ls-bench.log"
# best-period rows: | backend | precision | output | prep | transfers | kernel | end to end |
times=$(awk -F'|' '$4 ~ /best period/ && $2 !~ /direct|fast/ {
          gsub(/ /, "", $2); gsub(/ /, "", $3); gsub(/ /, "", $8);
          printf "%s-%s=%s ", $2, $3, $8 }' "$out/ls-bench.log")
# Python with the host's own libraries, not the ones carried for starling
env -u LD_LIBRARY_PATH python3 -m pip install -q --no-index --no-deps --target "$py" "$wheels"/*.whl
env -u LD_LIBRARY_PATH PYTHONPATH="$py" python3 "$(dirname "$0")/../tests/reference/ls_bench_ref.py" "$batch" $times |
    tee "$out/ls-ref.log"
