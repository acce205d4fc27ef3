#!/usr/bin/env bash
# The pair terms of all k first, then the shuffles, then the sums in the same order (g8batch)
# against their shared reads (g8s56own), N = 8: two passes, then the bits.
cd build-pack/sw
d=$(mktemp -d)
for pass in 1 2; do
  for b in g8s56own g8batch g8s56own g8batch; do
    LD_LIBRARY_PATH=$PWD/lib ./$b 131072 2000 $d $b | sed "s/^/pass $pass /"
  done
done
python3 - "$d" <<'PY'
import numpy as np, sys, os
d = sys.argv[1]
for a, b in (("g8s56own", "g8batch"),):
    for f in sorted(os.listdir(d)):
        if f.startswith(a + "_"):
            x = np.fromfile(os.path.join(d, f)); y = np.fromfile(os.path.join(d, f.replace(a, b, 1)))
            print(a, "vs", b, f, "identical" if np.array_equal(x, y) else "max diff %.3g" % np.max(np.abs(x - y)))
PY
