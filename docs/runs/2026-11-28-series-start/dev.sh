# On the lent GPU machine: mvs on the Sun + 8 planets with the drift's
# series start (mvs.so) against the second-order start (mvs-old.so: the
# CUDA object compiled from ca6e4e4's kepler_drift.h), alternated, in one run.
set -u
rm -rf .device /tmp/bnew; tar -xJf build-pack/bench.tar.xz
ln -sfn "$PWD/.device/build" /tmp/bnew
export LD_LIBRARY_PATH=$PWD/.device/lib
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; lscpu | grep "Model name"; nproc; date -u; } > $OUT/device.txt; cat $OUT/device.txt
P=/tmp/bnew/lib/starling/plugins
cp $P/mvs.so /tmp/mvs-new.so; cp /tmp/bnew/lib/starling/plugins-old/mvs.so /tmp/mvs-old.so
d=0.021902806297056811
runs="mvs:$d/corrector=11,mvs:$d/corrector=11/coordinates=1"
for pass in 1 2; do
  for v in old new; do
    cp /tmp/mvs-$v.so $P/mvs.so
    echo "== pass $pass: $v" | tee -a $OUT/ss.log
    /tmp/bnew/bench/ss-bench --data tests/data/solar_system.csv --systems 131072 --cpu-systems ${CPU_SYS:-1024} --years 2190.2806297056811 --runs "$runs" >> $OUT/ss.log 2>&1
  done
done
cat $OUT/ss.log
date -u
