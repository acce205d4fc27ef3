# The non-finite check of the working state each step, Sun + 8, 131072 copies:
# full: main (one chain of 63 sums); D: eight partial sums; E: no check
set -u
rm -rf .device; tar -xJf build-pack/bench.tar.xz
export LD_LIBRARY_PATH=$PWD/.device/lib
B=$PWD/.device/build; P=$B/lib/starling/plugins
cp $P/mvs.so /tmp/mvs-full.so
for v in D E; do cp $B/lib/starling/plugins-$v/mvs.so /tmp/mvs-$v.so; done
d=0.021902806297056811
for v in full D E full D; do
  cp /tmp/mvs-$v.so $P/mvs.so
  echo "== $v"
  $B/bench/ss-bench --data tests/data/solar_system.csv --systems 131072 --cpu-systems 16 --years 2190.2806297056811 --runs "mvs:$d/corrector=11" 2>&1 | grep "^| mvs"
done
