#!/bin/bash
# on the device: base's wall and kernel time at 1000, 10000 and 100000 steps a launch
P=.device/build/lib/starling/plugins/mvs.so
for f in var/*.so.xz; do xz -dkf $f; done
cp $P var/orig.so
cp var/base.so $P
for ls in 1000 10000 100000; do
  echo "== base launch steps $ls"
  SS_LAUNCH_STEPS=$ls bash .device/run.sh ./build-dev/bench/ss-bench --backends cuda --data tests/data/solar_system.csv --systems 16384 --cpu-systems 16 --years 2190.2806297056811 --runs "mvs:0.021902806297056811/corrector=11" 2>&1 | grep -E "ss-bench: mvs|\| mvs"
done 2>&1 | tee $OUT/launch.log
cp var/orig.so $P
