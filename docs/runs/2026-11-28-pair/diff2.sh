# Per system: how far each G's end state is from G = 1's, against how far
# G = 1 moves when body 1 starts one part in 2^52 away (SL_SWEEP_NUDGE).
export CRITERION_PREFIX=$PWD/.criterion; c=$CRITERION_PREFIX; export LD_LIBRARY_PATH=$c/lib
[ -d build ] || { rm -rf .device; tar -xJf build-pack/device.tar.xz; }
R="bash .device/run.sh"
b=/tmp/gd2; rm -rf $b; mkdir -p $b
for g in 1 8 16; do
  $R nvcc -O3 -arch=sm_90 -DSL_SWEEP_G=$g -Ibuild/include -Icore/include -I. -cudart shared -o $b/new$g bench/group_sweep.cu -Lbuild/lib -lstarling -Xlinker -rpath=$PWD/build/lib &
  $R nvcc -O3 -arch=sm_90 -DSL_SWEEP_G=$g -Ibuild/include -Ipairold/core/include -Ipairold -cudart shared -o $b/old$g pairold/bench/group_sweep_nudge.cu -Lbuild/lib -lstarling -Xlinker -rpath=$PWD/build/lib &
done; wait
for v in new old; do for g in 1 8 16; do $R $b/$v$g 131072 500 $b $v$g > $OUT/$v$g.log; done; done
SL_SWEEP_NUDGE=1 $R $b/new1 131072 500 $b nudge > $OUT/nudge.log
python3 - $b <<'PY' | tee $OUT/diff2.md
import sys, numpy as np
b = sys.argv[1]
def per_sys(a, ref, N):
    r = np.abs(a - ref) / (np.abs(ref) + 1e-3)
    return r.reshape(-1, N * 7, 32).max(axis=1).ravel()
for N in (8, 16):
  for mon in (0, 1):
    ref = np.fromfile('%s/new1_N%d_m%d.bin' % (b, N, mon))
    nd = per_sys(np.fromfile('%s/nudge_N%d_m%d.bin' % (b, N, mon)), ref, N)
    print('N=%d mon=%d nudge: worst %.2e (system %d), p99.9 %.2e, median %.2e' % (N, mon, nd.max(), nd.argmax(), np.quantile(nd, .999), np.median(nd)))
    for v in ('new', 'old'):
      for g in (8, 16):
        d = per_sys(np.fromfile('%s/%s%d_N%d_m%d.bin' % (b, v, g, N, mon)), ref, N)
        s = d.argmax()
        big = d > 1e-13
        print('  %s G=%d: worst %.2e (system %d, nudge there %.2e), p99.9 %.2e; systems > 1e-13: %d, of them nudge > 1e-13: %d; max d/max(nudge,1e-16) %.3g' % (
          v, g, d[s], s, nd[s], np.quantile(d, .999), big.sum(), (big & (nd > 1e-13)).sum(), (d / np.maximum(nd, 1e-16)).max()))
PY
