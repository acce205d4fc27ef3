#!/usr/bin/env bash
# A probe for the next step, not landed: mvs's grouped kick with each pair
# of a thread's own planets evaluated once (both reactions) and only the
# other threads' planets pulled one by one (22 pair evaluations a thread a
# step at 2 threads a system instead of 32, the self-pair's wasted root
# included); sym.diff against d09c812's mvs_group.h. The CI build of
# d09c812 (build-pack/ci.tar.xz) with its mvs.so (main) and this one
# (build-pack/ab3.tar.xz), two passes; test_gpu_mvs with the variant.
set -uo pipefail
tar -xJf build-pack/ci.tar.xz; tar -xJf build-pack/ab3.tar.xz
export LD_LIBRARY_PATH=$PWD/.criterion/lib
R="bash .device/run.sh"; d=0.021902806297056811
p=.device/build/lib/starling/plugins
cp $p/mvs.so /tmp/mvs_main.so
{ date -u; cat .device/build/COMMIT; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } | tee $OUT/device.txt
cp ab3/mvs_sym.so $p/mvs.so
SL_REQUIRE_GPU=1 $R ctest --test-dir build -R "test_gpu_mvs|test_gpu_megno|test_gpu_merge" --output-on-failure 2>&1 | tail -n 8 | tee $OUT/gpu-tests-sym.log
for pass in 1 2; do
  for v in main sym; do
    if [ $v = main ]; then cp /tmp/mvs_main.so $p/mvs.so; else cp ab3/mvs_sym.so $p/mvs.so; fi
    for n in 8192 16384 131072; do
      echo -n "== pass $pass $v $n "
      $R build/bench/ss-bench --data tests/data/solar_system.csv --systems $n --cpu-systems 16 --years 2190.2806297056811 --runs "mvs:$d/corrector=11" 2>&1 | grep "^| mvs"
    done
  done
done 2>&1 | tee $OUT/mvs-ab3.log
date -u | tee -a $OUT/device.txt
