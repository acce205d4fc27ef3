#!/usr/bin/env bash
# Per-test times of the heaviest suites under the sanitizer build, each on two
# pinned cores (CI has two), several suites side by side on the 16-core host.
# Run on the lent machine from a device-pack of a CI run's build-asan:
#   bash .device/run.sh bash docs/runs/2026-11-29-ci-time/asan-times.sh OUTDIR
set -u
out=${1:?usage: asan-times.sh OUTDIR}
mkdir -p "$out"
b=build-asan
base="detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_string_checks=1:intercept_tls_get_addr=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export LSAN_OPTIONS="suppressions=$PWD/tests/sanitizers/lsan.supp:print_suppressions=0"
export OMP_WAIT_POLICY=passive
run() { # name cores asan_options test
  local name=$1 cores=$2 opts=$3 t=$4
  ( cd $b/tests && start=$(date +%s.%N)
    ASAN_OPTIONS=$opts setarch x86_64 -R taskset -c "$cores" ./$t --jobs 2 --verbose > "$out/$name.log" 2>&1
    rc=$?; echo "$name rc=$rc wall=$(echo "$(date +%s.%N) - $start" | bc)" >> "$out/summary.txt" ) &
}
nouar=${base/detect_stack_use_after_return=1/detect_stack_use_after_return=0}
run family 0,1 "$base" test_family
run forces 2,3 "$base" test_forces
run lua 4,5 "$base" test_lua
run ml 6,7 "$base" test_ml_likelihood
run mvs 8,9 "$base" test_mvs
run family_nouar 10,11 "$nouar" test_family
run forces_nouar 12,13 "$nouar" test_forces
run lua_nouar 14,15 "$nouar" test_lua
wait
cat "$out/summary.txt"
