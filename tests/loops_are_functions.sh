#!/bin/sh
# The loops are functions with line numbers (the .inc files of
# core/include/starling/internal), not macros: no header of the core, an
# integrator or a force defines a macro holding a loop longer than $2 lines
# (default 12: a drift iteration, a parameter copy), and the loop engines'
# old macro names are defined nowhere. Prints each offender.
set -eu
root=$1
limit=${2:-12}
bad=0
for f in "$root"/core/include/starling/*.h "$root"/core/include/starling/*.inc \
         "$root"/core/include/starling/internal/* "$root"/integrators/*/*.h \
         "$root"/forces/*/*.h; do
  out=$(awk -v F="$f" -v L="$limit" '
    /^[[:space:]]*#[[:space:]]*define/ { inm = 1; n = 0; loop = 0; name = $2 }
    inm { n++; if ($0 ~ /for \(|while \(/) loop = 1 }
    inm && !/\\$/ { if (loop && n > L) print F ": macro " name " holds a loop over " n " lines"; inm = 0 }' "$f")
  if [ -n "$out" ]; then echo "$out"; bad=1; fi
done
if grep -rnE '#[[:space:]]*define[[:space:]]+(SL_LANES_DEFINE|SL_LOOP_DEFINE|SL_CPU_DEFINE|SL_GROUP_LOOP_DEFINE|SL_MVS_GROUP_LOOP_DEFINE|SL_PROP_[A-Za-z0-9_]*_GROUP_DEFINE)\b' \
     "$root"/core "$root"/integrators "$root"/forces "$root"/plugins "$root"/examples; then
  bad=1
fi
[ "$bad" = 0 ] && echo "no loop is a macro (limit $limit lines)"
exit $bad
