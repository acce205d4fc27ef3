#!/bin/sh
# docs_hygiene.sh SOURCE_DIR: the tree stays a reference, not a diary.
# Fails when
#  - docs/runs exists (raw logs, patches and experiments belong outside the
#    tree; their figures are docs/BENCHMARKS.md's rows and git's history);
#  - docs/BENCHMARKS.md has 400 lines or more (current figures, one row per
#    workload: re-measuring replaces a row);
#  - a source file under core/, integrators/, forces/, plugins/, monitors/,
#    lua/ or cmake/ holds a date (YYYY-MM-DD) or the string "docs/runs":
#    comments say why in the present tense; history is git's and
#    CHANGELOG.md's.
# Prints every offence, one a line, before failing.
set -u
src=${1:?usage: docs_hygiene.sh SOURCE_DIR}
cd "$src" || exit 1
fail=0
# Guard against a vacuous pass: the tree this runs on must be starling's.
for d in core integrators forces plugins monitors lua docs; do
    if [ ! -d "$d" ]; then
        echo "docs_hygiene.sh: $src/$d is missing: not a starling source tree?" >&2
        exit 1
    fi
done
if [ -e docs/runs ]; then
    echo "docs/runs exists: logs and experiments stay out of the tree" >&2
    fail=1
fi
if [ ! -f docs/BENCHMARKS.md ]; then
    echo "docs/BENCHMARKS.md is missing" >&2
    fail=1
else
    n=$(wc -l <docs/BENCHMARKS.md)
    if [ "$n" -ge 400 ]; then
        echo "docs/BENCHMARKS.md has $n lines (fewer than 400: one row per workload)" >&2
        fail=1
    fi
fi
hits=$(grep -rInE '(19|20)[0-9][0-9]-[01][0-9]-[0-3][0-9]|docs/runs' \
           core integrators forces plugins monitors lua cmake 2>/dev/null)
if [ -n "$hits" ]; then
    echo "dates or pointers to docs/runs in source files (say why, in the present tense):" >&2
    echo "$hits" >&2
    fail=1
fi
if [ "$fail" -ne 0 ]; then
    exit 1
fi
echo "docs hygiene: no docs/runs, BENCHMARKS.md $n lines, no dates in the sources"
