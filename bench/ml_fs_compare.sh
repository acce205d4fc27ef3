#!/usr/bin/env bash
# Issue 12's finite-source light-curve comparison in one call on the GPU
# machine: ml-fit-bench --tracks (a map of the central caustic of s = 1,
# q = 1e-3 with pixels of rho/10, rho = 1e-3; light curves on the CPU and
# CUDA backends), then the same points through VBMicrolensing's BinaryMag2
# on all host cores (bench/ml_vbm.py --fs), uniform and limb-darkened.
#
#   bench/ml_fs_compare.sh BUILD_DIR WHEEL_DIR OUT_DIR [POINTS] [MODELS] [RAYS]
set -euo pipefail
build=$1 wheels=$2 out=$3 points=${4:-3000} models=${5:-1000} rays=${6:-1000}
setup=$(mktemp /tmp/ml_fs.XXXXXX.bin)
py=$(mktemp -d /tmp/ml_py.XXXXXX)
trap 'rm -rf "$setup" "$py"' EXIT
"$build/bench/ml-fit-bench" --tracks "$points" --models "$models" --rays "$rays" \
    --dump "$setup" | tee "$out/ml-tracks.log"
# the rate of many models with the map resident, per law
rates=$(awk '$1 == "cuda" && /points\/s \(map resident\); gpu\/cpu/ {
          for (i = 1; i <= NF; i++) if ($i == "points/s") { r = $(i - 1); break }
          printf "%s=%s ", ($2 == "uniform" ? "gpu" : "gpu_ld"), r }' "$out/ml-tracks.log")
env -u LD_LIBRARY_PATH python3 -m pip install -q --no-index --no-deps --target "$py" \
    "$wheels"/numpy-*.whl "$wheels"/vbmicrolensing-*.whl
env -u LD_LIBRARY_PATH PYTHONPATH="$py" python3 "$(dirname "$0")/ml_vbm.py" --fs "$setup" $rates |
    tee "$out/ml-vbm-fs.log"
