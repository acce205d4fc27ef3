#!/usr/bin/env bash
# Issue 11's comparison in one call on the GPU machine: starling's DE-MCMC
# on kepler_rv (4096 chains, 2 planets, 200 observations) with the
# likelihood on the GPU and on the CPU, then emcee (stretch and DE moves,
# one sampler per core; walkers from a small ball about the truth, as emcee
# advises, and from the priors, as starling's chains start) on the same
# data and priors (bench/emcee_rv.py).
#
#   bench/demcmc_compare.sh BUILD_DIR WHEEL_DIR OUT_DIR [GENERATIONS [EMCEE_STEPS]]
# WHEEL_DIR holds numpy and emcee wheels for the host's Python (it has no
# network); they are installed into a scratch directory.
set -euo pipefail
build=$1 wheels=$2 out=$3 gens=${4:-2000} steps=${5:-4000}
here=$(cd "$(dirname "$0")" && pwd)
py=$(mktemp -d /tmp/dm_py.XXXXXX)
trap 'rm -rf "$py"' EXIT
data="$out/demcmc_rv.csv"
for be in cuda cpu; do
  for variant in de dez; do
    for sampler in auto cpu; do
      [ "$be" = cpu ] && [ "$sampler" = cpu ] && continue # the same run as auto
      "$build/bin/starling" run "$here/demcmc_rv.lua" "$be" 4096 "$gens" "$data" "$variant" \
        "$sampler" | tee -a "$out/demcmc.log"
    done
  done
done
# thinned by 10, as a long run would be: a tenth of the kept generations to copy out
for variant in de dez; do
  "$build/bin/starling" run "$here/demcmc_rv.lua" cuda 4096 "$gens" "$data" "$variant" auto 10 \
    | tee -a "$out/demcmc.log"
done
env -u LD_LIBRARY_PATH python3 -m pip install -q --no-index --no-deps --target "$py" \
    "$wheels"/numpy-*.whl "$wheels"/emcee-*.whl
for start in ball prior; do
  for move in stretch de; do
    env -u LD_LIBRARY_PATH PYTHONPATH="$py" python3 "$here/emcee_rv.py" "$data" --move "$move" \
        --steps "$steps" --start "$start" | tee -a "$out/demcmc.log"
  done
done
