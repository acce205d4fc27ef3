#!/usr/bin/env bash
# group_sweep variants against their bases: ab.sh BASE:VARIANT ... runs, for
# PASSES passes (2), each pair's base then variant (131,072 systems, 2000
# steps), then says whether each variant's end states are its base's bits.
# Binaries in build-pack/sw (README.md). The runs of this folder:
#   own.log   ab.sh g8s56:g8s56own g16n16s113b0:g16s113own
#   mass.log  ab.sh g8s56own:g8ownm g8s56own:g8ownm
#   batch.log ab.sh g8s56own:g8batch g8s56own:g8batch
cd build-pack/sw
d=$(mktemp -d)
for pass in $(seq 1 "${PASSES:-2}"); do
  for p in "$@"; do
    for b in "${p%%:*}" "${p#*:}"; do
      LD_LIBRARY_PATH=$PWD/lib ./$b 131072 2000 $d $b | sed "s/^/pass $pass /"
    done
  done
done
python3 - "$d" "$@" <<'PY'
import numpy as np, sys, os
d = sys.argv[1]
for a, b in (p.split(":") for p in sys.argv[2:]):
    for f in sorted(os.listdir(d)):
        if f.startswith(a + "_"):
            x = np.fromfile(os.path.join(d, f)); y = np.fromfile(os.path.join(d, f.replace(a, b, 1)))
            print(a, "vs", b, f, "identical" if np.array_equal(x, y) else "max diff %.3g" % np.max(np.abs(x - y)))
PY
