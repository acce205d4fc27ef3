#!/usr/bin/env bash
# The CPU backend, main (base) against this session's drift changes (v2: the
# series start on ellipses, the fast iteration's fewer comparisons, the lane
# loop's rarer checks), against REBOUND's WHFast512 on the GPU machine's host:
# 2026-12-01's script with this pack's variants. Carry build-pack
# (cpu.tar.xz: base/, v2/; wheels/).
VARIANTS="${VARIANTS:-base v2}" exec bash "$(dirname "$0")/../2026-12-01-fma/dev.sh"
