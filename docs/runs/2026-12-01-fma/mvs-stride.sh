#!/usr/bin/env bash
# mvs's grouped loops under the new stride rule (wide G = 8 at N = 9: 63 ->
# 72 doubles a system; narrow G = 2: 63 -> 66) against e8405a8's mvs CUDA
# object (old), the same C objects (build-pack/mvsg.tar.xz: a CUDA build of
# 044f7ee made in the sandbox, CI's configuration; README.md). GPU only.
set -uo pipefail
mkdir -p /tmp/mg && tar -xJf build-pack/mvsg.tar.xz -C /tmp/mg
cp /tmp/mg/lib/starling/plugins/mvs.so /tmp/mg/var/new.so
D="--backend cuda --data tests/data/solar_system.csv --years 2190.2806297056811 --runs mvs:0.021902806297056811/corrector=11"
for pass in 1 2; do
  for n in 4096 8192 16384 32768; do
    for v in old new; do
      if [ $v = old ]; then cp /tmp/mg/var/old/mvs.so /tmp/mg/lib/starling/plugins/mvs.so; else cp /tmp/mg/var/new.so /tmp/mg/lib/starling/plugins/mvs.so; fi
      echo -n "pass $pass $v $n "; LD_LIBRARY_PATH=/tmp/mg/lib /tmp/mg/bench/ss-bench $D --systems $n 2>&1 | grep "^| mvs" || echo failed
    done
  done
done
