#!/bin/bash
# on the device: each variant's mvs.so in turn, ss-bench Sun + 8 at 8192/16384 copies, test_gpu_mvs
P=.device/build/lib/starling/plugins/mvs.so
cp $P var/orig.so
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/device.txt
for v in ${VARIANTS:-base g4 g4b g4j}; do
  cp var/$v.so $P
  for n in ${SIZES:-16384 8192}; do
    for pass in 1 2; do
      echo "== $v $n pass $pass"
      bash .device/run.sh ./build-dev/bench/ss-bench --data tests/data/solar_system.csv --systems $n --cpu-systems 16 --years 2190.2806297056811 --runs "mvs:0.021902806297056811/corrector=11" 2>&1 | tail -4
    done
  done
  echo "== $v test_gpu_mvs"
  SL_REQUIRE_GPU=1 bash .device/run.sh ./build-dev/tests/test_gpu_mvs 2>&1 | tail -3
done 2>&1 | tee $OUT/variants.log
cp var/orig.so $P
