set -u
rm -rf .device; tar -xJf build-pack/bench.tar.xz
export LD_LIBRARY_PATH=$PWD/.device/lib
B=$PWD/.device/build; P=$B/lib/starling/plugins
cp $P/mvs.so /tmp/mvs-255.so
for r in 96 128 168; do cp $B/lib/starling/plugins-r$r/mvs.so /tmp/mvs-$r.so; done
d=0.021902806297056811
for v in 255 96 128 168 255; do
  cp /tmp/mvs-$v.so $P/mvs.so
  echo "== regs $v"
  $B/bench/ss-bench --data tests/data/solar_system.csv --systems 131072 --cpu-systems 16 --years 2190.2806297056811 --runs "mvs:$d/corrector=11" 2>&1 | grep "^| mvs"
done
