#!/usr/bin/env bash
# The plugin SDK as a user meets it (issue 9): installs the built tree into a
# temporary prefix; outside the source tree, builds examples/plugins/leapfrog
# against that prefix, CPU-only and, when nvcc is found, with CUDA (compiled
# and loaded, run on the CPU backend); checks `starling plugins` lists it and
# runs its Lua script; builds a C program with pkg-config alone; then moves
# the prefix elsewhere and checks that everything still runs. Exits non-zero,
# naming the step, on any problem.
#   BUILD_DIR   the configured and built tree to install (default: build)
#   KEEP=1      keep the temporary folder (its path is printed)
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
build=$(cd "${BUILD_DIR:-build}" && pwd)
[ -x "$build/bin/starling" ] || { echo "sdk-check: no built tree at $build (run scripts/build.sh)" >&2; exit 1; }
if [ -d /usr/local/cuda/bin ]; then export PATH="$PATH:/usr/local/cuda/bin"; fi

work=$(mktemp -d "${TMPDIR:-/tmp}/starling-sdk.XXXXXX")
if [ "${KEEP:-0}" = 1 ]; then echo "sdk-check: keeping $work"; else trap 'rm -rf "$work"' EXIT; fi
fail() { echo "sdk-check: FAIL: $*" >&2; exit 1; }
say() { echo "sdk-check: $*"; }
# run LOG CMD...: runs CMD with its output in LOG, shown when it fails.
run() { local log=$1; shift; "$@" >"$log" 2>&1 || { cat "$log" >&2; fail "$* (exit $?)"; }; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# --- install ----------------------------------------------------------------
prefix=$work/prefix
run "$work/install.log" cmake --install "$build" --prefix "$prefix"
for f in bin/starling lib/libstarling.so include/starling/version.h include/starling/starling.h \
         include/starling/forces/forces.h include/starling/forces/newton.h \
         include/starling/integrators/hermite.h lib/starling/plugins/hermite.so \
         lib/starling/plugins/newton.so lib/cmake/starling/starlingConfig.cmake \
         include/starling/data.h include/starling/plugins/lombscargle/lombscargle.h \
         lib/cmake/starling/StarlingPlugin.cmake lib/pkgconfig/starling.pc \
         share/starling/lua/starling/init.lua; do
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

# --- the example plugin, outside the source tree ------------------------------
ex=$work/leapfrog
cp -r "$src/examples/plugins/leapfrog" "$ex"
rm -rf "$ex/build"

# check_flags BUILD_DIR HAVE_CUDA: the plugin got the flags through starling::core.
check_flags() {
    local cc=$1/compile_commands.json
    local c_cmd
    c_cmd=$(grep '"command"' "$cc" | grep 'leapfrog\.c' || true)
    [ -n "$c_cmd" ] || fail "$cc: no compile command for leapfrog.c"
    for flag in -ffp-contract=off -fno-math-errno -std=gnu11 -fPIC -fvisibility=hidden \
                "-DSL_HAVE_CUDA=$2"; do
        grep -qF -- "$flag" <<<"$c_cmd" || fail "leapfrog.c compiled without $flag: $c_cmd"
    done
    if grep -q -- -fopenmp <<<"$(pkg-config --cflags "$prefix/lib/pkgconfig/starling.pc")"; then
        grep -qF -- -fopenmp <<<"$c_cmd" || fail "leapfrog.c compiled without -fopenmp"
    fi
}

# check_plugin SO HAVE_CUDA: exports sl_plugin_entry only, and names *_cuda
# launchers exactly when it has CUDA code (the bug: a CPU-only plugin built
# against a CUDA install referenced them and failed to load).
check_plugin() {
    local so=$1 exported undef_cuda def_cuda
    exported=$(nm -D --defined-only "$so" | awk '$2 == "T" { print $3 }')
    [ "$exported" = sl_plugin_entry ] || fail "$so exports functions other than sl_plugin_entry: $exported"
    undef_cuda=$(nm -D --undefined-only "$so" | grep -c '_cuda$' || true)
    def_cuda=$(nm "$so" | grep -c ' [tT] sl_run_leapfrog_.*_cuda$' || true)
    [ "$undef_cuda" = 0 ] || fail "$so needs *_cuda symbols from elsewhere: $(nm -D --undefined-only "$so" | grep '_cuda$')"
    if [ "$2" = 1 ]; then [ "$def_cuda" -gt 0 ] || fail "$so has no CUDA launchers"
    else [ "$def_cuda" = 0 ] || fail "$so (CPU-only) has CUDA launchers"; fi
}

# check_runs PREFIX PLUGIN_DIR LABEL: starling lists the plugin and runs its script.
check_runs() {
    local exe=$1/bin/starling
    STARLING_PLUGIN_PATH=$2 run "$work/plugins-$3.log" "$exe" plugins
    grep -q leapfrog "$work/plugins-$3.log" || { cat "$work/plugins-$3.log" >&2; fail "$3: 'starling plugins' does not list leapfrog"; }
    if grep -qi 'warning\|refused' "$work/plugins-$3.log"; then
        cat "$work/plugins-$3.log" >&2; fail "$3: 'starling plugins' refused a plugin"
    fi
    STARLING_PLUGIN_PATH=$2 run "$work/kepler-$3.log" "$exe" run "$ex/kepler.lua" cpu
    grep -q '^leapfrog ok$' "$work/kepler-$3.log" || { cat "$work/kepler-$3.log" >&2; fail "$3: kepler.lua did not report ok"; }
    say "$3: $(grep '^kernel' "$work/kepler-$3.log")"
}

build_example() { # LABEL HAVE_CUDA cmake-args...
    local label=$1 cuda=$2; shift 2
    local b=$work/build-$label t0
    run "$work/configure-$label.log" cmake -S "$ex" -B "$b" -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON "$@"
    t0=$(now)
    run "$work/build-$label.log" cmake --build "$b" -j "${JOBS:-$(nproc)}"
    local so=$b/plugins/leapfrog.so
    [ -f "$so" ] || fail "$label: no $so"
    say "$label: built leapfrog.so in $(elapsed "$t0") s, $(du -k "$so" | cut -f1) KiB"
    check_flags "$b" "$cuda"
    check_plugin "$so" "$cuda"
    check_runs "$prefix" "$b/plugins" "$label"
}

build_example cpu 0 -DSTARLING_PLUGIN_CUDA=OFF
if ! command -v nvcc >/dev/null; then
    say "no nvcc: CUDA build of the example skipped"
elif [ "$core_cuda" = 1 ]; then
    build_example cuda 1 -DSTARLING_PLUGIN_CUDA=ON
else
    # Core without CUDA cannot launch a plugin's kernels: asking for them is
    # refused at configure time, AUTO builds CPU-only.
    if cmake -S "$ex" -B "$work/build-nocore" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" \
            -DSTARLING_PLUGIN_CUDA=ON >"$work/nocore.log" 2>&1; then
        fail "STARLING_PLUGIN_CUDA=ON against a core without CUDA was accepted"
    fi
    grep -q "STARLING_PLUGIN_CUDA=ON but this starling was built without" "$work/nocore.log" ||
        { cat "$work/nocore.log" >&2; fail "no clear refusal of STARLING_PLUGIN_CUDA=ON"; }
    run "$work/configure-auto.log" cmake -S "$ex" -B "$work/build-auto" -G Ninja \
        -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON
    ! grep -q 'leapfrog_cuda\.cu' "$work/build-auto/compile_commands.json" ||
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
    STARLING_PLUGIN_PATH=$work/build-cpu/plugins run "$work/probe-$2.log" "$work/probe-$2"
    say "$2: $(cat "$work/probe-$2.log")"
}
probe "$prefix" pkg-config

# --- relocation: move the prefix, the old one is gone ------------------------------
moved=$work/moved/elsewhere
mkdir -p "$work/moved"
mv "$prefix" "$moved"
check_runs "$moved" "$work/build-cpu/plugins" "moved-cpu"
probe "$moved" moved-pkg-config
# find_package from the moved prefix links the moved libstarling.
run "$work/configure-moved.log" cmake -S "$ex" -B "$work/build-moved" -G Ninja \
    -DCMAKE_PREFIX_PATH="$moved" -DSTARLING_PLUGIN_CUDA=OFF
grep -qF "$moved/lib/libstarling.so" "$work/build-moved/build.ninja" ||
    fail "the example configured against the moved prefix does not link its libstarling"
! grep -rqF "$work/prefix" "$work/build-moved/CMakeCache.txt" "$work/build-moved/build.ninja" ||
    fail "the example configured against the moved prefix still names the old one"
say "moved prefix: starling, its plugins, pkg-config and find_package work from $moved"
say "ok"
