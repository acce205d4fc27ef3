#!/usr/bin/env bash
# Issue 10's "versus REBOUND at equal accuracy" in one call on the GPU
# machine: ss-bench (CUDA and CPU backends) and REBOUND (bench/rebound_ss.py,
# WHFast on a process per core) on the same host, the same ensembles:
#   the outer Solar System, 16384 copies, 1000 yr;
#   the Sun and eight planets, 1e5 steps of 8 days (2190 yr);
#   megno: the outer Solar System's MEGNO, 16384 copies, 1000 yr, Jacobi
#   coordinates at 0.2 yr (REBOUND's variational WHFast against starling's
#   shadows, renormalised every 10 steps); not part of `all`.
#
#   bench/ss_compare.sh BUILD_DIR WHEEL_DIR OUT_DIR [outer|solar|megno|all]
# WHEEL_DIR holds rebound and numpy wheels for the host's Python (it has no
# network: pip download --only-binary=:all: --python-version 3.12 ...);
# they are installed into a scratch directory. REBOUND runs 2048 copies of
# the Sun + 8 planets case (PEER_COPIES in the environment to change it):
# compare times per copy, as ss-bench's CPU/GPU ratio does.
set -euo pipefail
build=$1 wheels=$2 out=$3 part=${4:-all} peer_copies=${PEER_COPIES:-2048}
here=$(cd "$(dirname "$0")" && pwd)
data=$here/../tests/data
py=$(mktemp -d /tmp/ss_py.XXXXXX)
trap 'rm -rf "$py"' EXIT
mkdir -p "$out"
env -u LD_LIBRARY_PATH python3 -m pip install -q --no-index --no-deps --target "$py" "$wheels"/*.whl
peer() { env -u LD_LIBRARY_PATH PYTHONPATH="$py" python3 "$here/rebound_ss.py" "$@"; }

if [ "$part" = all ] || [ "$part" = outer ]; then
"$build/bench/ss-bench" --data "$data/outer_ss.csv" --systems 16384 --cpu-systems 16384 \
  --years 1000 --runs mvs:0.2,mvs:0.1,mvs:0.05,mvs:0.2/corrector=11,mvs:0.2/corrector=11/coordinates=1,mvs:0.5/corrector=11/coordinates=1,mvs:1/corrector=11/coordinates=1,hermite:0.1,hermite:0.05 |
  tee "$out/ss-outer.log"
for dt in 0.2 0.05; do
  peer "$data/outer_ss.csv" --systems 16384 --years 1000 --dt "$dt" | tee -a "$out/ss-outer.log"
done
# REBOUND at its best: Jacobi coordinates with correctors, and WHFast512
peer "$data/outer_ss.csv" --systems 16384 --years 1000 --dt 0.5 --corrector 11 |
  tee -a "$out/ss-outer.log"
peer "$data/outer_ss.csv" --systems 16384 --years 1000 --dt 0.2 --integrator whfast512 |
  tee -a "$out/ss-outer.log"
for dt in 0.5 1; do
  peer "$data/outer_ss.csv" --systems 16384 --years 1000 --dt "$dt" --integrator whfast512 \
    --corrector 17 | tee -a "$out/ss-outer.log"
done
fi

if [ "$part" = all ] || [ "$part" = solar ]; then
days8=0.021902806297056811 # 8 days in years (365.25 d)
"$build/bench/ss-bench" --data "$data/solar_system.csv" --systems 16384 --cpu-systems 1024 \
  --years 2190.2806297056811 --runs "mvs:$days8,mvs:$days8/corrector=11,mvs:$days8/corrector=11/coordinates=1,hermite:0.0054757015742642027" |
  tee "$out/ss-solar.log"
peer "$data/solar_system.csv" --systems "$peer_copies" --years 2190.2806297056811 \
  --dt-days 8 | tee -a "$out/ss-solar.log"
peer "$data/solar_system.csv" --systems "$peer_copies" --years 2190.2806297056811 \
  --dt-days 8 --corrector 11 | tee -a "$out/ss-solar.log"
for c in 0 17; do
  peer "$data/solar_system.csv" --systems "$peer_copies" --years 2190.2806297056811 \
    --dt-days 8 --integrator whfast512 --corrector "$c" | tee -a "$out/ss-solar.log"
done
fi

if [ "$part" = megno ]; then
"$build/bench/ss-bench" --data "$data/outer_ss.csv" --systems 16384 --cpu-systems 2048 \
  --years 1000 --runs mvs:0.2/coordinates=1/megno=10,mvs:0.2/coordinates=1,mvs:0.2/coordinates=1/megno=100 |
  tee "$out/ss-megno.log"
peer "$data/outer_ss.csv" --systems 16384 --years 1000 --dt 0.2 --megno | tee -a "$out/ss-megno.log"
fi
