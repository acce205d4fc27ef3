#!/usr/bin/env bash
# Grouped Hermite's shared-memory stride (SL_GROUP_STRIDE) at G = 8 (N = 8)
# and G = 4 (N = 10, 12): bench/group_sweep.cu built in the sandbox for one
# N (-DSL_SWEEP_N) with the stride set on the command line; carried in
# build-pack/sw with its libstarling. Three passes, alternating.
cd build-pack/sw
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
d=$(mktemp -d)
for pass in 1 2 3; do
  for b in g8s57 g8s56 g4n10s71 g4n10s76 g4n12s85 g4n12s84; do
    LD_LIBRARY_PATH=$PWD/lib ./$b 131072 2000 $d $b | sed "s/^/pass $pass /"
  done
done
python3 - "$d" <<'PY'
import numpy as np, sys, os
d = sys.argv[1]
for a, b in (("g8s57", "g8s56"), ("g4n10s71", "g4n10s76"), ("g4n12s85", "g4n12s84")):
    for f in sorted(os.listdir(d)):
        if f.startswith(a + "_"):
            x = np.fromfile(os.path.join(d, f)); y = np.fromfile(os.path.join(d, f.replace(a, b)))
            print(a, "vs", b, f, "identical" if np.array_equal(x, y) else "max diff %.3g" % np.max(np.abs(x - y)))
PY
