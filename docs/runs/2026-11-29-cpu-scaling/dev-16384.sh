mkdir -p /tmp/bc && tar -xJf build-pack/bc.tar.xz -C /tmp/bc
py=$(mktemp -d); env -u LD_LIBRARY_PATH python3 -m pip install -q --no-index --no-deps --target "$py" build-pack/wheels/*.whl
peer() { env -u LD_LIBRARY_PATH PYTHONPATH="$py" python3 bench/rebound_ss.py "$@"; }
D="--backend cpu --data tests/data/solar_system.csv --systems 32 --years 2190.2806297056811 --runs mvs:0.021902806297056811/corrector=11"
for v in base fcl l8; do
  cp /tmp/bc/var/$v/mvs.so /tmp/bc/lib/starling/plugins/mvs.so
  echo -n "== $v t=16 n=16384 "; OMP_NUM_THREADS=16 /tmp/bc/bench/ss-bench $D --cpu-systems 16384 2>&1 | grep "^| mvs"
done
peer tests/data/solar_system.csv --systems 16384 --years 2190.2806297056811 --dt-days 8 --integrator whfast512 --procs 16 | tail -1
