export CRITERION_PREFIX=$PWD/.criterion; c=$CRITERION_PREFIX; export LD_LIBRARY_PATH=$c/lib
rm -rf .device build; tar -xJf build-pack/device.tar.xz
R="bash .device/run.sh"; d=0.021902806297056811
P=.device/build/lib/starling/plugins
xz -dc build-pack/varp/li.so.xz > $P/mvs.so
timeout 250 $R ncu --launch-count 1 --kernel-name regex:sl_kernel_mvs_newton_9 --section SourceCounters --section WarpStateStats --import-source yes build/bench/ss-bench --data tests/data/solar_system.csv --systems 8192 --cpu-systems 16 --years 219.02806297056811 --runs "mvs:$d/corrector=11" > $OUT/ncu-src-wide.txt 2>&1; echo "rc=$?"
grep -v "^==PROF==" $OUT/ncu-src-wide.txt | sed -n '/Source Counters/,$p' | head -80
