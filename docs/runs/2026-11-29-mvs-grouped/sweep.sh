# Where the grouped mvs kernel pays: the Sun + 8 planets (democratic
# heliocentric, corrector 11) with 1024 .. 65536 copies, grouped against
# one thread a system (mvs-variants/mvs_nogroup.so), two passes.
export CRITERION_PREFIX=$PWD/.criterion; c=$CRITERION_PREFIX; export LD_LIBRARY_PATH=$c/lib
[ -d .device/build ] || tar -xJf build-pack/dev.tar.xz
R="bash .device/run.sh"
d=0.021902806297056811
P=.device/build/lib/starling/plugins V=.device/build/lib/starling/mvs-variants
[ -f $V/mvs_grouped.so ] || cp $P/mvs.so $V/mvs_grouped.so
for pass in 1 2; do for n in 1024 4096 8192 16384 32768 65536; do for v in grouped nogroup; do
cp $V/mvs_$v.so $P/mvs.so
printf "pass %s %-8s %6d copies " $pass $v $n
$R build-dev/bench/ss-bench --data tests/data/solar_system.csv --systems $n --cpu-systems 16 --years 2190.2806297056811 --runs "mvs:$d/corrector=11" 2>&1 | grep "^| mvs"
done; done; done > $OUT/sweep.log 2>&1; cat $OUT/sweep.log
cp $V/mvs_grouped.so $P/mvs.so
