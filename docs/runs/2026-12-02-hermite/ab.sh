#!/usr/bin/env bash
# Hermite grouped-loop variants (README.md beside this file): each
# binary in build-pack/sw for PASSES passes (2) at 131,072 systems, 2000
# steps; then each variant's end states against its body count's base,
# beside how far base moves when body 1 starts one part in 2^52 away.
#   ab.sh N:VARIANT ... (binary VARIANT_nN; base_nN is the reference)
cd build-pack/sw
d=$(mktemp -d)
ns=$(for p in "$@"; do echo "${p%%:*}"; done | sort -u)
for pass in $(seq 1 "${PASSES:-2}"); do
  for n in $ns; do LD_LIBRARY_PATH=$PWD/lib ./base_n$n 131072 2000 $d base_n$n | sed "s/^/pass $pass /"; done
  for p in "$@"; do b=${p#*:}_n${p%%:*}; LD_LIBRARY_PATH=$PWD/lib ./$b 131072 2000 $d $b | sed "s/^/pass $pass /"; done
done
for n in $ns; do SL_SWEEP_NUDGE=1 LD_LIBRARY_PATH=$PWD/lib ./base_n$n 131072 2000 $d nudge_n$n > /dev/null; done
python3 - "$d" "$@" <<'PY'
import numpy as np, sys, os
d = sys.argv[1]
def worst(a, b): return float(np.max(np.abs(a - b) / (np.abs(a) + 1e-3)))
for p in sys.argv[2:]:
    n, v = p.split(":")
    for f in sorted(os.listdir(d)):
        if f.startswith("base_n%s_" % n):
            a = np.fromfile(os.path.join(d, f))
            y = np.fromfile(os.path.join(d, f.replace("base_n" + n, v + "_n" + n, 1)))
            z = np.fromfile(os.path.join(d, f.replace("base_n" + n, "nudge_n" + n, 1)))
            print(v, "N =", n, f, "identical" if np.array_equal(a, y) else
                  "max rel diff %.3g (nudge %.3g)%s" % (worst(a, y), worst(a, z), " TOO FAR" if worst(a, y) > worst(a, z) else ""))
PY
