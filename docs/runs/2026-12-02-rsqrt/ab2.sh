#!/usr/bin/env bash
# mvs's GPU kernels after SL_SQRT/SL_RCP/SL_DIV (d09c812): which group for
# Sun + 8 at 8192-32768 copies. The CI build of 4571f7a as in ab.sh, its
# mvs.so swapped for d09c812's (new) and variants of it compiled the same
# way (build-pack/ab2.tar.xz): n4 (the narrow group at 9 bodies 4 threads
# a system, not 2), joint (the drifts in lockstep at every width,
# -DSL_MVS_GK_JOINT), wide128 (the wide group up to 128 systems a
# multiprocessor, not 64).
set -uo pipefail
tar -xJf build-pack/device.tar.xz; tar -xJf build-pack/ab2.tar.xz
R="bash .device/run.sh"; d=0.021902806297056811
{ date -u; cat .device/build/COMMIT; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } | tee $OUT/device.txt
p=.device/build/lib/starling/plugins
for pass in 1 2; do
  for v in new n4 joint wide128; do
    cp ab2/mvs_$v.so $p/mvs.so
    for n in 8192 12672 16384 32768; do
      echo "== pass $pass mvs $v $n"
      $R build-ci/bench/ss-bench --data tests/data/solar_system.csv --systems $n --cpu-systems 16 --years 2190.2806297056811 --runs "mvs:$d/corrector=11" 2>&1 | grep "^| mvs"
    done
  done
done 2>&1 | tee $OUT/mvs-ab2.log
date -u | tee -a $OUT/device.txt
