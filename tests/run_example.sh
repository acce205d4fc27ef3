#!/bin/sh
# run_example.sh STARLING SOURCE_DIR NAME EXPECT [ARGS...]: runs
# examples/NAME.lua with ARGS (its default size) from a temporary folder
# holding a copy of examples/, so that its outputs, beside the script or in
# the working folder, land there and not in the source tree. Prints what
# the script prints; fails unless it exits 0 and its output has a line
# matching EXPECT (a grep pattern).
set -u
exe=$1 src=$2 name=$3 expect=$4
shift 4
dir=$(mktemp -d "${TMPDIR:-/tmp}/sl_example.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
cp -R "$src/examples" "$dir/examples" || exit 1
cd "$dir" || exit 1
"$exe" run "examples/$name.lua" "$@" >"$dir/log" 2>&1
rc=$?
cat "$dir/log"
if [ "$rc" -ne 0 ]; then
    echo "run_example.sh: examples/$name.lua exited with $rc" >&2
    exit 1
fi
if ! grep -q -e "$expect" "$dir/log"; then
    echo "run_example.sh: examples/$name.lua printed no line matching '$expect'" >&2
    exit 1
fi
