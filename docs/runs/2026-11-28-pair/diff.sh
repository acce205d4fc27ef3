# Where the grouped kernels' end states differ from G = 1's: new headers
# (pair terms at G = N) and HEAD's (pairold/), per N, monitors and G.
export CRITERION_PREFIX=$PWD/.criterion; c=$CRITERION_PREFIX; export LD_LIBRARY_PATH=$c/lib
[ -d build ] || { rm -rf .device; tar -xJf build-pack/device.tar.xz; }
R="bash .device/run.sh"
b=/tmp/gd; rm -rf $b; mkdir -p $b
for v in new old; do src=.; [ $v = old ] && src=pairold
  for g in 1 8 16; do
    $R nvcc -O3 -arch=sm_90 -DSL_SWEEP_G=$g -Ibuild/include -I$src/core/include -I$src -cudart shared -o $b/$v$g $src/bench/group_sweep.cu -Lbuild/lib -lstarling -Xlinker -rpath=$PWD/build/lib &
  done; done; wait
for v in new old; do for g in 1 8 16; do $R $b/$v$g 131072 500 $b $v$g > $OUT/$v$g.log; done; done
python3 - $b <<'PY' | tee $OUT/diff.md
import sys, numpy as np
b = sys.argv[1]
for N in (8, 16):
  for mon in (0, 1):
    for v in ('new', 'old'):
      ref = np.fromfile('%s/%s1_N%d_m%d.bin' % (b, v, N, mon))
      for g in (8, 16):
        a = np.fromfile('%s/%s%d_N%d_m%d.bin' % (b, v, g, N, mon))
        r = np.abs(a - ref) / (np.abs(ref) + 1e-3)
        i = int(np.argmax(r))
        print('N=%d mon=%d %s G=%d: worst %.2e at %d, p99.9 %.2e, median %.2e' % (
          N, mon, v, g, r[i], i, np.quantile(r, 0.999), np.median(r)))
    a = np.fromfile('%s/new1_N%d_m%d.bin' % (b, N, mon)); c = np.fromfile('%s/old1_N%d_m%d.bin' % (b, N, mon))
    print('N=%d mon=%d G=1 new vs old: %.2e' % (N, mon, np.max(np.abs(a - c))))
PY
