#!/usr/bin/env bash
# The CPU test suites under AddressSanitizer (with LeakSanitizer) and
# UndefinedBehaviorSanitizer, in ${SAN_BUILD_DIR:-build-asan}: any invalid
# access, leak or undefined behaviour fails its test. CPU-only (ASan and
# the CUDA driver do not mix); GPU suites (label gpu) and the examples'
# default-size runs (label example, tests/examples.cmake) are left out. The
# fuzz corpora run too (ctest label fuzz), as regression inputs.
# See docs/TESTING.md. Extra arguments go to ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh # gcc's sanitizer runtimes come with build-essential
build=${SAN_BUILD_DIR:-build-asan}
# -O1: what the sanitizers are designed for, and the unrolled integrator
# kernels compile several times faster than at -O2. No NDEBUG: asserts on.
# SL_LANE_CLONES=OFF: the lane loops once, not once per x86-64 level (at
# -O1 the copies differ only in instruction encoding; CMakeLists.txt).
# SL_UNROLL_NBODIES 2..5 and 8 (CI's list): the loops of the other N are
# the same code as their neighbours with another constant, and the
# runtime-N loop, which those N run here, is checked under the sanitizers
# instead.
# SL_FORCE_INLINE=OFF: the compiler, not always_inline and GCC unroll 64,
# decides what to inline and unroll (starling/hd.h); forced, the N-body
# likelihood's and the integrators' unrolled kernels were most of this
# build's compile time (nbody_eval_mvs.c alone 280 s of CPU).
# -fno-var-tracking: gcc's tracking of variables' locations for the debugger
# was half of the compile of the unrolled loops (mvs_cpu_a.c: 82 of 167 s of
# CPU); the sanitizers' reports keep their file:line (the line tables are
# untouched), a debugger shows fewer variables' values in optimised frames.
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g -fno-var-tracking" -DSL_CUDA=OFF \
      -DSL_SANITIZE=address,undefined -DSL_BUILD_BENCH=OFF -DSL_LANE_CLONES=OFF -DSL_FORCE_INLINE=OFF \
      -DSL_UNROLL_NBODIES="${SL_UNROLL_NBODIES:-2;3;4;5;8}"
cmake --build "$build" -j "${JOBS:-$(nproc)}"
# Leak reports for third-party internals only (tests/sanitizers/lsan.supp);
# never for starling's own allocations.
# intercept_tls_get_addr=0: GCC 12's LeakSanitizer, tracking the dynamic TLS
# of dlopen'd modules through __tls_get_addr, read a garbage block on Debian
# 12's glibc and crashed at exit ("Tracer caught signal 11", "DTLS 8 at
# 0xa8-...") after scripts that load every plugin, depending on the heap's
# layout. Without it, dynamic TLS is not a root of the leak scan: that can
# only add leak reports, never hide one.
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_string_checks=1:intercept_tls_get_addr=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export LSAN_OPTIONS="suppressions=$PWD/tests/sanitizers/lsan.supp:print_suppressions=0"
ctest --test-dir "$build" --output-on-failure -j "${JOBS:-$(nproc)}" -LE "gpu|example" "$@"
