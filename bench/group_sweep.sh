#!/usr/bin/env bash
# How many threads per system the grouped CUDA loop should use at each body
# count (SL_GROUP_THREADS_<N> in core/include/starling/internal/group.h):
# builds bench/group_sweep.cu once per G = 1, 2, 4, 8, 16 against a built
# tree's libstarling, runs hermite + newton for N = 5..16 with and without
# the close-encounter and ejection monitors, prints system-steps/s by N and
# G, and checks every G's end states against G = 1's: no G may move further
# from G = 1 than G = 1 itself moves when body 1 starts one part in 2^52
# away (SL_SWEEP_NUDGE). The kernels sum the pulls in different orders, and
# these systems amplify a last-bit difference 10^3-10^4 fold in 500 steps;
# a wrong pull moves them by far more.
# Runs where nvcc and the GPU are (docs/TESTING.md):
#
#   bench/group_sweep.sh BUILD_DIR OUT_DIR [SYSTEMS [STEPS]]
set -euo pipefail
build=$(cd "$1" && pwd) out=$2 systems=${3:-131072} steps=${4:-500}
src=$(cd "$(dirname "$0")/.." && pwd)
arch=${SL_SWEEP_ARCH:-90}
bin=$(mktemp -d /tmp/group_sweep.XXXXXX)
trap 'rm -rf "$bin"' EXIT
for g in 1 2 4 8 16; do
  nvcc -O3 -arch="sm_$arch" -DSL_SWEEP_G=$g -I"$build/include" -I"$src/core/include" -I"$src" \
       -cudart shared -o "$bin/g$g" "$src/bench/group_sweep.cu" -L"$build/lib" -lstarling \
       -Xlinker -rpath="$build/lib" &
done
wait
for g in 1 2 4 8 16; do
  [ -x "$bin/g$g" ] || { echo "group_sweep.sh: the build for G = $g failed" >&2; exit 1; }
done
for g in 1 2 4 8 16; do "$bin/g$g" "$systems" "$steps" "$bin" "g$g"; done > "$out/group-sweep.log"
SL_SWEEP_NUDGE=1 "$bin/g1" "$systems" "$steps" "$bin" nudge > "$out/group-sweep-nudge.log"
# system-steps/s: one row per N and monitors (0: none, 1: close encounters + ejection)
awk '{ split($1, t, "g"); split($2, n, "="); split($3, m, "[=:]"); r[n[2], m[2], t[2]] = $4;
       ns[n[2]] = 1 }
     END { printf "| N | monitors | G = 1 | 2 | 4 | 8 | 16 |\n|---|---|---|---|---|---|---|\n";
           for (k = 5; k <= 16; k++) if (k in ns) for (mo = 0; mo <= 1; mo++) {
             printf "| %d | %s |", k, mo ? "close, eject" : "none";
             for (g = 1; g <= 16; g *= 2) printf " %.3g |", r[k, mo, g];
             printf "\n" } }' "$out/group-sweep.log" | tee "$out/group-sweep.md"
python3 - "$bin" <<'PY' | tee -a "$out/group-sweep.md"
import glob, os, sys
import numpy as np
def worst(path, ref):
    b = np.fromfile(path)
    return float(np.max(np.abs(b - ref) / (np.abs(ref) + 1e-3)))
bad, rows = 0, []
for ref in sorted(glob.glob(os.path.join(sys.argv[1], 'g1_*.bin'))):
    a = np.fromfile(ref)
    nudge = worst(ref.replace('/g1_', '/nudge_'), a)
    gs = [worst(ref.replace('/g1_', '/g%d_' % g), a) for g in (2, 4, 8, 16)]
    bad += sum(w > nudge for w in gs)
    rows.append('| %s | %.2e | %s |' % (os.path.basename(ref)[3:-4], nudge,
                                        ' | '.join('%.2e' % w for w in gs)))
print('\nlargest relative difference from G = 1 (nudge: G = 1 with body 1 moved 1 part in 2^52)\n')
print('| N, monitors | nudge | G = 2 | 4 | 8 | 16 |\n|---|---|---|---|---|---|')
print('\n'.join(rows))
sys.exit(1 if bad else 0)
PY
