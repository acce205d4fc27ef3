#!/usr/bin/env bash
# Issue 12's point-source binary comparison in one call on the GPU machine:
# ml-bench (CPU and CUDA backends) on random binary lenses, then the CPU's
# batch through VBMicrolensing's BinaryMag0 on all host cores
# (bench/ml_vbm.py), with starling's rates handed over for the ratios.
#
#   bench/ml_compare.sh BUILD_DIR WHEEL_DIR OUT_DIR [MODELS] [CPU_MODELS]
# WHEEL_DIR holds the VBMicrolensing and numpy wheels for the host's Python
# (it has no network); they are installed into a scratch directory.
set -euo pipefail
build=$1 wheels=$2 out=$3 models=${4:-1000000} cpu_models=${5:-20000}
batch=$(mktemp /tmp/ml_batch.XXXXXX.bin)
py=$(mktemp -d /tmp/ml_py.XXXXXX)
trap 'rm -rf "$batch" "$batch.A" "$py"' EXIT
"$build/bench/ml-bench" --model binary --models "$models" --cpu-models "$cpu_models" \
    --epochs 100 --dump "$batch" | tee "$out/ml-bench.log"
rates=$(awk '($1 == "cpu" || $1 == "cuda") && $NF == "magnifications/s" {
          printf "%s=%s ", ($1 == "cuda" ? "gpu" : "cpu"), $(NF - 1) }' "$out/ml-bench.log")
env -u LD_LIBRARY_PATH python3 -m pip install -q --no-index --no-deps --target "$py" \
    "$wheels"/numpy-*.whl "$wheels"/vbmicrolensing-*.whl
env -u LD_LIBRARY_PATH PYTHONPATH="$py" python3 "$(dirname "$0")/ml_vbm.py" "$batch" $rates |
    tee "$out/ml-vbm.log"
