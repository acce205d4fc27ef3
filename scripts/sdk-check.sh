#!/usr/bin/env bash
# The plugin SDK as a user meets it (issue 9): installs the built tree into a
# temporary prefix; outside the source tree, writes a plugin of each kind
# with the installed `starling new`, builds it against that prefix, CPU-only
# and, when nvcc is found, with CUDA (compiled and loaded, run on the CPU
# backend), and runs its own tests (Criterion, check-plugin, its Lua
# script; the new force runs with the installed hermite); checks refusals;
# builds a C program with pkg-config alone; then moves the prefix elsewhere
# and checks that everything still runs. Exits non-zero, naming the step.
#   SDK_KINDS   the kinds to scaffold (default: integrator force likelihood monitor)
#   SDK_BACKEND cpu (default): the above, every test on the CPU backend.
#               cuda: the GPU run, on a machine with a GPU and a CUDA build
#               of starling: each scaffold is built with CUDA (a monitor
#               has none) and its Criterion test and Lua script run on the
#               CUDA backend (STARLING_TEST_BACKEND=cuda), and
#               `check-plugin --require-gpu` must pass its CPU-vs-CUDA
#               checks. Without a usable GPU it prints SL_GPU_SKIP and exits
#               0 (ctest reports the `gpu` test sdk_gpu_check as skipped),
#               or fails when SL_REQUIRE_GPU=1 (scripts/gpu-check.sh).
#   BUILD_DIR   the configured and built tree to install (default: build)
#   KEEP=1      keep the temporary folder (its path is printed)
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
build=$(cd "${BUILD_DIR:-build}" && pwd)
[ -x "$build/bin/starling" ] || { echo "sdk-check: no built tree at $build (run scripts/build.sh)" >&2; exit 1; }
if [ -d /usr/local/cuda/bin ]; then export PATH="$PATH:/usr/local/cuda/bin"; fi
backend=${SDK_BACKEND:-cpu}
case $backend in
    cpu|cuda) ;;
    *) echo "sdk-check: SDK_BACKEND=$backend: expected cpu or cuda" >&2; exit 2 ;;
esac
# read by the scaffolds' Criterion tests and Lua scripts
export STARLING_TEST_BACKEND=$backend
KINDS=${SDK_KINDS:-integrator force likelihood monitor}
declare -A plugin_name=([integrator]=sdkleap [force]=sdksoft [likelihood]=sdksine [monitor]=sdkwatch)
# The plugin that carries a scaffold's kernels and CUDA code: the force
# scaffold is a term, whose kernels are its stack's (STACKS newton), the
# plugin newton__NAME built beside it; the others carry their own.
declare -A kernels_in=([sdkleap]=sdkleap [sdksoft]=newton__sdksoft [sdksine]=sdksine
                       [sdkwatch]=sdkwatch)
for kind in $KINDS; do
    [ -n "${plugin_name[$kind]:-}" ] ||
        { echo "sdk-check: SDK_KINDS: unknown kind '$kind' (expected integrator, force, likelihood or monitor)" >&2; exit 2; }
done

# The GPU run needs a CUDA build, a usable device (as core counts them) and
# nvcc; it decides before any work.
if [ "$backend" = cuda ]; then
    version=$("$build/bin/starling" --version)
    if ! grep -q '^CUDA: built in' <<<"$version"; then
        echo "sdk-check: FAIL: SDK_BACKEND=cuda needs starling built with -DSL_CUDA=ON;" \
             "$build has no CUDA backend ($(grep '^CUDA' <<<"$version"))" >&2
        exit 1
    fi
    devices=$(sed -n 's/^CUDA: built in.*; \([0-9]*\) devices\{0,1\} found$/\1/p' <<<"$version")
    if [ "${devices:-0}" -lt 1 ]; then
        if [ "${SL_REQUIRE_GPU:-0}" = 1 ]; then
            echo "sdk-check: FAIL: SDK_BACKEND=cuda, SL_REQUIRE_GPU=1, but no usable CUDA" \
                 "device ($(grep '^CUDA' <<<"$version"))" >&2
            exit 1
        fi
        echo "sdk-check: SL_GPU_SKIP: SDK_BACKEND=cuda: no usable CUDA device" \
             "($(grep '^CUDA' <<<"$version")); nothing run. SL_REQUIRE_GPU=1 makes this a failure."
        exit 0
    fi
    command -v nvcc >/dev/null ||
        { echo "sdk-check: FAIL: SDK_BACKEND=cuda: no nvcc to build the scaffolds' CUDA code" >&2; exit 1; }
    # The scaffolds' Criterion tests compile here: say so before any work
    # (the lent GPU machine has no Criterion; carry its headers and a
    # criterion.pc, and point PKG_CONFIG_PATH and LIBRARY_PATH at them).
    pkg-config --exists criterion ||
        { echo "sdk-check: FAIL: SDK_BACKEND=cuda: pkg-config finds no criterion (the" \
               "scaffolds' tests need its headers); set PKG_CONFIG_PATH" >&2; exit 1; }
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/starling-sdk.XXXXXX")
if [ "${KEEP:-0}" = 1 ]; then echo "sdk-check: keeping $work"; else trap 'rm -rf "$work"' EXIT; fi
fail() { echo "sdk-check: FAIL: $*" >&2; exit 1; }
say() { echo "sdk-check: $*"; }
# run LOG CMD...: runs CMD with its output in LOG, shown when it fails.
run() { local log=$1 rc=0; shift; "$@" >"$log" 2>&1 || rc=$?; [ "$rc" = 0 ] || { cat "$log" >&2; fail "$* (exit $rc)"; }; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# --- install ----------------------------------------------------------------
prefix=$work/prefix
run "$work/install.log" cmake --install "$build" --prefix "$prefix"
for f in bin/starling lib/libstarling.so include/starling/version.h include/starling/starling.h \
         include/starling/launch.h include/starling/integrate.h include/starling/instantiate.h \
         include/starling/internal/loop.h include/starling/internal/lanes.h \
         include/starling/forces/newton.h \
         include/starling/integrators/hermite.h lib/starling/plugins/hermite.so \
         lib/starling/plugins/newton.so lib/cmake/starling/starlingConfig.cmake \
         lib/cmake/starling/StarlingPlugin.cmake lib/cmake/starling/starlingPhysics.cmake \
         lib/pkgconfig/starling.pc share/starling/scaffolds/integrator/CMakeLists.txt \
         share/starling/scaffolds/monitor/CMakeLists.txt \
         share/starling/scaffolds/likelihood/CMakeLists.txt \
         include/starling/forces/plummer.h lib/starling/plugins/plummer.so \
         include/starling/data.h include/starling/plugins/lombscargle/lombscargle.h \
         share/starling/lua/starling/init.lua include/starling/run.h include/starling/demcmc.h \
         include/starling/conformance.h include/starling/check_set.h \
         include/starling/integrators/mvs.h include/starling/integrators/kepler_drift.h; do
    [ -e "$prefix/$f" ] || fail "install lacks $f"
done
# Relocatable: no installed file (rpaths included) names the source or build
# tree or the prefix itself.
if grep -rlF -e "$src" -e "$prefix" "$prefix" >"$work/abs.txt"; then
    cat "$work/abs.txt" >&2; fail "installed files above contain absolute paths"
fi
say "installed into a temporary prefix: $(du -sh "$prefix" | cut -f1)" \
    "(lib/libstarling $(du -shL "$prefix/lib/libstarling.so" | cut -f1)," \
    "plugins $(du -sh "$prefix/lib/starling/plugins" | cut -f1))"
core_cuda=$(sed -n 's/^#define SL_CORE_HAS_CUDA \([01]\)$/\1/p' "$prefix/include/starling/version.h")
[ -n "$core_cuda" ] || fail "installed version.h lacks SL_CORE_HAS_CUDA"

# --- scaffolded plugins, outside the source tree --------------------------------
# `starling new` writes each kind of plugin; each is built against the
# prefix, CPU-only and (when nvcc is found and core has CUDA) with CUDA, and
# its own ctest runs: its Criterion test, check-plugin and its Lua script.
# The force's test runs the installed hermite with the new force; the
# integrator's script runs it with every installed force; the monitor's test
# and script run the installed hermite and newton with it; the likelihood's
# test, check-plugin and script evaluate it on its own data (synthetic
# columns in memory, NAME.csv). A monitor is host code (no CUDA build of its
# own). SDK_KINDS (KINDS, checked above) chooses which.

# check_flags BUILD_DIR NAME HAVE_CUDA: the plugin got the flags through starling::core.
check_flags() {
    local cc=$1/compile_commands.json c_cmd
    c_cmd=$(grep '"command"' "$cc" | grep "/$2\.c\"" || true)
    [ -n "$c_cmd" ] || fail "$cc: no compile command for $2.c"
    for flag in -ffp-contract=off -fno-math-errno -std=gnu11 -fPIC -fvisibility=hidden \
                "-DSL_HAVE_CUDA=$3"; do
        grep -qF -- "$flag" <<<"$c_cmd" || fail "$2.c compiled without $flag: $c_cmd"
    done
    if grep -q -- -fopenmp <<<"$(pkg-config --cflags "$prefix/lib/pkgconfig/starling.pc")"; then
        grep -qF -- -fopenmp <<<"$c_cmd" || fail "$2.c compiled without -fopenmp"
    fi
}

# check_plugin SO NAME HAVE_CUDA: exports sl_plugin_entry only, and names
# *_cuda launchers exactly when it has CUDA code (the bug: a CPU-only plugin
# built against a CUDA install referenced them and failed to load).
check_plugin() {
    local so=$1 exported undef_cuda def_cuda
    exported=$(nm -D --defined-only "$so" | awk '$2 == "T" { print $3 }')
    [ "$exported" = sl_plugin_entry ] || fail "$so exports functions other than sl_plugin_entry: $exported"
    undef_cuda=$(nm -D --undefined-only "$so" | grep -c '_cuda$' || true)
    # launchers: the stamped kernels' sl_run_*_cuda, a likelihood's NAME_cuda_eval
    def_cuda=$(nm "$so" | grep -cE " [tT] (sl_run_.*_cuda|${2}_cuda_eval)$" || true)
    [ "$undef_cuda" = 0 ] || fail "$so needs *_cuda symbols from elsewhere: $(nm -D --undefined-only "$so" | grep '_cuda$')"
    if [ "$3" = 1 ]; then [ "$def_cuda" -gt 0 ] || fail "$so has no CUDA launchers"
    else [ "$def_cuda" = 0 ] || fail "$so (CPU-only) has CUDA launchers"; fi
}

# scaffold KIND NAME PREFIX: `starling new` from the installed executable.
scaffold() {
    local dir=$work/$2
    rm -rf "$dir"
    run "$work/new-$2.log" "$3/bin/starling" new "$1" "$2" "$dir"
    [ -f "$dir/CMakeLists.txt" ] || fail "starling new $1 $2 wrote no CMakeLists.txt"
    ! grep -rq '@NAME' "$dir" || fail "starling new $1 $2 left @NAME markers: $(grep -rl '@NAME' "$dir")"
}

# build_plugin NAME LABEL HAVE_CUDA PREFIX cmake-args...
build_plugin() {
    local name=$1 label=$2 cuda=$3 pfx=$4; shift 4
    local src_dir=$work/$name b=$work/build-$name-$label t0
    run "$work/configure-$name-$label.log" cmake -S "$src_dir" -B "$b" -G Ninja \
        -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$pfx" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON "$@"
    t0=$(now)
    run "$work/build-$name-$label.log" cmake --build "$b" -j "${JOBS:-$(nproc)}"
    local so=$b/plugins/$name.so
    [ -f "$so" ] || fail "$name ($label): no $so"
    say "$name ($label): built in $(elapsed "$t0") s, $name.so $(du -k "$so" | cut -f1) KiB"
    local kname=${kernels_in[$name]:-$name}
    if [ "$kname" = "$name" ]; then
        check_flags "$b" "$name" "$cuda"
        check_plugin "$so" "$name" "$cuda"
    else
        # a term: host code only; its stack carries the kernels
        local kso=$b/plugins/$kname.so
        [ -f "$kso" ] || fail "$name ($label): no $kso (the stack with its kernels)"
        check_flags "$b" "$name" 0
        check_plugin "$so" "$name" 0
        check_flags "$b" "${kname}_plugin" "$cuda"
        check_plugin "$kso" "$kname" "$cuda"
    fi
    STARLING_PLUGIN_PATH=$b/plugins run "$work/plugins-$name-$label.log" "$pfx/bin/starling" plugins
    grep -q "$name" "$work/plugins-$name-$label.log" ||
        { cat "$work/plugins-$name-$label.log" >&2; fail "$name ($label): 'starling plugins' does not list it"; }
    if grep -q '^starling: warning: ' "$work/plugins-$name-$label.log"; then
        cat "$work/plugins-$name-$label.log" >&2; fail "$name ($label): 'starling plugins' refused a plugin"
    fi
    run "$work/ctest-$name-$label.log" ctest --test-dir "$b" --output-on-failure
    grep -q "100% tests passed" "$work/ctest-$name-$label.log" ||
        { cat "$work/ctest-$name-$label.log" >&2; fail "$name ($label): its tests did not all pass"; }
    say "$name ($label): $(grep -c 'Passed' "$work/ctest-$name-$label.log") tests passed" \
        "(Criterion, check-plugin, $name.lua)"
}

# gpu_run KIND NAME: SDK_BACKEND=cuda. The plugin built with CUDA (a monitor
# without: host code, run on the CUDA backend all the same), its ctest on
# the CUDA backend (build_plugin, with STARLING_TEST_BACKEND=cuda), then
# check-plugin with --require-gpu, whose CPU-vs-CUDA checks must all have
# run and passed, and its script with backend "cuda" named (refused, not
# run on the CPU, when CUDA cannot be used).
gpu_run() {
    local kind=$1 name=$2 cuda=1 data=()
    if [ "$kind" = monitor ]; then
        cuda=0
        build_plugin "$name" gpu 0 "$prefix"
    else
        build_plugin "$name" gpu 1 "$prefix" -DSTARLING_PLUGIN_CUDA=ON
    fi
    local plugins=$work/build-$name-gpu/plugins log=$work/check-gpu-$name.log
    [ -f "$work/$name/$name.csv" ] && data=(--data="$work/$name/$name.csv")
    STARLING_PLUGIN_PATH=$plugins run "$log" "$prefix/bin/starling" check-plugin --require-gpu \
        "${data[@]}" "$plugins/${kernels_in[$name]:-$name}.so"
    local compared
    compared=$(grep -c '^  PASS  cuda' "$log" || true)
    if [ "$cuda" = 1 ]; then
        [ "$compared" -gt 0 ] || { cat "$log" >&2; fail "$name: check-plugin compared no CUDA result with the CPU"; }
        ! grep -q '^  SKIP  cuda' "$log" || { cat "$log" >&2; fail "$name: check-plugin skipped a CUDA comparison"; }
    fi
    STARLING_PLUGIN_PATH=$plugins run "$work/lua-gpu-$name.log" "$prefix/bin/starling" run \
        "$work/$name/$name.lua" cuda
    grep -q "^$name ok$" "$work/lua-gpu-$name.log" ||
        { cat "$work/lua-gpu-$name.log" >&2; fail "$name.lua cuda did not report ok"; }
    say "$name (gpu): its tests on the CUDA backend, check-plugin --require-gpu" \
        "($compared CPU-vs-CUDA checks passed), $name.lua cuda: ok"
}

for kind in $KINDS; do
    name=${plugin_name[$kind]}
    scaffold "$kind" "$name" "$prefix"
    if [ "$backend" = cuda ]; then
        gpu_run "$kind" "$name"
        continue
    fi
    build_plugin "$name" cpu 0 "$prefix" -DSTARLING_PLUGIN_CUDA=OFF
    if [ "$kind" = monitor ]; then
        say "$name: a monitor has no CUDA code (it runs on the host between launches)"
    elif ! command -v nvcc >/dev/null; then
        say "no nvcc: CUDA build of $name skipped"
    elif [ "$core_cuda" = 1 ]; then
        build_plugin "$name" cuda 1 "$prefix" -DSTARLING_PLUGIN_CUDA=ON
    fi
done

# The rest does not depend on the backend: the CPU run checks it.
if [ "$backend" = cuda ]; then
    say "ok (SDK_BACKEND=cuda: $KINDS on $(grep -m1 '^CUDA' <<<"$version"))"
    exit 0
fi

# `starling new` refuses what would be refused later, and writes nothing.
if "$prefix/bin/starling" new force hermite "$work/clash" >"$work/clash.log" 2>&1; then
    fail "starling new accepted the name of an installed integrator"
fi
grep -q "taken by the integrator in .*hermite.so" "$work/clash.log" ||
    { cat "$work/clash.log" >&2; fail "starling new: no clear refusal of a clashing name"; }
[ ! -e "$work/clash" ] || fail "starling new wrote $work/clash although it refused"
mkdir -p "$work/full" && touch "$work/full/keep"
if "$prefix/bin/starling" new force fresh "$work/full" >"$work/full.log" 2>&1; then
    fail "starling new wrote into a folder that was not empty"
fi
[ "$(ls "$work/full")" = keep ] || fail "starling new changed a folder it refused"
say "starling new: a clashing name and a non-empty folder are refused, nothing written"

# Core without CUDA cannot launch a plugin's kernels: asking for them is
# refused at configure time, AUTO builds CPU-only (checked on the first
# kind with kernels).
first=${plugin_name[${KINDS%% *}]}
kernels=
for kind in $KINDS; do
    case $kind in integrator|force) kernels=${kernels:-${plugin_name[$kind]}} ;; esac
done
if [ -n "$kernels" ] && command -v nvcc >/dev/null && [ "$core_cuda" = 0 ]; then
    if cmake -S "$work/$kernels" -B "$work/build-nocore" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" \
            -DSTARLING_PLUGIN_CUDA=ON >"$work/nocore.log" 2>&1; then
        fail "STARLING_PLUGIN_CUDA=ON against a core without CUDA was accepted"
    fi
    grep -q "STARLING_PLUGIN_CUDA=ON but this starling was built without" "$work/nocore.log" ||
        { cat "$work/nocore.log" >&2; fail "no clear refusal of STARLING_PLUGIN_CUDA=ON"; }
    run "$work/configure-auto.log" cmake -S "$work/$kernels" -B "$work/build-auto" -G Ninja \
        -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON
    ! grep -q '\.cu"' "$work/build-auto/compile_commands.json" ||
        fail "STARLING_PLUGIN_CUDA=AUTO compiles CUDA sources against a core without CUDA"
    say "core without CUDA: STARLING_PLUGIN_CUDA=ON refused, AUTO configures CPU-only"
fi

# --- pkg-config -----------------------------------------------------------------
# probe PREFIX LABEL: builds scripts/sdk/sdk_probe.c from starling.pc alone.
probe() {
    local pc=$1/lib/pkgconfig flags
    flags=$(PKG_CONFIG_PATH=$pc pkg-config --cflags --libs starling) || fail "pkg-config starling ($pc)"
    for flag in -ffp-contract=off -fno-math-errno -std=gnu11 -fPIC; do
        grep -qF -- "$flag" <<<"$flags" || fail "pkg-config --cflags lacks $flag: $flags"
    done
    local inc
    inc=$(PKG_CONFIG_PATH=$pc pkg-config --variable=includedir starling)
    [ "$(realpath "$inc")" = "$(realpath "$1/include")" ] ||
        fail "starling.pc: includedir $inc is not $1/include"
    # shellcheck disable=SC2086
    run "$work/probe-$2-cc.log" cc -Wall -Wextra -Werror -o "$work/probe-$2" \
        "$src/scripts/sdk/sdk_probe.c" $flags -Wl,-rpath,"$1/lib"
    STARLING_PLUGIN_PATH=$work/build-$first-cpu/plugins run "$work/probe-$2.log" "$work/probe-$2" "$first"
    say "$2: $(cat "$work/probe-$2.log")"
}
probe "$prefix" pkg-config

# --- relocation: move the prefix, the old one is gone ------------------------------
moved=$work/moved/elsewhere
mkdir -p "$work/moved"
mv "$prefix" "$moved"
STARLING_PLUGIN_PATH=$work/build-$first-cpu/plugins run "$work/moved-run.log" \
    "$moved/bin/starling" run "$work/$first/$first.lua"
grep -q "^$first ok$" "$work/moved-run.log" || { cat "$work/moved-run.log" >&2; fail "moved prefix: $first.lua did not report ok"; }
probe "$moved" moved-pkg-config
# find_package from the moved prefix links the moved libstarling.
run "$work/configure-moved.log" cmake -S "$work/$first" -B "$work/build-moved" -G Ninja \
    -DCMAKE_PREFIX_PATH="$moved" -DSTARLING_PLUGIN_CUDA=OFF
grep -qF "$moved/lib/libstarling.so" "$work/build-moved/build.ninja" ||
    fail "the example configured against the moved prefix does not link its libstarling"
! grep -rqF "$work/prefix" "$work/build-moved/CMakeCache.txt" "$work/build-moved/build.ninja" ||
    fail "the example configured against the moved prefix still names the old one"
say "moved prefix: starling, its plugins, pkg-config and find_package work from $moved"
say "ok"
