#!/bin/bash
# on the device: each variant's mvs.so in turn (var/NAME.so), ss-bench Sun + 8
# at 16,384 copies (twice), test_gpu_mvs; then REBOUND's WHFast512 on the
# host's 16 cores; NCU=1 adds Nsight Compute on the narrow kernel.
P=.device/build/lib/starling/plugins/mvs.so
for f in var/*.so.xz; do xz -dkf $f; done
cp $P var/orig.so
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/device.txt
lscpu | grep -E "Model name|^CPU\(s\)|Thread" | tee -a $OUT/device.txt
date -u | tee -a $OUT/device.txt
for v in ${VARIANTS:-orig}; do
  cp var/$v.so $P
  for n in ${SIZES:-16384}; do
    for pass in 1 2; do
      echo "== $v $n pass $pass"
      bash .device/run.sh ./build-dev/bench/ss-bench --data tests/data/solar_system.csv --systems $n --cpu-systems 16 --years 2190.2806297056811 --runs "mvs:0.021902806297056811/corrector=11" 2>&1 | tail -4
    done
  done
  if [ -z "$NOTEST" ]; then
    echo "== $v test_gpu_mvs"
    SL_REQUIRE_GPU=1 bash .device/run.sh ./build-dev/tests/test_gpu_mvs 2>&1 | tail -3
  fi
done 2>&1 | tee $OUT/variants.log
cp var/orig.so $P
if [ -n "$NCU" ]; then
  for v in $NCU; do
    cp var/$v.so $P
    timeout 200 bash .device/run.sh ncu --launch-count 1 --kernel-name regex:sl_kernel_mvs_newton_9_narrow --section SpeedOfLight --section WarpStateStats --section InstructionStats --section Occupancy --section LaunchStats ./build-dev/bench/ss-bench --data tests/data/solar_system.csv --systems 16384 --cpu-systems 16 --years 21.902806297056811 --runs "mvs:0.021902806297056811/corrector=11" > $OUT/ncu-$v.txt 2>&1; echo "ncu $v rc=$?"
  done
  cp var/orig.so $P
fi
if [ -n "$REB" ]; then
  py=/tmp/py; mkdir -p $py
  env -u LD_LIBRARY_PATH python3 -m pip install -q --no-index --no-deps --target $py .whl/*.whl
  for pass in 1; do
    env -u LD_LIBRARY_PATH PYTHONPATH=$py python3 bench/rebound_ss.py tests/data/solar_system.csv --systems 16384 --years 2190.2806297056811 --dt-days 8 --integrator whfast512 --procs 16 2>&1 | tail -5
  done | tee $OUT/rebound.log
fi
