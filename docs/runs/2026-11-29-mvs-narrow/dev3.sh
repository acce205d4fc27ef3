export CRITERION_PREFIX=$PWD/.criterion; c=$CRITERION_PREFIX; export LD_LIBRARY_PATH=$c/lib
rm -rf .device build; tar -xJf build-pack/device.tar.xz
R="bash .device/run.sh"; d=0.021902806297056811
P=.device/build/lib/starling/plugins
mkdir -p build-pack/var; tar -xJf build-pack/varp/so2.tar.xz -C build-pack/var
for pass in $PASSES; do for n in $SIZES; do for v in $VARIANTS; do
cp build-pack/var/$v.so $P/mvs.so
printf "pass %s %-6s %6d " $pass $v $n
$R build/bench/ss-bench --data tests/data/solar_system.csv --systems $n --cpu-systems 16 --years 2190.2806297056811 --runs "mvs:$d/corrector=11" 2>&1 | grep "^| mvs"
done; done; done 2>&1 | tee $OUT/var2.log
cp build-pack/var/base.so $P/mvs.so
for v in $TESTV; do cp build-pack/var/$v.so $P/mvs.so; SL_REQUIRE_GPU=1 $R build/tests/test_gpu_mvs > $OUT/test-$v.log 2>&1; echo "test_gpu_mvs $v rc=$?"; grep -E "Synthesis|grouped|max" $OUT/test-$v.log | head -20; done
