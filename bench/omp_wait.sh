#!/usr/bin/env bash
# OpenMP's wait policy beside a busy process. libgomp's default makes a
# thread that waits at the end of a parallel loop spin before it sleeps;
# on cores another process also uses, the threads spin while the one they
# wait for is descheduled. starling runs with OMP_WAIT_POLICY=passive
# unless the user set it or GOMP_SPINCOUNT (lua/main.c); GOMP_SPINCOUNT =
# 300000, libgomp's own default, gives the spinning policy back.
#
#   bench/omp_wait.sh BUILD_DIR [REPEATS [SPINNERS]]
# Each run has 2 threads on CPUs 0 and 1 (taskset -c 0,1), alone and
# beside SPINNERS busy processes (sh -c 'while :; do :; done', default 4,
# not pinned: more runnable threads than cores, as on a shared node).
# Prints each case's median wall time over REPEATS (default 3) and the
# ratios.
set -euo pipefail
build=$1 reps=${2:-3} nspin=${3:-4}
here=$(cd "$(dirname "$0")" && pwd)
data="$here/../examples/data/rv_2planet.txt"
exe="$build/bin/starling"
pin="taskset -c 0,1"

# the median wall time of REPEATS runs of: env ARGS starling run omp_wait.lua WHAT
timed() {
  local what=$1; shift
  local ts=()
  for _ in $(seq "$reps"); do
    local a b
    a=$(date +%s.%N)
    env -u OMP_WAIT_POLICY -u GOMP_SPINCOUNT "$@" OMP_NUM_THREADS=2 $pin "$exe" run "$here/omp_wait.lua" "$what" "$data" >/dev/null
    b=$(date +%s.%N)
    ts+=("$(echo "$b - $a" | bc -l)")
  done
  printf '%s\n' "${ts[@]}" | sort -g | sed -n "$(( (reps + 1) / 2 ))p"
}

spinner=
stop_spinner() { [ -n "$spinner" ] && kill $spinner 2>/dev/null; spinner=; }
trap stop_spinner EXIT

for what in demcmc integrate; do
  idle_spin=$(timed "$what" GOMP_SPINCOUNT=300000)
  idle_pass=$(timed "$what")
  for _ in $(seq "$nspin"); do
    sh -c 'while :; do :; done' &
    spinner="$spinner $!"
  done
  busy_spin=$(timed "$what" GOMP_SPINCOUNT=300000)
  busy_pass=$(timed "$what")
  stop_spinner
  printf '%-9s alone: spinning %7.3f s, passive %7.3f s (passive/spinning %.2f)\n' \
    "$what" "$idle_spin" "$idle_pass" "$(echo "$idle_pass / $idle_spin" | bc -l)"
  printf '%-9s beside %d spinners: spinning %7.3f s, passive %7.3f s (spinning/passive %.1f)\n' \
    "$what" "$nspin" "$busy_spin" "$busy_pass" "$(echo "$busy_spin / $busy_pass" | bc -l)"
done
