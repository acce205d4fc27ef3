export CRITERION_PREFIX=$PWD/.criterion; c=$CRITERION_PREFIX; export LD_LIBRARY_PATH=$c/lib
rm -rf .device build; tar -xJf build-pack/device.tar.xz
R="bash .device/run.sh"
P=.device/build/lib/starling/plugins
mkdir -p build-pack/var; tar -xJf build-pack/varp/so2.tar.xz -C build-pack/var
for n in 8448 12672 16384; do for v in old new n16; do
cp build-pack/var/$v.so $P/mvs.so
printf "%-4s %6d " $v $n
$R build/bench/starling-bench --integrators mvs --bodies 8,16 --systems $n --backend cuda --steps 2000 --repeats 2 2>&1 | grep -E "^\| *mvs" | tr '\n' ' '; echo
done; done 2>&1 | tee $OUT/n16.log
