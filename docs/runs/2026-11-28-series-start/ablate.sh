# Ablation of mvs's CUDA kernel, Sun + 8, 131072 copies (timing only: the
# physics of A, B, C is wrong on purpose). full: main's kernel;
# A: the Kepler drift replaced by x += h v; B: both kicks (DH and Jacobi)
# dropped, and with them the force (dead code); C: A and B.
set -u
rm -rf .device; tar -xJf build-pack/bench.tar.xz
export LD_LIBRARY_PATH=$PWD/.device/lib
B=$PWD/.device/build; P=$B/lib/starling/plugins
cp $P/mvs.so /tmp/mvs-full.so
for v in A B C; do cp $B/lib/starling/plugins-$v/mvs.so /tmp/mvs-$v.so; done
d=0.021902806297056811
for v in full A B C full; do
  cp /tmp/mvs-$v.so $P/mvs.so
  echo "== $v"
  $B/bench/ss-bench --data tests/data/solar_system.csv --systems 131072 --cpu-systems 16 --years 2190.2806297056811 --runs "mvs:$d/corrector=11" 2>&1 | grep "^| mvs"
done
