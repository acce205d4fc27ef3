#!/bin/bash
# on the device: Nsight Compute's per-instruction counters (SASS) of the narrow kernel of variant $V
P=.device/build/lib/starling/plugins/mvs.so
for f in var/*.so.xz; do xz -dkf $f; done
cp $P var/orig.so
cp var/$V.so $P
timeout 250 bash .device/run.sh ncu --launch-count 1 --kernel-name regex:sl_kernel_mvs_newton_9_narrow --section SourceCounters --section WarpStateStats --section InstructionStats -o /tmp/rep ./build-dev/bench/ss-bench --backend cuda --data tests/data/solar_system.csv --systems 16384 --years 21.902806297056811 --runs "mvs:0.021902806297056811/corrector=11" > $OUT/ncu-$V.txt 2>&1; echo "ncu rc=$?"
bash .device/run.sh ncu --import /tmp/rep.ncu-rep --page source --csv --print-source sass > $OUT/sass-$V.csv 2>&1; echo "import rc=$?"
bash .device/run.sh ncu --import /tmp/rep.ncu-rep --page details --print-details all > $OUT/details-$V.txt 2>&1
xz -9 $OUT/sass-$V.csv
cp var/orig.so $P
