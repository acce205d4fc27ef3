#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz with clang (ASan + UBSan) in
# ${FUZZ_BUILD_DIR:-build-fuzz} and runs each for FUZZ_SECONDS (default 60),
# FUZZ_JOBS at a time (default: the core count), from its checked-in corpus
# and dictionary. Fails when any target finds a crash, a leak, undefined
# behaviour or a broken check; the input is kept in $FUZZ_OUT (default
# build-fuzz/findings) and its path printed with the command that replays
# it. New inputs go to a scratch corpus, never into the repository: add an
# input to tests/fuzz/corpus/<target>/ by hand (docs/TESTING.md).
# Usage: scripts/fuzz.sh [TARGET...]   (default: every target)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

# clang and its runtimes (libFuzzer, ASan, UBSan) from Debian; idempotent.
pkgs=(clang libclang-rt-dev)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update
  $sudo apt-get install -y --no-install-recommends "${missing[@]}"
fi
bash scripts/deps.sh

build=${FUZZ_BUILD_DIR:-build-fuzz}
seconds=${FUZZ_SECONDS:-60}
jobs=${FUZZ_JOBS:-$(nproc)}
out=${FUZZ_OUT:-$build/findings}
# OpenMP off: no target runs parallel code, and clang's OpenMP would need libomp.
cmake -S . -B "$build" -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g" -DSL_CUDA=OFF -DSL_OPENMP=OFF -DSL_FUZZ=ON \
      -DSL_BUILD_TESTS=OFF -DSL_BUILD_BENCH=OFF
# Only the fuzz targets and what they need (their NEEDS in tests/fuzz):
# the integrator plugins' unrolled loops take clang with the sanitizers
# many minutes each and no target runs them.
fuzz_targets=()
for d in tests/fuzz/corpus/*/; do fuzz_targets+=("$(basename "$d")"); done
cmake --build "$build" -j "${JOBS:-$(nproc)}" --target "${fuzz_targets[@]}"

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  # every target but those on hold (tests/fuzz/HOLD says why); name one to run it
  for d in tests/fuzz/corpus/*/; do
    t=$(basename "$d")
    if grep -q "^$t " tests/fuzz/HOLD 2>/dev/null; then
      echo "fuzz: $t on hold: $(grep "^$t " tests/fuzz/HOLD | sed "s/^$t *//")"
      continue
    fi
    targets+=("$t")
  done
fi
mkdir -p "$out"
# allocator_may_return_null: a huge allocation fails as in production (the
# code must handle it) instead of stopping ASan.
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=1:strict_string_checks=1:allocator_may_return_null=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export LSAN_OPTIONS="suppressions=$root/tests/sanitizers/lsan.supp:print_suppressions=0"

# One target: its corpus copied to scratch (libFuzzer adds to the first
# folder), -max_len and other flags from tests/fuzz/<target>.options.
run_one() {
  local t=$1 exe=$build/fuzz/$1 scratch
  scratch=$(mktemp -d)
  cp -r "tests/fuzz/corpus/$t/." "$scratch/"
  local args=(-max_total_time="$seconds" -max_len=4096 -timeout=20 -rss_limit_mb=2048
              -print_final_stats=1 -artifact_prefix="$out/$t-")
  if [ -f "tests/fuzz/$t.dict" ]; then args+=(-dict="tests/fuzz/$t.dict"); fi
  if [ -f "tests/fuzz/$t.options" ]; then
    while read -r opt; do
      case $opt in -*) args+=("$opt") ;; esac
    done < "tests/fuzz/$t.options"
  fi
  local rc=0
  "$exe" "${args[@]}" "$scratch" > "$out/$t.log" 2>&1 || rc=$?
  rm -rf "$scratch"
  if [ $rc -ne 0 ]; then
    echo "fuzz: $t FAILED (exit $rc); its log: $out/$t.log" >&2
    tail -n 60 "$out/$t.log" >&2
    for a in "$out/$t"-*; do
      [ -e "$a" ] && echo "fuzz: $t: input kept in $a; replay: $exe $a" >&2
    done
    return 1
  fi
  echo "fuzz: $t ok: $(grep -E '^stat::number_of_executed_units' "$out/$t.log" | awk '{print $2}') inputs in ${seconds}s"
}

failed=0
pids=()
names=()
for t in "${targets[@]}"; do
  if [ ! -x "$build/fuzz/$t" ]; then
    echo "fuzz: no target $t in $build/fuzz (tests/fuzz/CMakeLists.txt)" >&2
    failed=1
    continue
  fi
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  run_one "$t" &
  pids+=($!)
  names+=("$t")
done
for i in "${!pids[@]}"; do
  wait "${pids[$i]}" || failed=1
done
exit $failed
