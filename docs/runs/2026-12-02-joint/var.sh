#!/usr/bin/env bash
# var.sh: mvs.so variants (build-pack/var/NAME.so, made by mk.sh against the
# CI build of d4eb054 in build-pack/device.tar.xz) timed on Sun + 8 planets,
# 10^5 steps of 8 days, DH, corrector 11, GPU seconds for the ensemble.
# VARIANTS, SIZES, PASSES, TESTV from the environment.
set -uo pipefail
tar -xJf build-pack/device.tar.xz
export CRITERION_PREFIX=$PWD/.criterion; c=$CRITERION_PREFIX; export LD_LIBRARY_PATH=$c/lib
R="bash .device/run.sh"; d=0.021902806297056811
P=.device/build/lib/starling/plugins
mkdir -p build-pack/var; tar -xJf build-pack/varp.tar.xz -C build-pack/var
{ date -u; cat .device/build/COMMIT; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } | tee $OUT/device.txt
for pass in $PASSES; do for n in $SIZES; do for v in $VARIANTS; do
cp build-pack/var/$v.so $P/mvs.so
printf "pass %s %-8s %6d " $pass $v $n
$R build-ci/bench/ss-bench --data tests/data/solar_system.csv --systems $n --cpu-systems 16 --years 2190.2806297056811 --runs "mvs:$d/corrector=11" 2>&1 | grep "^| mvs"
done; done; done 2>&1 | tee $OUT/var.log
for v in $TESTV; do cp build-pack/var/$v.so $P/mvs.so; SL_REQUIRE_GPU=1 $R build-ci/tests/test_gpu_mvs > $OUT/test-$v.log 2>&1; echo "test_gpu_mvs $v rc=$?"; tail -3 $OUT/test-$v.log; done
