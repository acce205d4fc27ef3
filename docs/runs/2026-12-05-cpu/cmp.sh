#!/usr/bin/env bash
# The Sun and eight planets, 10^5 steps of 8 days, on this machine's cores:
# starling's CPU backend (each BUILD a user's build: bash scripts/build.sh,
# clones on) against REBOUND's WHFast512, alternated, REPS times.
#   PY=/tmp/rbv/bin/python COPIES=512 REPS=3 bash cmp.sh BUILD [BUILD ...]
# PY: a Python with REBOUND 5.2.2 from PyPI (its wheel carries WHFast512):
#   python3 -m venv /tmp/rbv && /tmp/rbv/bin/pip install rebound==5.2.2
set -euo pipefail
here=$(cd "$(dirname "$0")/../../.." && pwd)
py=${PY:-/tmp/rbv/bin/python} copies=${COPIES:-512} reps=${REPS:-3} procs=$(nproc)
years=2190.2806297056811 days8=0.021902806297056811
for i in $(seq "$reps"); do
  "$py" "$here/bench/rebound_ss.py" "$here/tests/data/solar_system.csv" --systems "$copies" \
    --years $years --dt-days 8 --integrator whfast512 --procs "$procs"
  "$py" "$here/bench/rebound_ss.py" "$here/tests/data/solar_system.csv" --systems "$copies" \
    --years $years --dt-days 8 --integrator whfast512 --corrector 11 --procs "$procs"
  for b in "$@"; do
    OMP_NUM_THREADS=$procs "$b/bench/ss-bench" --data "$here/tests/data/solar_system.csv" \
      --systems "$copies" --backend cpu --years $years \
      --runs "mvs:$days8/corrector=11,mvs:$days8/corrector=11/coordinates=1" | tail -2 | sed "s|^|$b |"
  done
done
