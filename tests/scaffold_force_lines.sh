#!/bin/sh
# What a force's author writes with `starling new force`: the term's header,
# its table and the lines of CMakeLists.txt that build it (the test harness
# after include(CTest) is the scaffold's), counted without blank lines and
# comments. A term is meant to be its physics and little else: at most
# $2 lines (default 60).
set -eu
dir=$1
limit=${2:-60}
code() { gcc -fpreprocessed -dD -E -P -x c "$1" 2>/dev/null | grep -cv '^[[:space:]]*$'; }
h=$(code "$dir/@NAME@.h")
c=$(code "$dir/@NAME@.c")
m=$(sed '/^include(CTest)/,$d' "$dir/CMakeLists.txt" | grep -v '^[[:space:]]*#' | grep -cv '^[[:space:]]*$')
total=$((h + c + m))
echo "force scaffold: header $h, table $c, CMake $m: $total lines (limit $limit)"
[ "$total" -le "$limit" ]
