#!/usr/bin/env bash
# Device 1/sqrt, sqrt, 1/x and x/y without CUDA's special-case branches
# (hd.h), plugin against plugin in one call: the CI build of 4571f7a
# (build-pack/device.tar.xz, Criterion in .criterion) with its mvs.so and
# hermite.so swapped for ones whose CUDA objects were compiled, with the
# build's own nvcc command, from 070aa9d's headers (old), fc94457's (fc:
# SL_RSQRT and the grouped loop's masses) and this tree's (new: SL_SQRT,
# SL_RCP, SL_DIV in the drift), linked with the build's CPU objects
# (build-pack/ab.tar.xz); test_gpu_hdmath built against the same tree.
set -uo pipefail
tar -xJf build-pack/device.tar.xz; tar -xJf build-pack/ab.tar.xz
export LD_LIBRARY_PATH=$PWD/.criterion/lib:$PWD/.device/build/lib:$PWD/.device/lib
R="bash .device/run.sh"; d=0.021902806297056811
{ date -u; cat .device/build/COMMIT; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } | tee $OUT/device.txt
SL_REQUIRE_GPU=1 $R ab/test_gpu_hdmath --verbose 2>&1 | tail -n 4 | tee $OUT/hdmath.log
p=.device/build/lib/starling/plugins
cp ab/mvs_new.so $p/mvs.so; cp ab/hermite_new.so $p/hermite.so
SL_REQUIRE_GPU=1 $R ctest --test-dir build-ci -R "test_gpu_mvs|test_gpu_megno|test_gpu_merge|test_gpu_agreement|test_gpu_composition" --output-on-failure 2>&1 | tail -n 12 | tee $OUT/gpu-tests-new.log
for pass in 1 2; do
  for v in old fc new; do
    cp ab/mvs_$v.so $p/mvs.so
    for n in 8192 16384; do
      echo "== pass $pass mvs $v $n"
      $R build-ci/bench/ss-bench --data tests/data/solar_system.csv --systems $n --cpu-systems 16 --years 2190.2806297056811 --runs "mvs:$d/corrector=11" 2>&1 | grep "^| mvs"
    done
  done
done 2>&1 | tee $OUT/mvs-ab.log
for v in old new; do
  cp ab/mvs_$v.so $p/mvs.so; echo "== mvs $v 131072"
  $R build-ci/bench/ss-bench --data tests/data/solar_system.csv --systems 131072 --cpu-systems 16 --years 2190.2806297056811 --runs "mvs:$d/corrector=11" 2>&1 | grep "^| mvs"
done 2>&1 | tee -a $OUT/mvs-ab.log
B="build-ci/bench/starling-bench --systems 131072 --bodies 8,16 --backend cuda --integrators hermite --repeats 3"
for pass in 1 2; do
  for v in old new; do
    cp ab/hermite_$v.so $p/hermite.so
    for mon in "" --monitors; do echo "== pass $pass hermite $v ${mon:-no monitors}"; $R $B $mon 2>&1 | grep "^| hermite"; done
  done
done 2>&1 | tee $OUT/hermite-ab.log
date -u | tee -a $OUT/device.txt
