#!/bin/sh
# core_layering.sh SOURCE_DIR: core and its wings include downward only.
# core (core/src, core/include) is the ABI and the registry; its wings are
# core/engine, core/sampling and core/conformance, each with its own
# include/starling/. Fails when
#  - a file of core includes a wing's header (starling.h, the umbrella for
#    users, may name the engine's and the sampling's, never conformance.h);
#  - the engine or the sampling wing includes a header of another wing, or
#    the conformance wing one of the sampling wing's;
#  - a file includes a private header (a quoted name without a folder) that
#    its own src/ folder does not hold;
#  - run.c reaches merge.c (merge_internal.h): merging builds on the pass;
#  - a part of the Lua module (lua/binding_*.c, plot_png.c) includes
#    binding.h: binding.c opens the parts, the parts never call it.
# Prints every offence, one a line, before failing.
set -u
src=${1:?usage: core_layering.sh SOURCE_DIR}
cd "$src" || exit 1
fail=0
wings="engine sampling conformance"
# Guard against a vacuous pass: every folder this reads must exist and hold
# headers.
for d in core/src core/include/starling lua; do
    if [ ! -d "$d" ]; then
        echo "core_layering.sh: $src/$d is missing: not a starling source tree?" >&2
        exit 1
    fi
done
for w in $wings; do
    if ! ls core/$w/include/starling/*.h >/dev/null 2>&1 || [ ! -d core/$w/src ]; then
        echo "core_layering.sh: core/$w has no include/starling/*.h or no src/" >&2
        exit 1
    fi
done

# The headers a layer declares, one name a line (run.h, demcmc.h, ...).
headers() {
    ls "$1"/*.h | sed 's|.*/||'
}

# Every '#include "starling/NAME.h"' or <starling/NAME.h> of the files
# under the folders given, as FILE:NAME.h lines.
includes() {
    grep -rHoE '#[[:space:]]*include[[:space:]]*[<"]starling/[A-Za-z0-9_]+\.h[>"]' "$@" \
        --include='*.c' --include='*.h' --include='*.cu' --include='*.inc' |
        sed -E 's|:#.*starling/([A-Za-z0-9_]+\.h).*|:\1|'
}

# check LAYER_FOLDERS... -- FORBIDDEN_WING...: no file of the folders
# includes a header of a forbidden wing.
check() {
    dirs=""
    while [ "$1" != "--" ]; do dirs="$dirs $1"; shift; done
    shift
    for w in "$@"; do
        for h in $(headers core/$w/include/starling); do
            # shellcheck disable=SC2086
            includes $dirs | grep ":$h\$" | while IFS= read -r hit; do
                file=${hit%%:*}
                if [ "$file" = core/include/starling/starling.h ] && [ "$w" != conformance ]; then
                    continue
                fi
                echo "$file includes starling/$h, a header of core/$w, which it may not use"
            done
        done
    done
}

out=$(
    check core/src core/include -- $wings
    check core/engine -- sampling conformance
    check core/sampling -- engine conformance
    check core/conformance -- sampling
)
if [ -n "$out" ]; then
    echo "$out" >&2
    fail=1
fi

# Private headers: a quoted name without a folder is the file's own src/.
for d in core/src core/engine/src core/sampling/src core/conformance/src; do
    for f in "$d"/*.c "$d"/*.h "$d"/*.cu; do
        [ -e "$f" ] || continue
        for h in $(sed -nE 's|^#[[:space:]]*include[[:space:]]*"([A-Za-z0-9_]+\.h)".*|\1|p' "$f"); do
            # core's private headers (cuda_try.h, monitor_table.h) serve
            # every wing; a wing's serve that wing alone.
            if [ ! -e "$d/$h" ] && [ ! -e "core/src/$h" ]; then
                echo "$f includes \"$h\", which is neither in $d nor in core/src" >&2
                fail=1
            fi
        done
    done
done

if grep -n 'merge_internal\.h' core/engine/src/run.c >&2; then
    echo "core/engine/src/run.c includes merge_internal.h: run.c must not reach merge.c" >&2
    fail=1
fi

for f in lua/binding_*.c lua/plot_png.c; do
    if grep -n '#include "binding\.h"' "$f" >/dev/null; then
        echo "$f includes binding.h: the module's parts use binding_util.h" >&2
        fail=1
    fi
done
exit $fail
