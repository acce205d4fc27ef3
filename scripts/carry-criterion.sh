#!/usr/bin/env bash
# Copies this machine's Criterion (headers, library, a relocatable
# criterion.pc) into DEST, for a GPU machine that has none: the
# sdk_gpu_check test compiles the scaffolds' Criterion tests there.
# Then on that machine: CRITERION_PREFIX=DEST scripts/gpu-check.sh ...
# Usage: scripts/carry-criterion.sh [DEST]   (default .criterion)
set -euo pipefail
dest=${1:-.criterion}
lib=$(pkg-config --variable=libdir criterion 2>/dev/null) ||
    { echo "carry-criterion: pkg-config finds no criterion here (apt-get install libcriterion-dev)" >&2; exit 1; }
inc=$(pkg-config --variable=includedir criterion)
real=$(readlink -f "$lib/libcriterion.so")
rm -rf "$dest"
mkdir -p "$dest/include" "$dest/lib/pkgconfig"
cp -r "$inc/criterion" "$dest/include/"
cp "$real" "$dest/lib/"
ln -s "$(basename "$real")" "$dest/lib/libcriterion.so"
soname=$(objdump -p "$real" | awk '/SONAME/ {print $2}')
[ -z "$soname" ] || [ -e "$dest/lib/$soname" ] || ln -s "$(basename "$real")" "$dest/lib/$soname"
cat > "$dest/lib/pkgconfig/criterion.pc" <<PC
prefix=\${pcfiledir}/../..
includedir=\${prefix}/include
libdir=\${prefix}/lib

Name: criterion
Description: A KISS, Cross platform unit testing framework for C and C++ (carried copy)
Version: $(pkg-config --modversion criterion)
Libs: -L\${libdir} -lcriterion
Cflags: -I\${includedir}
PC
echo "carry-criterion: $dest ($(du -sh "$dest" | cut -f1)); on the GPU machine set CRITERION_PREFIX=$dest"
